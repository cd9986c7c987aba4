package scheduling_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sync"
	"testing"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// scale is a benchmark's or test's input: benchgen's documents and two
// inventories drawn from the same 50 pools, one of 50 nodes (a node group
// each) and one of 5,000 (in the realistic shape the pools spread over
// three zones and several instance types: about 300 node groups).
type scale struct {
	workloads []*k8s.Workload
	rcs       []*k8s.RuntimeClass
	nodes     map[int][]*k8s.Node
}

var (
	scaleMu sync.Mutex
	scales  = map[benchgen.Spec]*scale{}
)

// loadScale generates and loads docs documents (seven to nine in ten are
// workloads) and the two inventories, once per size and shape. Tests of
// grouping use the easy shape, where a pool is one node group.
func loadScale(tb testing.TB, docs int, realistic bool) *scale {
	tb.Helper()
	scaleMu.Lock()
	defer scaleMu.Unlock()
	key := benchgen.Spec{Docs: docs, Files: max(1, docs/100), Pools: 50, Seed: 1, BadPercent: 3, Realistic: realistic}
	if s := scales[key]; s != nil {
		return s
	}
	scaleIn := &scale{nodes: map[int][]*k8s.Node{}}
	var scaleErr error
	func() {
		root, err := os.MkdirTemp("", "taintlint-scheduling-bench-")
		if err != nil {
			scaleErr = err
			return
		}
		for _, n := range []int{50, 5000} {
			dir := filepath.Join(root, "inv", itoa(n))
			spec := key
			spec.Nodes = n
			if n == 5000 {
				spec.Docs, spec.Files = 1, 1 // only the inventory
			}
			if scaleErr = benchgen.Write(dir, spec); scaleErr != nil {
				return
			}
			paths := []string{filepath.Join(dir, "cluster")}
			if n == 50 {
				paths = []string{dir}
			}
			var in *rules.Input
			in, _, scaleErr = checker.LoadInput(context.Background(), checker.Options{Paths: paths, Nodes: []string{filepath.Join(dir, "cluster")}, NodeState: checker.NodeStateAsIs, Loader: loader.Options{}})
			if scaleErr != nil {
				return
			}
			scaleIn.nodes[n] = in.Nodes
			if n == 50 {
				scaleIn.workloads, scaleIn.rcs = in.Workloads, in.RuntimeClasses
			}
		}
		os.RemoveAll(root)
	}()
	if scaleErr != nil {
		tb.Fatal(scaleErr)
	}
	scales[key] = scaleIn
	return scaleIn
}

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	return string(b)
}

// placeAll is what the scheduling rules do: place every workload and word
// the explanation of those that fit nowhere.
func placeAll(s *scale, nodes []*k8s.Node) (unschedulable int) {
	inv := scheduling.NewInventory(nodes, scheduling.Options{RuntimeClasses: s.rcs})
	for _, w := range s.workloads {
		p := inv.Place(w, scheduling.PlaceOptions{})
		if p.Message != "" {
			unschedulable++
			_ = p.Details(k8s.FeatureGates{})
		}
	}
	return unschedulable
}

// BenchmarkPlace places the workloads of 11,100 realistic documents on 50
// nodes and on 5,000 nodes drawn from the same 50 pools: grouping must
// make both cost about the same. go test ./internal/scheduling -run '^$' -bench Place -benchtime 3x
func BenchmarkPlace(b *testing.B) {
	docs := 11_100
	if testing.Short() {
		docs = 1_110 // CI runs every benchmark once, briefly
	}
	s := loadScale(b, docs, true)
	for _, n := range []int{50, 5000} {
		b.Run("nodes="+itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				placeAll(s, s.nodes[n])
			}
			b.ReportMetric(float64(len(s.workloads)), "workloads")
		})
	}
}

var digitsRE = regexp.MustCompile(`[0-9]+`)

// TestGroupingKeepsVerdicts checks on input like the benchmark's that 5,000
// nodes in 50 pools give every workload the verdict 50 nodes give it, with
// every count a hundred times larger.
func TestGroupingKeepsVerdicts(t *testing.T) {
	s := loadScale(t, 2000, false)
	if len(s.workloads) < 1500 || len(s.nodes[50]) != 50 || len(s.nodes[5000]) != 5000 {
		t.Fatalf("input: %d workloads, %d and %d nodes", len(s.workloads), len(s.nodes[50]), len(s.nodes[5000]))
	}
	small, large := scheduling.NewInventory(s.nodes[50], scheduling.Options{RuntimeClasses: s.rcs}), scheduling.NewInventory(s.nodes[5000], scheduling.Options{RuntimeClasses: s.rcs})
	if len(large.Groups) != 50 {
		t.Errorf("5,000 nodes from 50 pools make %d groups", len(large.Groups))
	}
	opts := scheduling.PlaceOptions{}
	bad := 0
	for _, w := range s.workloads {
		ps, pl := small.Place(w, opts), large.Place(w, opts)
		if pl.Fit != 100*ps.Fit && !(ps.Mode == scheduling.NodeName) {
			t.Errorf("%s: fits %d of 50 but %d of 5,000", w.Object.Ref, ps.Fit, pl.Fit)
		}
		if digitsRE.ReplaceAllString(ps.Message, "N") != digitsRE.ReplaceAllString(pl.Message, "N") {
			t.Errorf("%s: messages differ:\n%s\n%s", w.Object.Ref, ps.Message, pl.Message)
		}
		if ps.Message != "" {
			bad++
		}
	}
	if bad == 0 {
		t.Error("no workload of the benchmark input is unschedulable")
	}
}

// TestPlaceConcurrently places the same workloads from several goroutines
// on one inventory, as the rules do, and expects what one goroutine gets
// (go test -race checks the shared cache).
func TestPlaceConcurrently(t *testing.T) {
	s := loadScale(t, 2000, false)
	opts := scheduling.PlaceOptions{}
	want := make([]string, len(s.workloads))
	seq := scheduling.NewInventory(s.nodes[50], scheduling.Options{RuntimeClasses: s.rcs})
	for i, w := range s.workloads {
		want[i] = seq.Place(w, opts).Message
	}
	inv := scheduling.NewInventory(s.nodes[50], scheduling.Options{RuntimeClasses: s.rcs})
	got := make([]string, len(s.workloads))
	var wg sync.WaitGroup
	for k := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(s.workloads); i += 4 {
				got[i] = inv.Place(s.workloads[i], opts).Message
			}
		}()
	}
	wg.Wait()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: %q, alone %q", s.workloads[i].Object.Ref, got[i], want[i])
		}
	}
}

// TestBriefKeepsWhatRulesRead: Options.Brief changes nothing the rules
// read (Fit, the message, whether only avoided nodes fit, the details of
// a placement a rule reports on), and leaves Results out of most
// placements.
func TestBriefKeepsWhatRulesRead(t *testing.T) {
	s := loadScale(t, 2000, false)
	inv := scheduling.NewInventory(s.nodes[50], scheduling.Options{RuntimeClasses: s.rcs})
	full := scheduling.PlaceOptions{}
	brief := full
	brief.Brief = true
	short := 0
	for _, w := range s.workloads {
		a, b := inv.Place(w, full), inv.Place(w, brief)
		if a.Fit != b.Fit || a.Picked != b.Picked || a.Message != b.Message || a.Rejected != b.Rejected || a.OnlyAvoided() != b.OnlyAvoided() {
			t.Fatalf("%s: brief placement differs: fit %d/%d, message %q/%q, only avoided %v/%v", w.Object.Ref, a.Fit, b.Fit, a.Message, b.Message, a.OnlyAvoided(), b.OnlyAvoided())
		}
		if b.Results == nil {
			short++
			continue
		}
		if !reflect.DeepEqual(a.Details(k8s.FeatureGates{}), b.Details(k8s.FeatureGates{})) {
			t.Fatalf("%s: details differ", w.Object.Ref)
		}
	}
	if short < len(s.workloads)/2 {
		t.Errorf("only %d of %d placements brief", short, len(s.workloads))
	}
}
