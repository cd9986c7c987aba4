package rego_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
	"github.com/taintlint/taintlint/rules/builtin"
	"github.com/taintlint/taintlint/rules/rulestest"
)

const (
	validPolicy = "../testdata/policies/valid/policy"
	errorsDir   = "../testdata/policies/errors"
)

// run runs taintlint in-process with an empty configuration file, so no
// .taintlint.yaml of the checkout interferes.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if args[0] == "check" {
		cfg := filepath.Join(t.TempDir(), ".taintlint.yaml")
		if err := os.WriteFile(cfg, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append([]string{"check", "--config", cfg}, args[1:]...)
	}
	var out, errb bytes.Buffer
	code = cli.Run(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// TestCustomPolicy runs the example custom rules end to end through
// --policy, with findings and their lines checked by want comments.
func TestCustomPolicy(t *testing.T) {
	all, err := checker.Rules(context.Background(), []string{validPolicy})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"acme-gpu-toleration-needs-selector", "acme-taint-key-domain", "acme-fast-eviction"} {
		t.Run(id, func(t *testing.T) {
			var rule *rules.Rule
			for _, r := range all {
				if r.ID == id {
					rule = r
				}
			}
			if rule == nil {
				t.Fatalf("%s: not among the rules --policy %s loads", id, validPolicy)
			}
			dir := filepath.Join("../testdata/policies/valid/manifests", id)
			if n := rulestest.Run(t, dir, rule); n == 0 {
				t.Errorf("%s: no # want comment", dir)
			}
		})
	}
}

// TestCustomPolicyDetails checks what the want harness does not see:
// related locations, severity from metadata, default-off rules.
func TestCustomPolicyDetails(t *testing.T) {
	manifests := "../testdata/policies/valid/manifests"
	code, stdout, stderr := run(t, "check", "--format", "json", "--fail-on", "warning", "--policy", validPolicy, manifests)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want %d; stderr: %s", code, cli.ExitFindings, stderr)
	}
	var rep struct {
		Findings []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			File     string `json:"file"`
			Line     int    `json:"line"`
			Path     string `json:"path"`
			Related  []struct {
				File    string `json:"file"`
				Line    int    `json:"line"`
				Message string `json:"message"`
			} `json:"related"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	type got struct {
		rule, severity, path string
		line, relLine        int
	}
	var gots []got
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Rule, "acme-") {
			continue // findings of other rules (built-in and embedded) on the same manifests
		}
		g := got{rule: f.Rule, severity: f.Severity, path: f.Path, line: f.Line}
		if len(f.Related) == 1 && f.Related[0].Message == "node selector without the GPU label" {
			g.relLine = f.Related[0].Line
		}
		gots = append(gots, g)
	}
	// acme-taint-key-domain is off by default; the related location of the
	// Deployment with no nodeSelector falls back to its pod spec (line 7),
	// the Pod's points at its nodeSelector (line 34).
	want := []got{
		{"acme-gpu-toleration-needs-selector", "warning", "spec.template.spec.tolerations[0]", 10, 7},
		{"acme-gpu-toleration-needs-selector", "warning", "spec.tolerations[0]", 37, 34},
	}
	if len(gots) != len(want) {
		t.Fatalf("findings %+v, want %+v", gots, want)
	}
	for i := range want {
		if gots[i] != want[i] {
			t.Errorf("finding %d: %+v, want %+v", i, gots[i], want[i])
		}
	}
}

// TestPolicyErrors: every broken policy stops the run with exit 2 and one
// line on stderr naming the policy's file and line, for check and for
// rules; a policy whose results are malformed fails check when it runs.
func TestPolicyErrors(t *testing.T) {
	tests := []struct {
		dir   string
		where string // file:line (or file:line:col) the error must name
		msg   string
		run   bool // the error shows only when the rule runs
	}{
		{dir: "no-metadata", where: "policy.rego:3:1", msg: "defines deny but has no METADATA block"},
		{dir: "no-id", where: "policy.rego:1", msg: "missing custom.id"},
		{dir: "bad-id", where: "policy.rego:1", msg: `rule id "NoKebab" must be kebab-case`},
		{dir: "bad-severity", where: "policy.rego:1", msg: `unknown severity "critical"`},
		{dir: "unknown-key", where: "policy.rego:1", msg: `unknown custom key "defualt"`},
		{dir: "missing-url", where: "policy.rego:1", msg: "missing related_resources"},
		{dir: "title-period", where: "policy.rego:1", msg: "title must be one line without a trailing period"},
		{dir: "collide-builtin", where: "policy.rego:1", msg: `rule id "taint-effect-invalid" is already used by a go rule`},
		{dir: "collide-embedded", where: "policy.rego:1", msg: `rule id "toleration-exists-with-value" is already used by rego/policies/toleration-exists-with-value.rego:1`},
		{dir: "collide-custom", where: "b.rego:1", msg: `rule id "acme-twice" is already used by ` + errorsDir + "/collide-custom/a.rego:1"},
		{dir: "parse-error", where: "policy.rego:13:1", msg: "unexpected } token"},
		{dir: "v0-syntax", where: "policy.rego:11:1", msg: "policies are Rego v1"},
		{dir: "compile-error", where: "policy.rego:11:23", msg: "var msg is unsafe"},
		{dir: "strict-unused", where: "policy.rego:12:2", msg: "assigned var unused unused"},
		{dir: "http-send", where: "policy.rego:12:10", msg: "undefined function http.send (taintlint policies may not reach the network"},
		{dir: "opa-runtime", where: "policy.rego:11:23", msg: "undefined function opa.runtime"},
		{dir: "time-now", where: "policy.rego:11:50", msg: "undefined function time.now_ns"},
		{dir: "reserved-package", where: "policy.rego:9:1", msg: "packages under taintlint are reserved"},
		{dir: "conftest-strings", where: "policy.rego:11:1", msg: `deny holds string, want objects {"msg": string, "path": string}`},
		{dir: "boolean-deny", where: "policy.rego:11:1", msg: "deny is boolean, want a set of objects"},
		{dir: "no-deny", where: "policy.rego:1:1", msg: "package acme.nodeny defines no deny rule"},
		{dir: "warn-only", where: "policy.rego:3:1", msg: "package main defines warn but no deny"},
		{dir: "result-no-path", where: "policy.rego:11", msg: `Pod/p: deny result {"msg": "pods are not allowed"} has no path`, run: true},
		{dir: "result-bad-path", where: "policy.rego:11", msg: `deny result's path "spec..containers[" is not a field path`, run: true},
		{dir: "result-unknown-key", where: "policy.rego:11", msg: `deny result has unknown key "message"`, run: true},
		{dir: "eval-conflict", where: "policy.rego:15", msg: "evaluating Pod/p: " + errorsDir + "/eval-conflict/policy.rego:13: eval_conflict_error", run: true},
	}
	pod := filepath.Join(errorsDir, "pod.yaml")
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			dir := filepath.Join(errorsDir, tt.dir)
			want := filepath.ToSlash(filepath.Join(dir, tt.where)) + ": "
			check := func(name string, args ...string) {
				t.Helper()
				code, _, stderr := run(t, args...)
				if code != cli.ExitFailure {
					t.Errorf("%s: exit %d, want %d; stderr: %s", name, code, cli.ExitFailure, stderr)
				}
				if !strings.Contains(stderr, want) || !strings.Contains(stderr, tt.msg) {
					t.Errorf("%s: stderr %q\nwant it to name %q and say %q", name, stderr, want, tt.msg)
				}
				if strings.Count(stderr, "\n") != 1 {
					t.Errorf("%s: stderr is not one line: %q", name, stderr)
				}
			}
			check("check", "check", "--policy", dir, pod)
			if !tt.run {
				check("rules", "rules", "--policy", dir)
			}
		})
	}
}

// TestLoad covers how --policy paths are read.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	embedded, err := rego.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A broken test file, a broken file in a hidden directory and a
	// non-Rego file are all skipped.
	write("skipped/x_test.rego", "not rego at all")
	write("skipped/.git/x.rego", "not rego at all")
	write("skipped/notes.md", "not rego at all")
	write("empty/empty.rego", "")
	textFile := write("file.txt", "")

	tests := []struct {
		name    string
		dirs    []string
		custom  int    // custom rules expected
		wantErr string // substring of the error, or ""
	}{
		{name: "embedded only", dirs: nil},
		{name: "directory", dirs: []string{validPolicy}, custom: 3},
		{name: "same directory twice", dirs: []string{validPolicy, validPolicy + "/"}, custom: 3},
		{name: "single file", dirs: []string{validPolicy + "/nodes.rego"}, custom: 1},
		{name: "tests, hidden directories and other files skipped", dirs: []string{filepath.Join(tmp, "skipped")}},
		{name: "empty file", dirs: []string{filepath.Join(tmp, "empty")}, wantErr: "empty.rego: empty module"},
		{name: "missing directory", dirs: []string{filepath.Join(tmp, "nope")}, wantErr: "policy directory: stat "},
		{name: "not a policy", dirs: []string{textFile}, wantErr: "not a directory or a .rego file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rego.Load(ctx, tt.dirs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			custom := 0
			for _, r := range got {
				if r.Source == rules.CustomRego {
					custom++
				}
			}
			if custom != tt.custom || len(got)-custom != len(embedded) {
				t.Errorf("%d custom and %d embedded rules, want %d and %d", custom, len(got)-custom, tt.custom, len(embedded))
			}
		})
	}
}

// TestCustomMetadata checks the metadata convention field by field.
func TestCustomMetadata(t *testing.T) {
	all, err := rego.Load(context.Background(), []string{validPolicy})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*rules.Rule{}
	for _, r := range all {
		byID[r.ID] = r
	}
	gpu, nodes := byID["acme-gpu-toleration-needs-selector"], byID["acme-taint-key-domain"]
	if gpu == nil || nodes == nil {
		t.Fatalf("custom rules missing: %v", byID)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"source", gpu.Source, rules.CustomRego},
		{"file", gpu.File, validPolicy + "/gpu.rego"},
		{"line", gpu.Line, 1},
		{"summary", gpu.Summary, "GPU toleration without a GPU node selector"},
		{"doc", strings.HasPrefix(gpu.Doc, "Tolerating the nvidia.com/gpu taint"), true},
		{"url", gpu.URL, "https://wiki.example.com/platform/gpu-scheduling"},
		{"severity", gpu.Severity, rules.Warning},
		{"default", gpu.Default, true},
		{"tags", strings.Join(gpu.Tags, ","), "cost,scheduling"},
		{"bad", strings.Contains(gpu.Bad, "nvidia.com/gpu"), true},
		{"good", strings.Contains(gpu.Good, "nodeSelector"), true},
		{"needs inventory", gpu.NeedsInventory, false},
		{"nodes severity", nodes.Severity, rules.Note},
		{"nodes default", nodes.Default, false},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestValidateEmbedded: the embedded rules pass rules.Validate beside the
// built-in Go rules (ids unique, metadata complete).
func TestValidateEmbedded(t *testing.T) {
	embedded, err := rego.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rules.Validate(append(builtin.Rules(), embedded...)); err != nil {
		t.Fatal(err)
	}
}

// TestRulesCommand: taintlint rules lists the embedded Rego rule with
// engine rego, and custom rules with engine custom.
func TestRulesCommand(t *testing.T) {
	code, stdout, stderr := run(t, "rules", "--format", "json", "--policy", validPolicy)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list []struct {
		ID     string `json:"id"`
		Engine string `json:"engine"`
		File   string `json:"file"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatal(err)
	}
	engines := map[string]string{}
	for _, r := range list {
		engines[r.ID] = r.Engine
	}
	for id, want := range map[string]string{
		"toleration-exists-with-value":       "rego",
		"acme-gpu-toleration-needs-selector": "custom",
		"acme-taint-key-domain":              "custom",
		"parse-error":                        "go",
	} {
		if engines[id] != want {
			t.Errorf("%s: engine %q, want %q", id, engines[id], want)
		}
	}
	code, stdout, _ = run(t, "rules")
	if code != cli.ExitOK || !strings.Contains(stdout, "toleration-exists-with-value") {
		t.Errorf("text listing (exit %d) lacks the Rego rule:\n%s", code, stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "toleration-exists-with-value ") && !strings.Contains(line, " rego ") {
			t.Errorf("text listing: %q does not say rego", line)
		}
	}
}

// TestDocsWorkedExample holds the worked example in docs/policies.md to the
// tested policy file, so a policy copied from the docs is one that works.
func TestDocsWorkedExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	policy, err := os.ReadFile(filepath.Join(validPolicy, "eviction.rego"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```rego\n"+string(policy)+"```\n") {
		t.Errorf("docs/policies.md: the worked example is not %s/eviction.rego word for word", validPolicy)
	}
}
