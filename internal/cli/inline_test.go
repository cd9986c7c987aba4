package cli_test

import (
	"os"
	"strings"
	"testing"
)

// TestInlineSuppression: a taintlint:ignore comment above a line or at its
// end suppresses that line's findings of the named rules; one without a
// reason, naming an unknown rule, or suppressing nothing is reported; a
// '#' inside a quoted value is no comment. Standard input works the same.
func TestInlineSuppression(t *testing.T) {
	data, err := os.ReadFile("testdata/inline/pod.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []struct{ name, arg, stdin string }{{"file", "testdata/inline/pod.yaml", ""}, {"stdin", "-", string(data)}} {
		t.Run(src.name, func(t *testing.T) {
			cfg := t.TempDir() + "/empty.yaml"
			write(t, cfg, "")
			code, stdout, stderr := run(t, src.stdin, "check", "--config", cfg, "--show-suppressed", src.arg)
			if code != 1 {
				t.Errorf("exit %d", code)
			}
			file := src.arg
			for _, want := range []string{
				file + ":8:32: error: tolerationSeconds: 1",
				"[toleration-seconds-requires-noexecute] (suppressed: drained by hand, OPS-1)",
				file + ":9:32: error: toleration operator is Exists",
				"[toleration-exists-with-value] (suppressed)",
				file + ":11:97: error: toleration operator is Exists",
				"2 error(s), 0 warning(s), 1 note(s) in 1 file(s), 1 object(s), 0 node(s); 2 suppressed",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if strings.Contains(stdout, "11:97: error: toleration operator is Exists, so value \"x\" is ignored by matching and rejected by the API server: remove value, or use operator Equal (API server: spec.tolerations[3].operator: Invalid value: \"x\": value must be empty when `operator` is 'Exists') [toleration-exists-with-value] (suppressed") {
				t.Errorf("a directive inside a quoted value suppressed a finding:\n%s", stdout)
			}
			wantErr := "taintlint: warning: " + file + ":9:62: taintlint:ignore has no reason; say why the finding is accepted after --\n" +
				"taintlint: warning: " + file + ":10:52: taintlint:ignore names no known rule \"toleration-wildcrd\" (did you mean toleration-wildcard?)\n" +
				"taintlint: warning: " + file + ":10:52: taintlint:ignore toleration-exists-with-value suppresses nothing on line 10; remove it\n"
			if stderr != wantErr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
			}
		})
	}
}

// TestInlineSuppressionRuleNotRun: a directive for a rule that did not run
// (no inventory, or disabled) is not called unused.
func TestInlineSuppressionRuleNotRun(t *testing.T) {
	dir := t.TempDir()
	cfg := dir + "/empty.yaml"
	write(t, cfg, "")
	write(t, dir+"/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n# taintlint:ignore pod-unschedulable -- batch pool comes later\nspec:\n  containers: [{name: a, image: a}]\n")
	code, stdout, stderr := run(t, "", "check", "--config", cfg, dir+"/pod.yaml")
	if code != 0 || stderr != "" {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
