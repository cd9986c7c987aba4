package lint

import (
	"testing"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

func TestNormalizeMessage(t *testing.T) {
	a := NormalizeMessage("0/6 nodes are available: 3 node(s) had untolerated taint(s).  preemption: 0/6\nnode list")
	b := NormalizeMessage("0/12 nodes are available: 7 node(s) had untolerated taint(s). preemption: 0/12")
	if a != b || a != "#/# node are available: # node(s) had untolerated taint(s). preemption: #/#" {
		t.Errorf("normalized %q and %q", a, b)
	}
}

// TestNormalizeNodeLists: the nodes and pools a message lists are not part
// of its identity (a node joining a pool changes them); other words in
// parentheses are.
func TestNormalizeNodeLists(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"DaemonSet does not run on 3 nodes that its nodeSelector and affinity select (cp-1, gpu-a-1, gpu-a-2), because of taints",
			"DaemonSet does not run on 4 nodes that its nodeSelector and affinity select (cp-1, gpu-a-1, gpu-a-2, gpu-a-3), because of taints"},
		{"pods fit 2 nodes (gpu-1 … gpu-9) only by tolerating", "pods fit 12 nodes (gpu-01 … gpu-12) only by tolerating"},
		{"on 7 nodes (a, b, c, d, e and 2 more): add", "on 8 nodes (a, b, c, d, e and 3 more): add"},
		{"on 1 node pool (NodePool/gpu): add", "on 2 node pools (NodePool/gpu, NodePool/gpu-spot): add"},
	} {
		if a, b := NormalizeMessage(tc.a), NormalizeMessage(tc.b); a != b {
			t.Errorf("normalized differently:\n%q\n%q", a, b)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"bad (API server: spec.x: Invalid value)", "bad (API server: spec.y: Invalid value)"},
		{"effect NoSchedul (did you mean NoSchedule?)", "effect NoSchedulx (did you mean NoSchedule?)"},
	} {
		if NormalizeMessage(tc.a) == NormalizeMessage(tc.b) {
			t.Errorf("%q and %q normalized alike", tc.a, tc.b)
		}
	}
}

// TestApplyBaseline matches each entry once, whatever the line, and
// reports the entries left over.
func TestApplyBaseline(t *testing.T) {
	obj := &loader.Ref{Kind: "Pod", Namespace: "ns", Name: "p"}
	f := func(line int, path, msg string) rules.Finding {
		return rules.Finding{Rule: "r", Pos: loader.Position{File: "./a.yaml", Line: line, Column: 1}, Object: obj, Path: path, Message: msg}
	}
	b := NewBaseline([]rules.Finding{f(3, "spec.x", "bad 1"), f(4, "spec.x", "bad 2"), f(9, "spec.y", "gone")})
	res := &Result{}
	out := applyBaseline(b, func(string) bool { return true }, res, []rules.Finding{f(30, "spec.x", "bad 7"), f(40, "spec.x", "bad 8"), f(41, "spec.x", "bad 9"), f(50, "spec.z", "new")})
	if len(out) != 2 || out[0].Pos.Line != 41 || out[1].Path != "spec.z" {
		t.Errorf("left %+v", out)
	}
	if len(res.Baselined) != 2 || len(res.BaselineAbsent) != 1 || res.BaselineAbsent[0].Path != "spec.y" {
		t.Errorf("baselined %d, absent %+v", len(res.Baselined), res.BaselineAbsent)
	}
}

// TestBaselineRuleNotRun: entries of a rule that did not run are not
// called gone.
func TestBaselineRuleNotRun(t *testing.T) {
	obj := &loader.Ref{Kind: "Pod", Name: "p"}
	b := NewBaseline([]rules.Finding{{Rule: "needs-nodes", Pos: loader.Position{File: "a.yaml"}, Object: obj, Message: "m"}})
	res := &Result{}
	applyBaseline(b, func(id string) bool { return id != "needs-nodes" }, res, nil)
	if len(res.BaselineAbsent) != 0 {
		t.Errorf("absent %+v", res.BaselineAbsent)
	}
}
