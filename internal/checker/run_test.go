package checker

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// TestPrerequisites: each prerequisite the run's rules need runs once,
// after the ones it requires, sees the rules that need it, and hands its
// result to every rule that requires it; one nobody selected never runs.
func TestPrerequisites(t *testing.T) {
	var baseRuns, sharedRuns, unusedRuns atomic.Int32
	base := &rules.Prerequisite{Name: "base", Run: func(*rules.PrereqPass) (any, error) {
		baseRuns.Add(1)
		return 20, nil
	}}
	var dependents []string
	shared := &rules.Prerequisite{Name: "shared", Requires: []*rules.Prerequisite{base}, Run: func(p *rules.PrereqPass) (any, error) {
		sharedRuns.Add(1)
		for _, r := range p.Dependents {
			dependents = append(dependents, r.ID)
		}
		return p.ResultOf[base].(int) + 1, nil
	}}
	unused := &rules.Prerequisite{Name: "unused", Run: func(*rules.PrereqPass) (any, error) {
		unusedRuns.Add(1)
		return nil, nil
	}}
	var got [3]atomic.Int32
	mk := func(i int, id string, reqs ...*rules.Prerequisite) *rules.Rule {
		r := testRule(id, true, rules.Error, func(p *rules.Pass) error {
			v := 0
			for _, q := range reqs {
				v += p.ResultOf[q].(int)
			}
			got[i].Store(int32(v))
			return nil
		})
		r.Requires = reqs
		return r
	}
	selected := []*rules.Rule{mk(0, "b-rule", shared), mk(1, "a-rule", shared, base), mk(2, "c-rule", base)}
	off := mk(2, "z-rule", unused)
	if err := rules.Validate(append(selected, off)); err != nil {
		t.Fatal(err)
	}
	if _, err := RunRules(context.Background(), selected, &rules.Input{}); err != nil {
		t.Fatal(err)
	}
	if baseRuns.Load() != 1 || sharedRuns.Load() != 1 || unusedRuns.Load() != 0 {
		t.Errorf("runs: base %d, shared %d, unused %d; want 1, 1, 0", baseRuns.Load(), sharedRuns.Load(), unusedRuns.Load())
	}
	if got[0].Load() != 21 || got[1].Load() != 41 || got[2].Load() != 20 {
		t.Errorf("results seen: %d %d %d, want 21 41 20", got[0].Load(), got[1].Load(), got[2].Load())
	}
	if strings.Join(dependents, " ") != "a-rule b-rule" {
		t.Errorf("shared's dependents %q, want a-rule b-rule", dependents)
	}
}

// TestPrerequisiteError: a prerequisite that fails (or panics) fails the
// rules that need it, and the run, naming both.
func TestPrerequisiteError(t *testing.T) {
	for name, run := range map[string]func(*rules.PrereqPass) (any, error){
		"error": func(*rules.PrereqPass) (any, error) { return nil, errors.New("no luck") },
		"panic": func(*rules.PrereqPass) (any, error) { panic("boom") },
	} {
		t.Run(name, func(t *testing.T) {
			p := &rules.Prerequisite{Name: "broken", Run: run}
			r := testRule("a-rule", true, rules.Error, func(*rules.Pass) error { t.Error("rule ran without its prerequisite"); return nil })
			r.Requires = []*rules.Prerequisite{p}
			_, err := RunRules(context.Background(), []*rules.Rule{r}, &rules.Input{})
			if err == nil || !strings.Contains(err.Error(), "rule a-rule: broken: ") {
				t.Errorf("err = %v, want the rule and the prerequisite named", err)
			}
		})
	}
}

// TestRunsAndInventory: Pass.Runs answers for the run's rules, and rules
// that need an inventory do not run without one.
func TestRunsAndInventory(t *testing.T) {
	// The rules of a run run concurrently: they write under mu.
	var mu sync.Mutex
	ran := map[string]bool{}
	var runsOther, runsAbsent bool
	a := testRule("a-rule", true, rules.Error, func(p *rules.Pass) error {
		mu.Lock()
		defer mu.Unlock()
		ran["a-rule"] = true
		runsOther, runsAbsent = p.Runs("b-rule"), p.Runs("zz-rule")
		return nil
	})
	b := testRule("b-rule", true, rules.Error, func(*rules.Pass) error {
		mu.Lock()
		defer mu.Unlock()
		ran["b-rule"] = true
		return nil
	})
	b.NeedsInventory = true
	if _, err := RunRules(context.Background(), []*rules.Rule{a}, &rules.Input{}); err != nil {
		t.Fatal(err)
	}
	if _, err := RunRules(context.Background(), []*rules.Rule{b}, &rules.Input{}); err != nil {
		t.Fatal(err)
	}
	if !ran["a-rule"] || ran["b-rule"] {
		t.Errorf("ran %v, want a-rule only", ran)
	}
	if runsOther || runsAbsent {
		t.Errorf("Runs(b-rule) = %v, Runs(zz-rule) = %v in a run of a-rule alone", runsOther, runsAbsent)
	}
	if _, err := RunRules(context.Background(), []*rules.Rule{a, b}, &rules.Input{Nodes: []*k8s.Node{{}}}); err != nil {
		t.Fatal(err)
	}
	if !runsOther || !ran["b-rule"] {
		t.Errorf("with an inventory: Runs(b-rule) = %v, ran %v", runsOther, ran)
	}
}

// TestLocateStep: the driver locates every diagnostic and its related
// places, and notes fields a Kustomize patch made.
func TestLocateStep(t *testing.T) {
	res := loader.Parse("w.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  - key: a\n    value: x\n"))
	obj := res.Objects[0]
	r := testRule("a-rule", true, rules.Warning, func(p *rules.Pass) error {
		p.Report(rules.Diagnostic{Object: obj, Path: "spec.tolerations[0].value", Message: "m",
			Related: []rules.Related{{Object: obj, Path: "metadata.name", Message: "r"}}})
		p.Report(rules.Diagnostic{Pos: loader.Position{File: "bad.yaml", Line: 3, Column: 1}, Message: "no object"})
		return nil
	})
	fs, err := RunRules(context.Background(), []*rules.Rule{r}, &rules.Input{Objects: res.Objects})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("%d findings, want 2", len(fs))
	}
	f := fs[0]
	if f.Pos.String() != "w.yaml:8:5" || f.Path != "spec.tolerations[0].value" || f.Object == nil || f.Object.Name != "p" || f.Severity != rules.Warning {
		t.Errorf("finding %+v at %s", f, f.Pos)
	}
	if len(f.Related) != 1 || f.Related[0].Pos.String() != "w.yaml:4:3" || f.Related[0].Object != nil {
		t.Errorf("related %+v", f.Related)
	}
	if fs[1].Pos.String() != "bad.yaml:3:1" || fs[1].Object != nil {
		t.Errorf("finding on no object: %+v", fs[1])
	}
}

// TestSeededPrerequisite: a prerequisite whose result the driver already
// has (the node groups, built once per run) is not computed again, and its
// rules read the value given.
func TestSeededPrerequisite(t *testing.T) {
	computed := false
	p := &rules.Prerequisite{Name: "groups", Run: func(*rules.PrereqPass) (any, error) {
		computed = true
		return "computed", nil
	}}
	var got any
	r := testRule("a-rule", true, rules.Error, func(pass *rules.Pass) error {
		got = pass.ResultOf[p]
		return nil
	})
	r.Requires = []*rules.Prerequisite{p}
	if _, err := runRules(context.Background(), []*rules.Rule{r}, &rules.Input{}, map[*rules.Prerequisite]any{p: "seeded"}); err != nil {
		t.Fatal(err)
	}
	if computed || got != "seeded" {
		t.Errorf("computed %v, rule read %v; want the seeded value, not computed", computed, got)
	}
	if _, err := RunRules(context.Background(), []*rules.Rule{r}, &rules.Input{}); err != nil {
		t.Fatal(err)
	}
	if !computed || got != "computed" {
		t.Errorf("unseeded: computed %v, rule read %v", computed, got)
	}
}
