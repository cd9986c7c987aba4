package rego

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/internal/testinput"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/rules"
)

// TestFactsPartsNumberValues: two facts entries of a run share the number
// of a member exactly when the member's values are equal, on a generated
// corpus where many workloads differ in some members only.
func TestFactsPartsNumberValues(t *testing.T) {
	dir := t.TempDir()
	if err := benchgen.Write(dir, benchgen.Spec{Docs: 400, Files: 20, Nodes: 60, Pools: 6, Seed: 3, BadPercent: 30}); err != nil {
		t.Fatal(err)
	}
	in := testinput.Load(t, filepath.Join(dir, "apps"), filepath.Join(dir, "cluster"))
	x := newTestObjects(t, in)
	var entries []*factsEntry
	for _, w := range in.Workloads {
		entries = append(entries, x.factsOf(w, true))
	}
	for name, m := range factsMembers {
		byID := map[uint64]ast.Value{}
		ids := map[string]uint64{}
		for _, e := range entries {
			v := e.term.Value.(ast.Object).Get(ast.StringTerm(name)).Value
			if prev, ok := byID[e.ids[m]]; ok && prev.Compare(v) != 0 {
				t.Fatalf("%s: number %d for %v and %v", name, e.ids[m], prev, v)
			}
			byID[e.ids[m]] = v
			if id, ok := ids[v.String()]; ok && id != e.ids[m] {
				t.Errorf("%s: one value, numbers %d and %d", name, id, e.ids[m])
			}
			ids[v.String()] = e.ids[m]
		}
		if name == "tolerations" && len(byID) < 3 {
			t.Errorf("tolerations: only %d distinct values", len(byID))
		}
	}
}

// TestFactsValueIsTheDocumentJSON: input.facts is the JSON encoding of
// scheduling.FactsDoc, node groups and inventory included, for every
// workload of a generated corpus and of the rule fixtures.
func TestFactsValueIsTheDocumentJSON(t *testing.T) {
	dir := t.TempDir()
	if err := benchgen.Write(dir, benchgen.Spec{Docs: 300, Files: 10, Nodes: 40, Pools: 5, Seed: 5, BadPercent: 40, Realistic: true}); err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Glob("../testdata/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, paths := range append([][]string{{filepath.Join(dir, "apps"), filepath.Join(dir, "cluster")}}, func() (out [][]string) {
		for _, f := range fixtures {
			out = append(out, []string{f})
		}
		return out
	}()...) {
		in := testinput.Load(t, paths...)
		x := newTestObjects(t, in)
		for _, w := range in.Workloads {
			got := x.factsOf(w, true).term.Value
			pod := k8s.EffectivePod(w, in.RuntimeClasses, x.opts.Admission)
			doc := x.inv.PodFacts(w, pod, x.opts, true).Doc(w.IsDaemonSet(), x.invDoc)
			if rule, idx := x.explained(w); len(idx) > 0 {
				f := x.inv.PodFacts(w, pod, x.opts, true)
				f.Explain(rule, idx)
				doc = f.Doc(w.IsDaemonSet(), x.invDoc)
			}
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ast.ValueFromReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if got.Compare(want) != 0 {
				t.Fatalf("%v: input.facts differs from the document's JSON:\n%v\n%s", paths, got, data)
			}
			checked++
		}
	}
	if checked < 200 {
		t.Errorf("only %d workloads checked", checked)
	}
}

// newTestObjects prepares in's input documents with the run's scheduling
// inventory, every rule running.
func newTestObjects(t *testing.T, in *rules.Input) *objects {
	t.Helper()
	all := func(string) bool { return true }
	placer, err := prereq.Placement.Run(rules.NewPrereqPass(in, nil, nil, all))
	if err != nil {
		t.Fatal(err)
	}
	return newObjects(in, placer.(*prereq.Placer), prereq.NewWorkloads(in, placer.(*prereq.Placer), all), all)
}
