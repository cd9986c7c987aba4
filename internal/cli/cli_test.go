package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/cli"
)

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(context.Background(), args, cli.Env{
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(string) string { return "" },
		Dir:    t.TempDir(), // no .taintlint.yaml found upward
	})
	return code, out.String(), errb.String()
}

func TestCheckExitCodes(t *testing.T) {
	noConfig := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(noConfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations:\n  - {key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 1}\n"
	tests := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		stdout     []string // substrings
		stderr     string   // substring; "" means stderr must be empty
		stderrLine bool     // stderr is exactly one line
	}{
		{name: "clean", args: []string{"check", "--config", noConfig, "testdata/clean"}, code: 0, stdout: []string{"0 error(s), 0 warning(s), 0 note(s) in 1 file(s), 1 object(s), 0 node(s)"}},
		{name: "findings", args: []string{"check", "--config", noConfig, "testdata/bad"}, code: 1, stdout: []string{
			"testdata/bad/app.yaml:13:9: error: tolerationSeconds: 60 applies only to NoExecute taints",
			"[toleration-seconds-requires-noexecute]",
			"1 error(s), 0 warning(s), 0 note(s) in 1 file(s), 2 object(s), 0 node(s); 1 suppressed",
		}},
		{name: "show suppressed", args: []string{"check", "--config", noConfig, "--show-suppressed", "testdata/bad"}, code: 1, stdout: []string{"(suppressed: legacy chart, fixed upstream in 2.0)"}},
		{name: "fail-on never", args: []string{"check", "--config", noConfig, "--fail-on", "never", "testdata/bad"}, code: 0},
		{name: "disable", args: []string{"check", "--config", noConfig, "--disable", "toleration-seconds-requires-noexecute", "testdata/bad"}, code: 0},
		{name: "config severity override", args: []string{"check", "--config", "testdata/cfg-ok/.taintlint.yaml", "testdata/bad"}, code: 0, stdout: []string{"warning: tolerationSeconds"}},
		{name: "config severity override fail-on warning", args: []string{"check", "--config", "testdata/cfg-ok/.taintlint.yaml", "--fail-on", "warning", "testdata/bad"}, code: 1},
		{name: "stdin", args: []string{"check", "--config", noConfig, "-"}, stdin: pod, code: 1, stdout: []string{"-:7:32: error: tolerationSeconds: 1"}},
		{name: "stdin filename", args: []string{"check", "--config", noConfig, "--stdin-filename", "chart.yaml", "-"}, stdin: pod, code: 1, stdout: []string{"chart.yaml:7:32:"}},
		{name: "parse error is a finding", args: []string{"check", "--config", noConfig, "-"}, stdin: "a: [\n", code: 1, stdout: []string{"-:1:1: error: invalid YAML"}},
		{name: "missing path", args: []string{"check", "--config", noConfig, "does/not/exist.yaml"}, code: 2, stderr: "taintlint: does/not/exist.yaml: no such file or directory", stderrLine: true},
		{name: "bad flag", args: []string{"check", "--bogus"}, code: 2, stderr: "unknown flag: --bogus", stderrLine: true},
		{name: "bad format", args: []string{"check", "--config", noConfig, "--format", "xml", "testdata/clean"}, code: 2, stderr: `unknown format "xml"`, stderrLine: true},
		{name: "bad fail-on", args: []string{"check", "--config", noConfig, "--fail-on", "fatal", "testdata/clean"}, code: 2, stderr: "--fail-on", stderrLine: true},
		{name: "unknown rule", args: []string{"check", "--config", noConfig, "--enable", "no-such-rule", "testdata/clean"}, code: 2, stderr: `unknown rule "no-such-rule"`, stderrLine: true},
		{name: "unknown gate", args: []string{"check", "--config", noConfig, "--feature-gates", "Nope=true", "testdata/clean"}, code: 2, stderr: `unknown feature gate "Nope"`, stderrLine: true},
		{name: "config unknown key", args: []string{"check", "--config", "testdata/cfg-unknown/.taintlint.yaml", "testdata/clean"}, code: 2, stderr: `testdata/cfg-unknown/.taintlint.yaml:4:1: unknown key "bogus" (known: admission,`, stderrLine: true},
		{name: "missing config", args: []string{"check", "--config", "nope.yaml", "testdata/clean"}, code: 2, stderr: "nope.yaml", stderrLine: true},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: "unknown command", stderrLine: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if tt.stderr == "" && stderr != "" {
				t.Errorf("unexpected stderr: %s", stderr)
			}
			if tt.stderr != "" && !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q: %s", tt.stderr, stderr)
			}
			if tt.stderrLine && strings.Count(strings.TrimSuffix(stderr, "\n"), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
		})
	}
}

func TestCheckJSONAndOutputFile(t *testing.T) {
	noConfig := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(noConfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := run(t, "", "check", "--config", noConfig, "--format", "json", "-o", out, "testdata/bad")
	if code != 1 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Version  string `json:"version"`
		Findings []struct {
			Rule, Severity, Message, File, Path string
			Line, Column                        int
			Object                              struct{ APIVersion, Kind, Namespace, Name string }
		} `json:"findings"`
		Summary struct {
			Files, Objects, Nodes int
			Findings              map[string]int
		} `json:"summary"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Version != "1" || len(rep.Findings) != 1 {
		t.Fatalf("report = %+v", rep)
	}
	f := rep.Findings[0]
	if f.Rule != "toleration-seconds-requires-noexecute" || f.Severity != "error" || f.File != "testdata/bad/app.yaml" ||
		f.Line != 13 || f.Column != 9 || f.Path != "spec.template.spec.tolerations[0].effect" ||
		f.Object.Kind != "Deployment" || f.Object.Namespace != "prod" || f.Object.Name != "web" || f.Object.APIVersion != "apps/v1" {
		t.Errorf("finding = %+v", f)
	}
	if rep.Summary.Files != 1 || rep.Summary.Objects != 2 || rep.Summary.Findings["error"] != 1 || rep.Summary.Findings["warning"] != 0 {
		t.Errorf("summary = %+v", rep.Summary)
	}
}

func TestConfigFoundUpward(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".taintlint.yaml"), []byte("disable: [toleration-seconds-requires-noexecute]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/bad")
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"check", abs}, cli.Env{Stdout: &out, Stderr: &errb, Dir: sub})
	if code != 0 {
		t.Errorf("exit %d with the rule disabled by an upward config; stdout %s stderr %s", code, out.String(), errb.String())
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := run(t, "", "version")
	if code != 0 || !strings.HasPrefix(stdout, "taintlint ") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}
