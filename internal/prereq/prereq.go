// Package prereq holds the prerequisites that rules of both engines share
// (Go rules and the Rego engine): each is a thin wrapper over one call
// into the scheduling code, computed once per run by the driver
// (internal/lint) and read through Pass.ResultOf. Rules of one package
// that share work among themselves keep their prerequisites beside them.
//
// The values are package-level because a prerequisite is identified by
// its pointer, as a go/analysis Analyzer is; they are never written.
package prereq

import (
	"github.com/taintlint/taintlint/internal/k8s"
	"github.com/taintlint/taintlint/internal/placement"
	"github.com/taintlint/taintlint/rules"
)

// Placer places workloads on the run's node inventory as the scheduling
// rules judge them.
type Placer struct {
	Inventory *placement.Inventory
	Options   placement.Options
}

// Place places w.
func (p *Placer) Place(w *k8s.Workload) *placement.Placement {
	return p.Inventory.Place(w, p.Options)
}

// Placement is the run's *Placer: the inventory's nodes prepared once for
// every placement of the run (placement.NewInventory).
var Placement = &rules.Prerequisite{
	Name: "placement inventory",
	Run: func(p *rules.PrereqPass) (any, error) {
		in := p.Input
		opts := placement.Options{Gates: in.Gates, RuntimeClasses: in.RuntimeClasses, Admission: in.Admission.WithObjects(in.Objects), Brief: true}
		inv := placement.NewInventory(in.Nodes, k8s.SelectsOnHostname(in.Workloads, in.RuntimeClasses, opts.Admission))
		return &Placer{Inventory: inv, Options: opts}, nil
	},
}

// NodeGroups is the run's *k8s.Inventory: the nodes grouped for the
// scheduling facts Rego policies read (k8s.NewInventory); nil without
// nodes.
var NodeGroups = &rules.Prerequisite{
	Name: "node groups",
	Run: func(p *rules.PrereqPass) (any, error) {
		return k8s.NewInventory(p.Input.Nodes), nil
	},
}
