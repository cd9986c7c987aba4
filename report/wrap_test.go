package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/report"
	"github.com/taintlint/taintlint/rules"
)

// wrappedResult has messages as long as the real rules write them: an API
// server quote at the end, a scheduler event with detail lines, a clause
// with no break, and one that just fits.
func wrappedResult() *lint.Result {
	pod := &loader.Ref{APIVersion: "v1", Kind: "Pod", Namespace: "prod", Name: "web"}
	f := func(line int, rule string, sev rules.Severity, msg string) rules.Finding {
		return rules.Finding{Rule: rule, Severity: sev, Message: msg, Pos: loader.Position{File: "deploy/web.yaml", Line: line, Column: 9}, Object: pod, Path: "spec"}
	}
	fs := []rules.Finding{
		f(12, "toleration-exists-with-value", rules.Error, `toleration operator is Exists, so value "true" is ignored by matching and rejected by the API server: remove value, or use operator Equal (API server: spec.tolerations[0].operator: Invalid value: "true": value must be empty when `+"`operator`"+` is 'Exists')`),
		f(20, "pod-unschedulable", rules.Error, "0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint(s). preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.\n"+
			"untolerated taint nvidia.com/gpu=present:NoSchedule on 2 nodes (gpu-a-1, gpu-a-2); toleration spec.tolerations[0] {key: nvidia.com/gpu, operator: Equal, value: \"true\", effect: NoSchedule} has value \"true\" where the taint has \"present\"\n"+
			"Insufficient memory on 1 node (small): the pod requests 16Gi, allocatable is 9.98Gi (short 6.02Gi)"),
		f(30, "toleration-wildcard", rules.Warning, strings.Repeat("x", 200)+" tail"),
		f(40, "toleration-shadowed", rules.Note, "a message that fits on the first line as it is"),
		// The last comma before the cut is inside a parenthesis: the
		// headline ends before the parenthesis instead.
		f(50, "toleration-effect-invalid", rules.Error, `toleration effect "NoSchedul" is not supported (effect may also be left empty, which matches every effect): did you mean NoSchedule? (API server: spec.tolerations[0].effect: Unsupported value: "NoSchedul")`),
	}
	fs[0].Related = []rules.Related{{Pos: loader.Position{File: "nodes.yaml", Line: 8, Column: 7}, Message: "the taint"}}
	return &lint.Result{Findings: fs, Summary: lint.Summary{Files: 1, Objects: 1, Findings: map[rules.Severity]int{rules.Error: 3, rules.Warning: 1, rules.Note: 1}}}
}

// TestTextWrapped: the first line of a finding is file:line:col:
// severity: headline [rule] within about 160 characters, and the rest of
// the message follows indented; the golden file shows the layout.
func TestTextWrapped(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteText(&buf, wrappedResult(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("testdata", "wrapped.txt")
	if *update {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./report -update writes it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs (go test ./report -update rewrites it); got:\n%s", file, buf.Bytes())
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		if strings.HasPrefix(line, "deploy/web.yaml:") && !strings.HasSuffix(line, "]") {
			t.Errorf("first line does not end with the rule: %q", line)
		}
		if n := utf8.RuneCountInString(line); n > 172 && !strings.Contains(line, "xxxxxxxxxx") {
			t.Errorf("first line of %d characters: %q", n, line)
		}
	}
}
