package builtin

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
)

// TestNodesOf: the names listed are the first maxListed of all the groups'
// node names, sorted, whether a verdict covers a whole group (its sorted
// Names) or some of its nodes.
func TestNodesOf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var groups []*scheduling.GroupFact
		var all []string
		wantTotal := 0
		for range r.IntN(5) {
			g := &scheduling.Group{}
			for range r.IntN(12) {
				name := fmt.Sprintf("node-%02d", r.IntN(40)) // repeats across groups too
				g.Nodes = append(g.Nodes, &k8s.Node{Node: v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}})
				g.Names = append(g.Names, name)
			}
			sort.Strings(g.Names)
			f := &scheduling.GroupFact{Group: g, Nodes: g.Nodes}
			if r.IntN(2) == 0 && len(g.Nodes) > 1 { // some of the group's nodes, in inventory order
				f.Nodes = g.Nodes[:r.IntN(len(g.Nodes))]
			}
			for _, n := range f.Nodes {
				all = append(all, n.Node.Name)
			}
			wantTotal += len(f.Nodes)
			groups = append(groups, f)
		}
		sort.Strings(all)
		want := all[:min(len(all), maxListed)]
		total, got := nodesOf(groups)
		if total != wantTotal || !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("trial %d: nodesOf = %d %q, want %d %q", trial, total, got, wantTotal, want)
		}
	}
}
