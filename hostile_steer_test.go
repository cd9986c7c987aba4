package taintlint_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// steerProbes are the spellings a pull request may try to make taintlint
// print a workflow command or a terminal escape with: at a line's start,
// after blanks of every kind, after a newline, in the older ##[ syntax,
// with OSC, CSI, BEL, C1 and bidirectional controls.
var steerProbes = []string{
	`::error title=pwned::x`,
	`\n::add-mask::s3cret`,
	`\n  \t::warning file=a,line=1::x`,
	`\u00a0::notice::nbsp`,
	`\u3000::error::ideographic`,
	`\u2028::error::lsep`,
	`\u0085::error::nel`,
	`\r::error::cr`,
	`##[error]old`,
	`a ##[add-mask]b`,
	`\u001b]0;title\u0007`,
	`\u001b]8;;https://example.com\u001b\\link\u001b]8;;\u001b\\`,
	`\u001b[2J\u001b[H`,
	`\u009b2J`,
	`\u009d0;t\u009c`,
	`\u202egnp.exe\u202c`,
	`\u2066x\u2069`,
}

// TestHostileOutputCannotSteer runs the built binary on manifests,
// annotation keys, a Kustomize var (whose unused name Kustomize logs),
// a repository policy's message and title, and file names holding the
// probes, in every format and command, and reads standard output and
// standard error as the Actions runner and a terminal would.
func TestHostileOutputCannotSteer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	bin := filepath.Join(buildTaintlint(t), "taintlint"+exeSuffix())
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("empty.yaml", "")
	var pod, kust, nodes strings.Builder
	pod.WriteString("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n")
	for i, p := range steerProbes {
		pod.WriteString(`    "ignore-check.taintlint.io/x` + p + `": ""` + "\n")
		pod.WriteString(`    "taintlint.io/ignore-all` + strings.Repeat(" ", i+1) + p + `": ""` + "\n")
	}
	pod.WriteString("spec:\n  containers: [{name: a, image: a}]\n  nodeSelector: {pool: \"" + strings.Join(steerProbes[:3], "") + "\"}\n  tolerations:\n")
	for _, p := range steerProbes {
		pod.WriteString(`  - {key: "` + p + `", operator: Equal, value: "` + p + `", effect: "No` + p + `"}` + "\n")
	}
	write("app/pod.yaml", pod.String())
	nodes.WriteString("apiVersion: v1\nkind: Node\nmetadata: {name: \"n" + steerProbes[0] + "\", labels: {pool: a}}\nspec:\n  taints:\n  - {key: \"" + steerProbes[1] + "\", value: v, effect: NoSchedule}\n")
	write("nodes.yaml", nodes.String())
	// An inventory file whose name starts a command: the summary line names it.
	if os.MkdirAll(filepath.Join(dir, "inv"), 0o755) == nil && os.WriteFile(filepath.Join(dir, "inv", "n\n::error title=inv::x\x1b[2J.yaml"), []byte(strings.Replace(nodes.String(), "name: \"n", "name: \"k", 1)), 0o644) == nil {
		write(filepath.Join("inv", "other.yaml"), strings.Replace(nodes.String(), "name: \"n", "name: \"m", 1))
	}
	kust.WriteString("resources: [cm.yaml]\nvars:\n")
	for _, p := range steerProbes {
		kust.WriteString(`- {name: "v` + p + `", objref: {kind: ConfigMap, name: c, apiVersion: v1}}` + "\n")
	}
	write("kust/kustomization.yaml", kust.String())
	write("kust/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
	write("policy/steer.rego", `# METADATA
# title: "Steer \u001b]0;t\u0007 ::error::title"
# description: "x\n::add-mask::desc ##[error]d"
# related_resources:
#   - ref: https://example.com/steer
# custom:
#   id: acme-steer
#   severity: warning
package acme.steer

deny contains {"msg": msg, "path": "metadata.name"} if {
	input.object.kind == "Pod"
	msg := concat("", ["from policy\n::error title=policy::x\n  ::add-mask::y ##[error]z \u001b[2J \u009b2J ", input.object.metadata.name])
}
`)
	args := []string{"--config", filepath.Join(dir, "empty.yaml"), "--policy", filepath.Join(dir, "policy"), "--nodes", filepath.Join(dir, "nodes.yaml"), "--nodes", filepath.Join(dir, "inv"), "--fail-on", "never"}
	paths := []string{filepath.Join(dir, "app"), filepath.Join(dir, "kust")}
	// A file name with a newline and a command: not on every file system.
	if name := filepath.Join(dir, "named", "x\n::error title=name::y\x1b[2J.yaml"); os.MkdirAll(filepath.Dir(name), 0o755) == nil && os.WriteFile(name, []byte(pod.String()), 0o644) == nil {
		paths = append(paths, filepath.Join(dir, "named"))
	}
	runs := [][]string{}
	for _, f := range []string{"text", "json", "sarif", "github"} {
		runs = append(runs, append(append([]string{"check", "--format", f}, args...), paths...))
	}
	for _, f := range []string{"text", "json", "markdown"} {
		runs = append(runs, []string{"rules", "--format", f, "--policy", filepath.Join(dir, "policy")})
	}
	for _, f := range []string{"text", "json"} {
		runs = append(runs, []string{"explain", "--config", filepath.Join(dir, "empty.yaml"), "--nodes", filepath.Join(dir, "nodes.yaml"), "--object", "Pod/p", "--format", f, filepath.Join(dir, "app")})
	}
	for _, run := range runs {
		t.Run(strings.Join(run[:3], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, run...)
			cmd.Dir = dir
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("exit %d (%v)\nstderr: %s", code, err, stderr.String())
			}
			if stdout.Len() < 100 {
				t.Fatalf("almost no output: %q", stdout.String())
			}
			github := run[0] == "check" && run[2] == "github"
			checkUnsteered(t, "stdout", stdout.String(), github)
			checkUnsteered(t, "stderr", stderr.String(), false)
			// The probes reached the output, escaped: the test reads what it means to.
			if all := stdout.String() + stderr.String(); run[0] != "rules" && !strings.Contains(all, `\x3a:`) && !strings.Contains(all, `\u001b`) {
				t.Errorf("no escaped probe in the output: %.3000s", all)
			}
			if run[0] == "check" && run[2] == "text" && !strings.Contains(stderr.String(), "kustomize: ") {
				t.Errorf("Kustomize's log line about the unused vars is not relayed: %q", stderr.String())
			}
		})
	}
}

// ownCommand is a workflow command taintlint writes itself, before the
// report wrapped in ::stop-commands::.
var ownCommand = regexp.MustCompile(`^::(error|warning|notice) (file=[^:,]*,(line=\d+,(col=\d+,)?)?)?title=[a-z0-9-]+::`)

// checkUnsteered fails when out holds a terminal control or a line the
// Actions runner would take for a command (github: only taintlint's own
// annotations, and the stop-commands pair around the plain report).
func checkUnsteered(t *testing.T, name, out string, github bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not UTF-8", name)
	}
	for _, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 {
			t.Errorf("%s holds %U", name, r)
			return
		}
	}
	stop := ""
	for i, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "##[") {
			t.Errorf("%s line %d holds ##[: %q", name, i+1, l)
		}
		cmd := strings.TrimLeftFunc(l, unicode.IsSpace)
		if !strings.HasPrefix(cmd, "::") {
			continue
		}
		switch {
		case github && stop == "" && strings.HasPrefix(l, "::stop-commands::"):
			stop = "::" + strings.TrimPrefix(l, "::stop-commands::") + "::"
		case github && stop != "" && l == stop:
			stop = "done"
		case github && stop == "" && ownCommand.MatchString(l):
		case github && stop != "" && stop != "done":
			// inside the stop-commands pair: the runner reads no command
		default:
			t.Errorf("%s line %d is a workflow command: %q", name, i+1, l)
		}
	}
}
