package checker

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/catalog"
	"github.com/taintlint/taintlint/internal/pools"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// This file adapts node pool definitions (package pools) to the inventory
// placement and the facts judge: each pool becomes one node that stands
// for every node the pool can make, named by the pool (NodePool/gpu),
// carrying the labels and taints its nodes carry, with the pool's own
// rule for node selectors and affinity (pools.Pool.Compatible), so that a
// zone or architecture the pool leaves open is not a missing label.

// poolNode is the inventory node that stands for p. Its allocatable is
// what the pool's largest node offers, known in part (cpu, memory, GPUs):
// the resources it does not list are not judged, and none is when the
// pool's instance types are unknown.
func poolNode(p *pools.Pool) *k8s.Node {
	n := &k8s.Node{Object: p.Object, Compatible: p.Compatible, DaemonCompatible: p.DaemonCompatible, PartialAllocatable: true}
	n.Node.Name = p.Name
	n.AllocatableSource = "unknown: " + p.UnknownResources
	if r := p.Resources; r != nil {
		n.Node.Status.Allocatable = r.Allocatable
		gpu := "no type has a GPU"
		switch _, known := r.Allocatable[catalog.ResourceGPU]; {
		case !known:
			gpu = "GPUs unknown"
		case r.Largest[2] != "":
			gpu = "GPUs of " + r.Largest[2]
		}
		n.AllocatableSource = fmt.Sprintf("the most of %d instance types: cpu of %s, memory of %s, %s", r.Types, r.Largest[0], r.Largest[1], gpu)
		if r.Types == 1 {
			n.AllocatableSource = "instance type " + r.Largest[0]
		}
	}
	n.Node.Labels = p.NodeLabels()
	// A requirement that pins one value is a label every node carries.
	for _, q := range p.Requirements {
		if q.Operator == v1.NodeSelectorOpIn && len(q.Values) == 1 {
			n.Node.Labels[q.Key] = q.Values[0]
		}
	}
	for _, t := range p.Taints {
		n.Node.Spec.Taints = append(n.Node.Spec.Taints, t.Taint)
		n.TaintPaths = append(n.TaintPaths, pools.FieldPath(t.Path))
		n.TaintObjects = append(n.TaintObjects, t.Object)
	}
	return n
}

// readPools reads the pool definitions among objs: the inventory nodes
// that stand for them, their taint lists as written (for validation), and
// the fields that could not be read.
// It also returns the keys of the pools' startup taints, which nodes carry
// only at run time, and the pools whose instance types cat does not know.
func readPools(objs []*loader.Object, cat *pools.Catalog) ([]*k8s.Node, []k8s.TaintList, []*k8s.DecodeIssue, []string, []*pools.Pool) {
	var defs []*loader.Object
	for _, obj := range objs {
		if pools.IsDefinition(obj) {
			defs = append(defs, obj)
		}
	}
	if len(defs) == 0 {
		return nil, nil, nil, nil, nil
	}
	r := pools.Read(defs)
	nodes := make([]*k8s.Node, 0, len(r.Pools))
	var startup []string
	var unknown []*pools.Pool
	for _, p := range r.Pools {
		if cat != nil {
			p.SetResources(cat)
			if len(p.InstanceTypes) > 0 && p.Resources == nil {
				unknown = append(unknown, p)
			}
		}
		nodes = append(nodes, poolNode(p))
		for _, t := range p.StartupTaints {
			startup = append(startup, t.Key)
		}
	}
	issues := make([]*k8s.DecodeIssue, 0, len(r.Issues))
	for _, is := range r.Issues {
		issues = append(issues, &k8s.DecodeIssue{Object: is.Object, Path: is.Path, Msg: is.Msg, AtValue: is.AtValue})
	}
	return nodes, r.Taints, issues, startup, unknown
}

// readInputPools reads the pools of the checked objects and of the
// inventory's, files their taint lists and unreadable fields in the input
// (once for a definition read twice), and returns the pools' nodes, with
// a note when an inventory pool names an instance type the catalogue
// does not know.
func readInputPools(in *rules.Input, checked, inventory []*loader.Object) (checkedPools, invPools []*k8s.Node, note string) {
	// The catalogue is embedded: failing to parse it is a bug its tests
	// catch; the run goes on without pool resources.
	var cat *pools.Catalog
	if hasDefinition(checked) || hasDefinition(inventory) {
		cat = loadCatalog()
	}
	seen := map[nodeSite]bool{}
	for i, objs := range [][]*loader.Object{checked, inventory} {
		nodes, taints, issues, startup, unknown := readPools(objs, cat)
		if i == 1 && len(unknown) > 0 {
			var names []string
			for _, p := range unknown {
				names = append(names, fmt.Sprintf("%s (%s)", p.Name, p.UnknownResources))
			}
			note = fmt.Sprintf("%d node pool(s) name instance types the instance-type catalogue does not know: %s; their resources are not judged (docs/inventory.md)", len(unknown), nameList(names))
		}
		if i == 1 {
			// A toleration of a pool's startup taint is right although no
			// node of the inventory carries it (toleration-unmatched).
			in.RuntimeTaintKeys = append(in.RuntimeTaintKeys[:len(in.RuntimeTaintKeys):len(in.RuntimeTaintKeys)], startup...)
		}
		for _, l := range taints {
			if !seen[siteOf(l.Object)] || i == 0 {
				in.PoolTaints = append(in.PoolTaints, l)
			}
		}
		for _, is := range issues {
			if !seen[siteOf(is.Object)] || i == 0 {
				in.DecodeIssues = append(in.DecodeIssues, is)
			}
		}
		for _, n := range nodes {
			seen[siteOf(n.Object)] = true
		}
		if i == 0 {
			checkedPools = nodes
		} else {
			invPools = nodes
		}
	}
	return checkedPools, invPools, note
}

// hasDefinition reports whether objs hold a pool definition: only then is
// the catalogue read.
func hasDefinition(objs []*loader.Object) bool {
	for _, obj := range objs {
		if pools.IsDefinition(obj) {
			return true
		}
	}
	return false
}

// readTerraformPools reads the node pools of the inventory's Terraform
// files (pools.ReadTerraform), files their taint lists, unreadable
// fields and parse errors in the input, and returns the pools' nodes,
// the notes naming what was not known statically, and the nodes of the
// pools with unknowns that placement turns on (withholdUnknown).
func readTerraformPools(in *rules.Input, files []loader.TerraformFile) ([]*k8s.Node, []string, map[*k8s.Node]*pools.Pool) {
	if len(files) == 0 {
		return nil, nil, nil
	}
	r := pools.ReadTerraform(files)
	var cat *pools.Catalog
	if len(r.Pools) > 0 {
		cat = loadCatalog()
	}
	nodes := make([]*k8s.Node, 0, len(r.Pools))
	unknown := map[*k8s.Node]*pools.Pool{}
	for _, p := range r.Pools {
		if cat != nil {
			p.SetResources(cat) // EKS and AKS types; GCE types are not in the catalogue
		}
		n := poolNode(p)
		nodes = append(nodes, n)
		if p.HasUnknowns() {
			unknown[n] = p
		}
	}
	in.PoolTaints = append(in.PoolTaints, r.Taints...)
	for _, is := range r.Issues {
		in.DecodeIssues = append(in.DecodeIssues, &k8s.DecodeIssue{Object: is.Object, Path: is.Path, Msg: is.Msg, AtValue: is.AtValue})
	}
	in.LoadErrors = append(in.LoadErrors, r.Errors...)
	return nodes, r.Notes, unknown
}

// loadCatalog parses the embedded instance-type catalogue for pools: only
// when the run holds a pool, since parsing it costs megabytes a run of
// plain manifests has no use for. nil when it does not parse (a bug its
// tests catch): the run goes on without pool resources.
func loadCatalog() *pools.Catalog {
	loaded, err := catalog.Load()
	if err != nil {
		return nil
	}
	return pools.NewCatalog(loaded)
}
