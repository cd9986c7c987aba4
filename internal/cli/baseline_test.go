package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// baselinePod is a Pod with two findings: tolerations[0] has seconds
// without NoExecute, tolerations[1] has a value under Exists.
const baselinePod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: prod}
spec:
  containers: [{name: a, image: a}]
  tolerations:
  - {key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 1}
  - {key: b, operator: Exists, value: x, effect: NoSchedule}
`

// TestBaselineRoundTrip writes a baseline, re-runs clean, adds a finding
// and fails on exactly it, then removes one and is told the entry is gone.
func TestBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "empty.yaml")
	write(t, cfg, "")
	manifest := filepath.Join(dir, "pod.yaml")
	write(t, manifest, baselinePod)
	base := filepath.Join(dir, "baseline.json")

	code, stdout, stderr := run(t, "", "check", "--config", cfg, "--write-baseline", base, manifest)
	if code != 0 || !strings.Contains(stderr, "wrote 2 finding(s) to "+base) {
		t.Fatalf("--write-baseline: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"rule": "toleration-exists-with-value"`, `"object": "Pod/prod/web"`, `"path": "spec.tolerations[1].value"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("baseline lacks %s:\n%s", want, data)
		}
	}

	// Clean against the baseline, even after lines moved above the findings.
	write(t, manifest, "# a comment\n# and another\n"+baselinePod)
	code, stdout, _ = run(t, "", "check", "--config", cfg, "--baseline", base, manifest)
	if code != 0 || !strings.Contains(stdout, "0 error(s), 0 warning(s), 0 note(s) in 1 file(s), 1 object(s), 0 node(s); 2 in the baseline") {
		t.Fatalf("re-run: exit %d\n%s", code, stdout)
	}

	// A new finding fails the run, and it is the only one reported.
	write(t, manifest, baselinePod+"  - {key: c, operator: Exists, value: v}\n")
	code, stdout, _ = run(t, "", "check", "--config", cfg, "--baseline", base, "--format", "json", manifest)
	if code != 1 {
		t.Fatalf("new finding: exit %d\n%s", code, stdout)
	}
	var rep struct {
		Findings []struct {
			Rule, Path string
		}
		Summary struct{ Baselined int }
		Notices []string
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Notices) != 1 || !strings.HasPrefix(rep.Notices[0], "no node inventory: ") {
		t.Errorf("json notices: %q", rep.Notices)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != "toleration-exists-with-value" || rep.Findings[0].Path != "spec.tolerations[2].value" || rep.Summary.Baselined != 2 {
		t.Fatalf("new finding: %+v", rep)
	}

	// SARIF marks the new one new and the others unchanged.
	_, stdout, _ = run(t, "", "check", "--config", cfg, "--baseline", base, "--format", "sarif", manifest)
	if n, u := strings.Count(stdout, `"baselineState": "new"`), strings.Count(stdout, `"baselineState": "unchanged"`); n != 1 || u != 2 {
		t.Errorf("sarif: %d new, %d unchanged; want 1 and 2", n, u)
	}

	// Fixing one baselined finding says the entry no longer occurs.
	write(t, manifest, strings.Replace(baselinePod, ", tolerationSeconds: 1", "", 1))
	code, stdout, _ = run(t, "", "check", "--config", cfg, "--baseline", base, manifest)
	if code != 0 || !strings.Contains(stdout, "notice: 1 of 2 entries in "+base+" no longer occur") ||
		!strings.Contains(stdout, "toleration-seconds-requires-noexecute "+manifest+" Pod/prod/web spec.tolerations[0].effect") {
		t.Fatalf("fixed one: exit %d\n%s", code, stdout)
	}
}

// TestBaselineFromConfig reads baseline: relative to the configuration.
func TestBaselineFromConfig(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "pod.yaml")
	write(t, manifest, baselinePod)
	empty := filepath.Join(dir, "empty.yaml")
	write(t, empty, "")
	if code, out, errs := run(t, "", "check", "--config", empty, "--write-baseline", filepath.Join(dir, "accepted.json"), manifest); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	cfg := filepath.Join(dir, ".taintlint.yaml")
	write(t, cfg, "baseline: accepted.json\n")
	code, stdout, stderr := run(t, "", "check", "--config", cfg, manifest)
	if code != 0 || !strings.Contains(stdout, "2 in the baseline") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	write(t, cfg, "baseline: missing.json\n")
	if code, _, stderr := run(t, "", "check", "--config", cfg, manifest); code != 2 || !strings.Contains(stderr, "missing.json") {
		t.Fatalf("missing baseline: exit %d %s", code, stderr)
	}
	write(t, filepath.Join(dir, "bad.json"), `{"version":"1","findings":[{"rule":"r","fil":"x"}]}`)
	if code, _, stderr := run(t, "", "check", "--config", empty, "--baseline", filepath.Join(dir, "bad.json"), manifest); code != 2 || !strings.Contains(stderr, `--baseline: baseline `+filepath.Join(dir, "bad.json")+`: json: unknown field "fil"`) {
		t.Fatalf("bad baseline: exit %d %s", code, stderr)
	}
}

// TestBaselineSurvivesNewNode: a baseline written on the examples stays
// matched when a node joins the GPU pool, though the messages that count
// and list the nodes change.
func TestBaselineSurvivesNewNode(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "empty.yaml")
	write(t, cfg, "")
	examples := filepath.Join("..", "..", "examples")
	data, err := os.ReadFile(filepath.Join(examples, "cluster", "nodes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	nodes := filepath.Join(dir, "nodes.yaml")
	write(t, nodes, string(data))
	base := filepath.Join(dir, "baseline.json")
	if code, _, stderr := run(t, "", "check", "--config", cfg, "--nodes", nodes, "--write-baseline", base, examples); code != 0 {
		t.Fatalf("--write-baseline: exit %d: %s", code, stderr)
	}

	// gpu-a-3 joins: the item of gpu-a-2 again, renamed.
	text := string(data)
	start := strings.Index(text, "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: gpu-a-2")
	if start < 0 {
		t.Fatal("examples/cluster/nodes.yaml: gpu-a-2 not found as expected")
	}
	end := start + 1 + strings.Index(text[start+1:], "\n- ")
	grown := text[:end+1] + strings.ReplaceAll(text[start:end+1], "gpu-a-2", "gpu-a-3") + text[end+1:]
	write(t, nodes, grown)
	code, stdout, stderr := run(t, "", "check", "--config", cfg, "--nodes", nodes, "--baseline", base, examples)
	if code != 0 || !strings.Contains(stdout, "7 node(s)") || !strings.Contains(stdout, "0 error(s), 0 warning(s), 0 note(s)") {
		t.Fatalf("after gpu-a-3 joined: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCoverage: what was checked is visible: JSON's summary counts the
// objects by kind and by source, and --verbose says the same in text.
func TestCoverage(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "empty.yaml")
	write(t, cfg, "")
	examples := filepath.Join("..", "..", "examples")
	nodes := filepath.Join(examples, "cluster", "nodes.yaml")
	_, stdout, _ := run(t, "", "check", "--config", cfg, "--nodes", nodes, "--format", "json", examples)
	var rep struct {
		Summary struct {
			Objects int
			Kinds   map[string]int
			Sources map[string]int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.Kinds["DaemonSet"] != 3 || s.Kinds["Node"] != 6 || s.Sources["file"] != 12 || s.Sources["helm"] != 1 || s.Sources["kustomize"] != 1 || s.Sources["file"]+s.Sources["helm"]+s.Sources["kustomize"] != s.Objects {
		t.Errorf("summary %+v", s)
	}
	_, stdout, _ = run(t, "", "check", "--config", cfg, "--nodes", nodes, "-v", examples)
	if !strings.Contains(stdout, "\nchecked: objects by kind: CronJob 1, DaemonSet 3, Deployment 2, Job 1, Node 6, StatefulSet 1; by source: file 12, helm 1, kustomize 1\n") {
		t.Errorf("--verbose:\n%s", stdout)
	}

	// A kind is the manifest's text: it cannot break the line or start a
	// workflow command.
	evil := filepath.Join(t.TempDir(), "evil.yaml")
	write(t, evil, "apiVersion: v1\nkind: \"Pod\\n::error::x\\u001b[2J\"\nmetadata: {name: a}\n")
	_, stdout, _ = run(t, "", "check", "--config", cfg, "-v", evil)
	if !strings.Contains(stdout, "checked: objects by kind: Pod\\n::error::x\\x1b[2J 1; by source: file 1\n") {
		t.Errorf("--verbose with a hostile kind:\n%q", stdout)
	}
}
