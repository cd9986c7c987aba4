package lint

import (
	"testing"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

func TestNormalizeMessage(t *testing.T) {
	a := NormalizeMessage("0/6 nodes are available: 3 node(s) had untolerated taint(s).  preemption: 0/6\nnode list")
	b := NormalizeMessage("0/12 nodes are available: 7 node(s) had untolerated taint(s). preemption: 0/12")
	if a != b || a != "#/# nodes are available: # node(s) had untolerated taint(s). preemption: #/#" {
		t.Errorf("normalized %q and %q", a, b)
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
	out := applyBaseline(b, func(string) bool { return true }, res)([]rules.Finding{f(30, "spec.x", "bad 7"), f(40, "spec.x", "bad 8"), f(41, "spec.x", "bad 9"), f(50, "spec.z", "new")})
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
	applyBaseline(b, func(id string) bool { return id != "needs-nodes" }, res)(nil)
	if len(res.BaselineAbsent) != 0 {
		t.Errorf("absent %+v", res.BaselineAbsent)
	}
}
