package builtin

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/internal/testinput"
)

// TestFactFindingsShared: the facts rules' findings shared between
// workloads with the same facts are those of each workload computed
// alone, on a generated corpus and on the rule fixtures, with and without
// an inventory. The rule fixtures are loaded one directory at a time.
func TestFactFindingsShared(t *testing.T) {
	dir := t.TempDir()
	if err := benchgen.Write(dir, benchgen.Spec{Docs: 2000, Files: 50, Nodes: 60, Pools: 6, Seed: 7, BadPercent: 30, Realistic: true}); err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Glob("../../testdata/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	all := func(string) bool { return true }
	shared := 0
	for _, paths := range append([][]string{{filepath.Join(dir, "apps"), filepath.Join(dir, "cluster")}, {filepath.Join(dir, "apps")}}, func() (out [][]string) {
		for _, f := range fixtures {
			out = append(out, []string{f})
		}
		return out
	}()...) {
		in := testinput.Load(t, paths...)
		pl := prereq.NewPlacer(in)
		recs := prereq.NewWorkloads(in, pl, all)
		got := factsOf(in, recs, all)
		seen := map[int]bool{}
		for i, w := range in.Workloads {
			if recs[i].Facts == nil {
				continue
			}
			want := workloadFactFindings(in, &recs[i], all, w)
			if seen[recs[i].Facts.ID] && len(want.unmatched)+len(want.loops)+len(want.uncovered)+len(want.shadowed) > 0 {
				shared++
			}
			seen[recs[i].Facts.ID] = true
			if !reflect.DeepEqual(got[i], want) {
				t.Fatalf("%v: %s: shared findings\n%+v\nwant\n%+v", paths, w.Object.Name, got[i], want)
			}
		}
	}
	if shared < 60 {
		t.Errorf("only %d workloads with findings share facts", shared)
	}
}
