// Package prereq holds the prerequisites that rules of both engines share
// (Go rules and the Rego engine): each is a thin wrapper over the
// scheduling package (the run's inventory; each workload's effective pod,
// placement and facts), computed once per run by the driver
// (internal/lint) and read through Pass.ResultOf. Rules of one package
// that share work among themselves keep their prerequisites beside them.
//
// The values are package-level because a prerequisite is identified by
// its pointer, as a go/analysis Analyzer is; they are never written.
package prereq

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/rules"
)

// Placer places workloads on the run's node inventory as the scheduling
// rules judge them. Inventory is nil without nodes.
type Placer struct {
	Inventory *scheduling.Inventory
	// Options are the run's settings the inventory was built with; the
	// facts read them too.
	Options scheduling.Options
	// PlaceOptions are the options of every placement of the run.
	PlaceOptions scheduling.PlaceOptions
}

// Place places w.
func (p *Placer) Place(w *k8s.Workload) *scheduling.Placement {
	return p.Inventory.Place(w, p.PlaceOptions)
}

// Placement is the run's *Placer: the inventory's node groups and verdict
// tables, built once for every placement and every workload's facts of the
// run (scheduling.NewInventory).
var Placement = &rules.Prerequisite{
	Name: "scheduling inventory",
	Run: func(p *rules.PrereqPass) (any, error) {
		return NewPlacer(p.Input), nil
	},
}

// NewPlacer is Placement's value for in. The driver, which also counts
// the node groups for the run's summary, makes it once and hands it to
// the rules as Placement's result.
func NewPlacer(in *rules.Input) *Placer {
	opts := scheduling.Options{Gates: in.Gates, RuntimeClasses: in.RuntimeClasses, Admission: in.Admission.WithObjects(in.Objects), RuntimeTaintKeys: in.RuntimeTaintKeys}
	pl := &Placer{Options: opts, PlaceOptions: scheduling.PlaceOptions{Brief: true}}
	if len(in.Nodes) > 0 {
		pl.Inventory = scheduling.NewInventory(in.Nodes, opts)
	}
	return pl
}

// Workload is what the run knows of one workload's scheduling, worked out
// once (Workloads) for the scheduling rules, the facts rules and the Rego
// engine: its effective pod is built and placed once, and its facts are
// shared with every workload of the same facts key. The zero value is a
// workload whose pod spec did not decode (parse-error reports it; no rule
// judges it).
type Workload struct {
	// Facts are the workload's facts (input.facts), shared: read only.
	Facts *scheduling.SharedFacts
	// Reportable: a scheduling rule reports on its placement (admission
	// rejects the pod, it fits no node, only nodes it avoids, or a
	// DaemonSet runs nowhere); false without an inventory.
	Reportable bool
	// placement is a reportable workload's placement, kept while the
	// run's kept placements hold fewer than maxKeptResults results (a
	// placement holds one per node group); nil: the rules place it again.
	placement *scheduling.Placement
	// explained is Placement.ExplainedTolerations, when toleration-unmatched
	// runs and some manifest toleration tolerates no inventory taint (the
	// only case anyone reads it); nil for most workloads.
	explained *explanation
}

// maxKeptResults bounds the results of the placements a run keeps for
// its reportable workloads (Workload.Placement): about 20 MB.
const maxKeptResults = 1 << 17

// Placement is the workload's placement, made for its record when it is
// reportable, or nil: then the caller places it (Placer.Place gives the
// same placement). Shared: read only.
func (w *Workload) Placement() *scheduling.Placement { return w.placement }

// explanation is the rule that reports a placement with the fix for some
// manifest tolerations, and their manifest indexes.
type explanation struct {
	rule    string
	indexes []int
}

// ExplainedTolerations are the rule of the run (runs) that reports the
// workload with the fix for some of its manifest tolerations, nearly
// matching a taint it needs, and their manifest indexes; "" and nil for
// none (toleration-unmatched then leaves them to that rule, and Rego's
// input.facts says explainedBy). Without toleration-unmatched in the run,
// always none.
func (w *Workload) ExplainedTolerations(runs func(id string) bool) (string, []int) {
	if w.explained == nil || !runs(w.explained.rule) {
		return "", nil
	}
	return w.explained.rule, w.explained.indexes
}

// Workloads is the run's []Workload, by index of rules.Input.Workloads.
var Workloads = &rules.Prerequisite{
	Name:     "workload scheduling",
	Requires: []*rules.Prerequisite{Placement},
	Run: func(p *rules.PrereqPass) (any, error) {
		return NewWorkloads(p.Input, p.ResultOf[Placement].(*Placer), p.Runs), nil
	},
}

// NewWorkloads is Workloads' value for in, placed with pl, on every core.
func NewWorkloads(in *rules.Input, pl *Placer, runs func(id string) bool) []Workload {
	undecoded := in.UndecodedPodSpecs()
	inv, opts := pl.Inventory, pl.Options
	facts := inv.NewFactsTable(opts)
	explain := inv != nil && runs("toleration-unmatched")
	gate := opts.Gates.TaintTolerationComparisonOperators
	out := make([]Workload, len(in.Workloads))
	var kept atomic.Int64 // results of the placements kept
	EachWorkload(in, func(i int) {
		w := in.Workloads[i]
		if undecoded[w.Object] {
			return
		}
		pod := k8s.EffectivePod(w, opts.RuntimeClasses, opts.Admission)
		rec := &out[i]
		rec.Facts = facts.Of(w, pod)
		if inv == nil {
			return
		}
		p := inv.PlacePod(w, pod, pl.PlaceOptions)
		rec.Reportable = p.Rejected != "" || p.Message != "" || p.OnlyAvoided() || p.RunsNowhere()
		if rec.Reportable && kept.Add(int64(len(p.Results))) <= maxKeptResults {
			rec.placement = p
		}
		if rec.Reportable && explain && slices.ContainsFunc(w.Spec.Tolerations, func(t v1.Toleration) bool { return t.Key != "" && !inv.Tolerates(&t, gate) }) {
			if rule, idx := p.ExplainedTolerations(opts.Gates); rule != "" {
				rec.explained = &explanation{rule: rule, indexes: idx}
			}
		}
	})
	return out
}

// EachWorkload calls do with the index of every workload of the input, on
// every core.
func EachWorkload(in *rules.Input, do func(i int)) {
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(1, len(in.Workloads)/64))
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(in.Workloads); i += workers {
				do(i)
			}
		}()
	}
	wg.Wait()
}
