// Package prereq holds the prerequisites that rules of both engines share
// (Go rules and the Rego engine): each is a thin wrapper over one call
// into the scheduling package, computed once per run by the driver
// (internal/lint) and read through Pass.ResultOf. Rules of one package
// that share work among themselves keep their prerequisites beside them.
//
// The values are package-level because a prerequisite is identified by
// its pointer, as a go/analysis Analyzer is; they are never written.
package prereq

import (
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
