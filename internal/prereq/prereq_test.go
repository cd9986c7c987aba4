package prereq_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/internal/testinput"
)

// TestKeptPlacementsArePlacements: the placement a reportable workload's
// record keeps is the one placing it again gives, details and message
// included, on the scheduling rules' fixtures.
func TestKeptPlacementsArePlacements(t *testing.T) {
	kept := 0
	for _, rule := range []string{"pod-unschedulable", "pod-prefers-avoided-nodes", "daemonset-no-nodes", "daemonset-uncovered-nodes", "toleration-unmatched"} {
		dir := filepath.Join("..", "..", "testdata", "rules", rule)
		if _, err := os.Stat(dir); err != nil {
			t.Fatal(err)
		}
		in := testinput.Load(t, dir)
		if !in.HasInventory() {
			t.Fatalf("%s: no inventory", dir)
		}
		pl := prereq.NewPlacer(in)
		recs := prereq.NewWorkloads(in, pl, func(string) bool { return true })
		for i, rec := range recs {
			p := rec.Placement()
			if p == nil {
				if rec.Reportable {
					t.Errorf("%s: %s is reportable, its placement not kept", dir, in.Workloads[i].Object.Name)
				}
				continue
			}
			kept++
			again := pl.Place(in.Workloads[i])
			if !reflect.DeepEqual(p, again) {
				t.Errorf("%s: %s: the kept placement differs from placing it again", dir, in.Workloads[i].Object.Name)
			}
			if !reflect.DeepEqual(p.Details(in.Gates), again.Details(in.Gates)) {
				t.Errorf("%s: %s: details differ", dir, in.Workloads[i].Object.Name)
			}
		}
	}
	if kept < 10 {
		t.Errorf("only %d placements kept", kept)
	}
}
