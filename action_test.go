package taintlint_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

func readAction(t *testing.T) *actionFile {
	t.Helper()
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	var a actionFile
	if err := dec.Decode(&a); err != nil {
		// branding and other keys GitHub knows are not in actionFile;
		// decode again leniently and report only real syntax errors.
		if err := yaml.Unmarshal(data, &a); err != nil {
			t.Fatalf("action.yml: %v", err)
		}
	}
	return &a
}

var (
	actionInputs  = []string{"category", "config", "fail-on", "format", "nodes", "output-file", "path", "upload-sarif"}
	actionOutputs = []string{"exit-code", "findings", "sarif-file"}
	exprRE        = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	inputRefRE    = regexp.MustCompile(`\binputs\.([A-Za-z0-9_-]+)`)
	pinnedUsesRE  = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$`)
)

// TestActionMetadata checks action.yml beyond what actionlint checks (it
// validates the metadata only through a workflow's uses: ./, and never the
// composite steps): inputs and outputs, that inputs reach scripts only
// through env:, pinned actions, and Go from the action's own go.mod.
func TestActionMetadata(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	if a.Name == "" || a.Description == "" {
		t.Error("name and description are required by the Marketplace")
	}
	var names []string
	for name, in := range a.Inputs {
		names = append(names, name)
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if in.Required {
			t.Errorf("input %s is required; every input has a default", name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, actionInputs) {
		t.Errorf("inputs = %v, want %v", names, actionInputs)
	}
	names = nil
	for name, out := range a.Outputs {
		names = append(names, name)
		if out.Description == "" {
			t.Errorf("output %s has no description", name)
		}
		if want := "${{ steps.check.outputs." + name + " }}"; out.Value != want {
			t.Errorf("output %s = %q, want %q", name, out.Value, want)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, actionOutputs) {
		t.Errorf("outputs = %v, want %v", names, actionOutputs)
	}

	used := map[string]bool{}
	ids := map[string]bool{}
	var setupGo, check bool
	for i, s := range a.Runs.Steps {
		where := fmt.Sprintf("step %d (%s)", i, s.Name)
		if s.ID != "" {
			ids[s.ID] = true
		}
		var texts []string
		texts = append(texts, s.If)
		for _, v := range s.Env {
			texts = append(texts, v)
		}
		for _, v := range s.With {
			texts = append(texts, v)
		}
		for _, txt := range texts {
			for _, m := range inputRefRE.FindAllStringSubmatch(txt, -1) {
				used[m[1]] = true
				if !slices.Contains(actionInputs, m[1]) {
					t.Errorf("%s: unknown input %q", where, m[1])
				}
			}
		}
		switch {
		case s.Uses != "" && s.Run != "":
			t.Errorf("%s: both uses and run", where)
		case s.Uses != "":
			if !pinnedUsesRE.MatchString(s.Uses) {
				t.Errorf("%s: uses %q is not pinned to a version tag or commit", where, s.Uses)
			}
			if strings.HasPrefix(s.Uses, "actions/setup-go@") {
				setupGo = true
				if got := s.With["go-version-file"]; got != "${{ github.action_path }}/go.mod" {
					t.Errorf("%s: go-version-file = %q, want the action's own go.mod", where, got)
				}
			}
		default:
			if s.Shell != "bash" {
				t.Errorf("%s: shell %q, want bash (composite run steps need one)", where, s.Shell)
			}
			// Inputs and step outputs reach scripts only through env:.
			if strings.Contains(s.Run, "${{") {
				t.Errorf("%s: run: has an expression; pass it through env:\n%s", where, s.Run)
			}
		}
		if s.ID == "check" {
			check = true
			// Every input taintlint uses is passed, as it is, through env.
			for k, v := range s.Env {
				if m := exprRE.FindStringSubmatch(v); m == nil || m[0] != v || !strings.HasPrefix(m[1], "inputs.") {
					t.Errorf("%s: env %s = %q, want exactly ${{ inputs.NAME }}", where, k, v)
				}
			}
			if !strings.Contains(s.Run, `"$GITHUB_ACTION_PATH/action.sh"`) {
				t.Errorf("%s: want the step to run action.sh from the action's checkout", where)
			}
		}
	}
	for _, s := range a.Runs.Steps {
		for _, txt := range append([]string{s.If}, mapValues(s.Env, s.With)...) {
			for _, m := range regexp.MustCompile(`\bsteps\.([A-Za-z0-9_-]+)\.`).FindAllStringSubmatch(txt, -1) {
				if !ids[m[1]] {
					t.Errorf("step %q refers to unknown step id %q", s.Name, m[1])
				}
			}
		}
	}
	for _, name := range actionInputs {
		if !used[name] {
			t.Errorf("input %s is never used", name)
		}
	}
	if !setupGo || !check {
		t.Errorf("want an actions/setup-go step (%v) and a step with id check (%v)", setupGo, check)
	}
	if fi, err := os.Stat("action.sh"); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("action.sh must exist and be executable (%v)", err)
	}
}

func mapValues(ms ...map[string]string) []string {
	var out []string
	for _, m := range ms {
		for _, v := range m {
			out = append(out, v)
		}
	}
	return out
}

// actionRun is the outcome of running action.yml's steps locally.
type actionRun struct {
	code    int                          // the action's exit status
	outputs map[string]string            // the action's outputs
	uses    map[string]map[string]string // uses: steps that would run, with their with:
	log     string                       // everything the steps printed
}

// runAction runs the composite action's steps the way the runner does, in
// order, stopping at the first failing step: run: steps with bash (GitHub's
// `bash --noprofile --norc -eo pipefail`), env: expressions evaluated,
// GITHUB_OUTPUT and GITHUB_PATH honoured; uses: steps are not run, only
// recorded when their if: holds. The expression evaluator knows what
// action.yml uses and fails the test on anything else.
func runAction(t *testing.T, a *actionFile, workspace string, inputs map[string]string) actionRun {
	t.Helper()
	bash := lookTool(t, "bash", "install bash")
	actionPath, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	temp := t.TempDir()
	// The build step's go build finds this copy of the shared binary up to
	// date (same sources, same flags) and keeps it instead of linking for
	// half a minute, as a runner's cache would let it; when the sources
	// differ it builds as always.
	if err := copyFile(filepath.Join(buildTaintlint(t), "taintlint"+exeSuffix()), filepath.Join(temp, "taintlint-action", "bin", "taintlint"+exeSuffix())); err != nil {
		t.Fatal(err)
	}
	ghPath := filepath.Join(temp, "github_path")
	for name, in := range a.Inputs {
		if _, ok := inputs[name]; !ok && in.Default != nil {
			inputs[name] = *in.Default
		}
	}
	ctx := map[string]string{"github.action_path": actionPath, "github.workspace": workspace, "runner.temp": temp}
	for k, v := range inputs {
		ctx["inputs."+k] = v
	}
	res := actionRun{outputs: map[string]string{}, uses: map[string]map[string]string{}}
	var log strings.Builder
	for i, s := range a.Runs.Steps {
		if s.If != "" && !evalCondition(t, s.If, ctx) {
			continue
		}
		if s.Uses != "" {
			with := map[string]string{}
			for k, v := range s.With {
				with[k] = substitute(t, v, ctx)
			}
			res.uses[s.Uses] = with
			continue
		}
		outFile := filepath.Join(temp, fmt.Sprintf("output-%d", i))
		script := filepath.Join(temp, fmt.Sprintf("step-%d.sh", i))
		if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(outFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		extra, err := os.ReadFile(ghPath)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		path := os.Getenv("PATH")
		for _, p := range strings.Fields(string(extra)) {
			path = p + string(os.PathListSeparator) + path
		}
		env := toolEnv(t, "PATH="+path, "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+outFile, "GITHUB_PATH="+ghPath,
			"GITHUB_ACTION_PATH="+actionPath, "GITHUB_WORKSPACE="+workspace, "GITHUB_ACTIONS=true", "CI=true")
		for k, v := range s.Env {
			env = append(env, k+"="+substitute(t, v, ctx))
		}
		out, code := run(t, workspace, env, bash, "--noprofile", "--norc", "-eo", "pipefail", script)
		log.WriteString(out)
		if s.ID != "" {
			for k, v := range readOutputs(t, outFile) {
				ctx["steps."+s.ID+".outputs."+k] = v
			}
		}
		if code != 0 {
			res.code = code
			break
		}
	}
	for name, o := range a.Outputs {
		res.outputs[name] = substitute(t, o.Value, ctx)
	}
	res.log = log.String()
	return res
}

// substitute replaces each ${{ name }} in s by its value in ctx; unknown
// names are empty, as on GitHub.
func substitute(t *testing.T, s string, ctx map[string]string) string {
	t.Helper()
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		expr := exprRE.FindStringSubmatch(m)[1]
		if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`).MatchString(expr) {
			t.Fatalf("expression %q: the test's evaluator knows only names", expr)
		}
		return ctx[expr]
	})
}

// evalCondition evaluates an if: made of names, 'strings', == and != joined
// by &&.
func evalCondition(t *testing.T, cond string, ctx map[string]string) bool {
	t.Helper()
	cond = strings.TrimSpace(cond)
	if m := exprRE.FindStringSubmatch(cond); m != nil && m[0] == cond {
		cond = m[1]
	}
	operand := func(s string) string {
		s = strings.TrimSpace(s)
		if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
			return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
		}
		if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`).MatchString(s) {
			t.Fatalf("if: operand %q: the test's evaluator knows only names and 'strings'", s)
		}
		return ctx[s]
	}
	for _, term := range strings.Split(cond, "&&") {
		var ok bool
		switch {
		case strings.Contains(term, "!="):
			l, r, _ := strings.Cut(term, "!=")
			ok = !strings.EqualFold(operand(l), operand(r))
		case strings.Contains(term, "=="):
			l, r, _ := strings.Cut(term, "==")
			ok = strings.EqualFold(operand(l), operand(r))
		default:
			ok = operand(term) != ""
		}
		if !ok {
			return false
		}
	}
	return true
}

// readOutputs parses a GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER blocks.
func readOutputs(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if name, delim, ok := strings.Cut(l, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(l, "="); ok {
			out[name] = val
		}
	}
	return out
}

// formatWorks reports whether taintlint renders format: the SARIF and
// GitHub renderers may not be there yet in every build.
func formatWorks(t *testing.T, bin, format string) bool {
	t.Helper()
	out, code := run(t, ".", toolEnv(t), filepath.Join(bin, "taintlint"+exeSuffix()), "check", "--config", filepath.FromSlash("testdata/integrations/repo/.taintlint.yaml"), "--format", format, filepath.FromSlash("testdata/integrations/repo/apps/web.yaml"))
	if code == 2 && strings.Contains(out, "not implemented") {
		return false
	}
	if code != 0 {
		t.Fatalf("taintlint --format %s: exit %d\n%s", format, code, out)
	}
	return true
}

// TestActionRun runs action.yml's steps locally against a copy of
// testdata/integrations/repo: the build from the action's checkout, the
// check step with inputs passed through env, the upload condition and the
// final exit status.
func TestActionRun(t *testing.T) {
	// The tests that build or run taintlint overlap: most of their time
	// is spent waiting on the linker and the disk, not on a core.
	t.Parallel()
	if testing.Short() {
		t.Skip("builds taintlint; skipped with -short")
	}
	lookTool(t, "jq", "install jq (GitHub's runners have it) to run this test")
	a := readAction(t)
	bin := buildTaintlint(t)
	sarifWorks := formatWorks(t, bin, "sarif")

	tests := []struct {
		name     string
		inputs   map[string]string
		code     int
		findings string
		sarif    bool   // wants a SARIF file and the upload
		report   string // file under the workspace the report must be in
		log      []string
		skip     string // skip after the exit checks when this is set
	}{
		{name: "clean, json", inputs: map[string]string{"path": "apps/web.yaml", "format": "json", "output-file": "out/report.json"}, code: 0, findings: "0", report: "out/report.json",
			log: []string{"upload-sarif needs format sarif"}},
		{name: "two paths with a finding, json", inputs: map[string]string{"path": "apps/web.yaml\n  apps/batch.yaml", "format": "json", "upload-sarif": "false", "output-file": "r.json"}, code: 1, findings: "1", report: "r.json"},
		{name: "whole workspace as text, fail-on never", inputs: map[string]string{"format": "text", "fail-on": "never", "upload-sarif": "false"}, code: 0, findings: "1",
			log: []string{"apps/batch.yaml:18:9", "[toleration-seconds-requires-noexecute]"}},
		{name: "config input", inputs: map[string]string{"path": "apps", "format": "json", "upload-sarif": "false", "config": "alt.yaml"}, code: 0, findings: "0"},
		{name: "nodes input", inputs: map[string]string{"path": "apps/web.yaml", "format": "json", "upload-sarif": "false", "config": "empty.yaml", "nodes": "cluster/nodes.yaml", "output-file": "n.json"}, code: 0, findings: "0", report: "n.json"},
		{name: "run failure", inputs: map[string]string{"path": "missing.yaml", "format": "json"}, code: 2, findings: "",
			log: []string{"taintlint: missing.yaml: no such file or directory", "::error title=taintlint::"}},
		{name: "inputs cannot inject commands", inputs: map[string]string{"path": "$(touch pwned1) `touch pwned2` ;touch pwned3 *.yaml", "nodes": "$(touch pwned4)", "config": "'; touch pwned5; '", "format": "json"}, code: 2, findings: ""},
		{name: "sarif upload with findings", inputs: map[string]string{"path": "apps", "category": "k8s"}, code: 1, findings: "1", sarif: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			copyTree(t, filepath.FromSlash("testdata/integrations/repo"), ws)
			for name, data := range map[string]string{"alt.yaml": "disable: [toleration-seconds-requires-noexecute]\n", "empty.yaml": "{}\n"} {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.sarif && !sarifWorks {
				tt.code, tt.findings, tt.skip = 2, "", "the SARIF renderer is not in this build yet; checked the exit status only"
			}
			r := runAction(t, a, ws, tt.inputs)
			if r.code != tt.code || r.outputs["exit-code"] != fmt.Sprint(tt.code) {
				t.Fatalf("action exit %d, exit-code output %q, want %d\n%s", r.code, r.outputs["exit-code"], tt.code, r.log)
			}
			if got := r.outputs["findings"]; got != tt.findings {
				t.Errorf("findings = %q, want %q\n%s", got, tt.findings, r.log)
			}
			for _, s := range tt.log {
				if !strings.Contains(r.log, s) {
					t.Errorf("log lacks %q:\n%s", s, r.log)
				}
			}
			matches, err := filepath.Glob(filepath.Join(ws, "pwned*"))
			if err != nil || len(matches) > 0 {
				t.Errorf("an input ran a command: %v %v", matches, err)
			}
			if tt.report != "" {
				data, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(tt.report)))
				if err != nil {
					t.Fatalf("report: %v", err)
				}
				var rep struct {
					Summary struct{ Nodes int } `json:"summary"`
				}
				if err := json.Unmarshal(data, &rep); err != nil {
					t.Fatalf("report is not JSON: %v", err)
				}
				if rep.Summary.Nodes != 1 {
					t.Errorf("summary.nodes = %d, want 1 (from .taintlint.yaml or the nodes input)", rep.Summary.Nodes)
				}
			}
			upload, uploaded := r.uses["github/codeql-action/upload-sarif@v4"]
			if !tt.sarif || tt.skip != "" {
				if uploaded || r.outputs["sarif-file"] != "" {
					t.Errorf("upload ran (%v) or sarif-file set (%q) without a SARIF report", uploaded, r.outputs["sarif-file"])
				}
				if tt.skip != "" {
					t.Skip(tt.skip)
				}
				return
			}
			sarif := r.outputs["sarif-file"]
			if !uploaded || upload["sarif_file"] != sarif || sarif == "" {
				t.Fatalf("upload ran %v with %v; sarif-file output %q", uploaded, upload, sarif)
			}
			if upload["category"] != tt.inputs["category"] {
				t.Errorf("category = %q, want %q", upload["category"], tt.inputs["category"])
			}
			data, err := os.ReadFile(sarif)
			if err != nil {
				t.Fatal(err)
			}
			var log struct {
				Version string `json:"version"`
				Runs    []struct {
					Tool struct {
						Driver struct{ Name string } `json:"driver"`
					} `json:"tool"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "taintlint" {
				t.Errorf("SARIF file: version %q, %d runs (%v)", log.Version, len(log.Runs), err)
			}
		})
	}
}
