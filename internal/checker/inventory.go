package checker

import (
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/internal/pools"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/report"
)

// NodeState says whether the node inventory's transient state counts.
type NodeState string

const (
	// NodeStateStable (the default) leaves out what the node lifecycle
	// controller, a cordon or an autoscaler puts on a node for a while:
	// a snapshot taken while one node was NotReady is not the shape of
	// the cluster.
	NodeStateStable NodeState = "stable"
	// NodeStateAsIs keeps the inventory as written.
	NodeStateAsIs NodeState = "as-is"
)

// ParseNodeState reads a --node-state value.
func ParseNodeState(s string) (NodeState, error) {
	switch NodeState(s) {
	case "", NodeStateStable:
		return NodeStateStable, nil
	case NodeStateAsIs:
		return NodeStateAsIs, nil
	}
	return "", fmt.Errorf("unknown node state %q (want stable or as-is)", s)
}

// InventorySummary and InventorySource are report's: the summary names
// the inventory's sources and counts.
type (
	InventorySummary = report.InventorySummary
	InventorySource  = report.InventorySource
)

type inventoryResult struct {
	result *loader.Result // nil without --nodes
	err    error
}

// loadInventory reads the node inventory paths, if any.
func loadInventory(ctx context.Context, opts Options) inventoryResult {
	if len(opts.Nodes) == 0 {
		return inventoryResult{}
	}
	nodeOpts := opts.Loader
	nodeOpts.Stdin = nil
	nodeOpts.KustomizeFileRoots = false // a file named as nodes is nodes
	nodeOpts.Lean = k8s.NodeLean()
	nodeOpts.Terraform = true // a Terraform directory's node pools
	inv, err := loader.Load(ctx, opts.Nodes, nodeOpts)
	if err != nil {
		return inventoryResult{err: fmt.Errorf("node inventory: %w", err)}
	}
	return inventoryResult{result: inv}
}

// EmptyInventoryError is --nodes or nodes: naming paths that hold neither
// a Node nor a node pool: a run would judge nothing against no cluster
// while looking as if it had one.
type EmptyInventoryError struct {
	Paths []string
	// Held counts the kinds of object the paths held, "Deployment: 3".
	Held []string
	// Notes say why the Terraform files held gave no pool.
	Notes []string
}

func (e *EmptyInventoryError) Error() string {
	held := "no objects"
	if len(e.Held) > 0 {
		held = strings.Join(e.Held, ", ")
	}
	msg := fmt.Sprintf("node inventory: %s held no Node and no node pool (%s); give files of Node objects (kubectl get nodes -o yaml) or node pool definitions", strings.Join(e.Paths, ", "), held)
	for _, n := range e.Notes {
		msg += "\n  " + n
	}
	return msg
}

// inventory is the node inventory of a run, built from the Nodes and pools
// that --nodes and nodes: name, nothing else.
type inventory struct {
	nodes   []*k8s.Node // as placement sees them
	summary *InventorySummary
	notes   []string
	// unknown are the nodes of pools with unknowns that placement turns
	// on, and their pools (withholdUnknown).
	unknown map[*k8s.Node]*pools.Pool
}

// buildInventory makes the inventory from the Nodes the inventory paths
// gave, and notes what it left out: Nodes among the checked paths (checked
// holds them, validated but not used) and, unless state is as-is, the
// nodes' transient taints and cordons.
func buildInventory(invNodes, invPools, checkedNodes, checkedPools []*k8s.Node, state NodeState) *inventory {
	inv := &inventory{}
	seen := map[nodeSite]bool{}
	isPool := map[*k8s.Node]bool{}
	seenName := map[string]bool{}
	var transient []string
	for _, n := range invNodes {
		seen[siteOf(n.Object)] = true
		if seenName[n.Node.Name] { // the first Node of a name wins
			continue
		}
		seenName[n.Node.Name] = true
		if state != NodeStateAsIs {
			if stable, changed := stableNode(n); changed {
				transient = append(transient, n.Node.Name)
				n = stable
			}
		}
		inv.nodes = append(inv.nodes, n)
	}
	for _, n := range invPools {
		seen[siteOf(n.Object)] = true
		isPool[n] = true
		inv.nodes = append(inv.nodes, n)
	}
	if len(transient) > 0 {
		inv.notes = append(inv.notes, fmt.Sprintf("%d node(s) carry transient state that was left out (condition taints such as not-ready or unreachable, cordons, autoscaler scale-down taints): %s; placement, coverage and unmatched tolerations are judged as if they had recovered (--node-state as-is keeps them)", len(transient), nameList(transient)))
	}
	var unused []*k8s.Node
	for _, n := range checkedNodes {
		if !seen[siteOf(n.Object)] {
			unused = append(unused, n)
		}
	}
	if len(unused) > 0 {
		files := map[string]bool{}
		var names []string
		for _, n := range unused {
			files[n.Object.File] = true
			names = append(names, n.Node.Name)
		}
		inv.notes = append(inv.notes, fmt.Sprintf("%d Node object(s) among the checked paths were validated but are not the node inventory: %s; to judge workloads against them, name their files with --nodes or nodes: in .taintlint.yaml (%s)", len(unused), nameList(names), strings.Join(sortedSet(files), ", ")))
	}
	var unusedPools []string
	poolFiles := map[string]bool{}
	for _, n := range checkedPools {
		if !seen[siteOf(n.Object)] {
			unusedPools = append(unusedPools, n.Node.Name)
			poolFiles[n.Object.File] = true
		}
	}
	if len(unusedPools) > 0 {
		inv.notes = append(inv.notes, fmt.Sprintf("%d node pool definition(s) among the checked paths were validated but are not the node inventory: %s; to judge workloads against them, name their files with --nodes or nodes: in .taintlint.yaml (%s)", len(unusedPools), nameList(unusedPools), strings.Join(sortedSet(poolFiles), ", ")))
	}
	if len(inv.nodes) > 0 {
		s := &InventorySummary{}
		index := map[string]int{}
		for _, n := range inv.nodes {
			i, ok := index[n.Object.File]
			if !ok {
				i = len(s.Sources)
				index[n.Object.File] = i
				s.Sources = append(s.Sources, InventorySource{File: n.Object.File})
			}
			if isPool[n] {
				s.Sources[i].Pools++
				s.Pools++
			} else {
				s.Sources[i].Nodes++
				s.Nodes++
			}
		}
		inv.summary = s // Groups: Run counts them on the run's one grouping
	}
	return inv
}

// nodeSite is where an object was read, so that a Node loaded both as a
// checked path and as the inventory is known as one.
type nodeSite struct {
	file      string
	doc, item int
}

func siteOf(obj *loader.Object) nodeSite { return nodeSite{obj.File, obj.Doc, obj.Item} }

// IsTransientTaint reports whether a taint comes and goes with a node's
// state rather than saying what the node is for: the node lifecycle
// controller's condition taints (not-ready, unreachable, the pressure
// taints, network-unavailable, out-of-service, the cloud provider's
// shutdown), the cordon taint, the start-up taints of a node still
// registering (the cloud provider's uninitialized, Karpenter's
// unregistered, Cluster API's uninitialized, the node readiness
// controller's readiness.k8s.io/ family Karpenter counts as ephemeral),
// the scale-down marks of the cluster autoscaler and Karpenter, and the
// taints the cluster autoscaler leaves out of a node group's template
// (GKE's impending-node-termination, AWS's NodeWithImpairedVolumes, and
// its ignore-taint., startup-taint. and status-taint. prefixes:
// cluster-autoscaler/utils/taints/taints.go).
func IsTransientTaint(key string) bool {
	for _, prefix := range transientTaintPrefixes {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	switch key {
	case v1.TaintNodeNotReady, v1.TaintNodeUnreachable, v1.TaintNodeUnschedulable,
		v1.TaintNodeMemoryPressure, v1.TaintNodeDiskPressure, v1.TaintNodePIDPressure,
		v1.TaintNodeNetworkUnavailable, v1.TaintNodeOutOfService,
		"node.cloudprovider.kubernetes.io/shutdown",
		// Start-up taints of a node caught registering.
		"node.cloudprovider.kubernetes.io/uninitialized", "karpenter.sh/unregistered",
		"ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler",
		"karpenter.sh/disrupted", "karpenter.sh/disruption",
		"cloud.google.com/impending-node-termination", "NodeWithImpairedVolumes",
		// Cluster API: removed once the Node has its providerID, and put on
		// a Machine's Node while an in-place update is pending.
		"node.cluster.x-k8s.io/uninitialized", "node.cluster.x-k8s.io/outdated-revision":
		return true
	}
	return false
}

// transientTaintPrefixes are taint key families that are transient
// whatever their suffix.
var transientTaintPrefixes = []string{
	"ignore-taint.cluster-autoscaler.kubernetes.io/",
	"startup-taint.cluster-autoscaler.kubernetes.io/",
	"status-taint.cluster-autoscaler.kubernetes.io/",
	"readiness.k8s.io/",
}

// stableNode is n without its transient taints and its cordon. The copy
// keeps where each remaining taint is written, so findings still point
// at it.
func stableNode(n *k8s.Node) (*k8s.Node, bool) {
	drop := n.Node.Spec.Unschedulable
	for _, t := range n.Node.Spec.Taints {
		if IsTransientTaint(t.Key) {
			drop = true
		}
	}
	if !drop {
		return n, false
	}
	c := *n
	c.Node.Spec = *n.Node.Spec.DeepCopy()
	c.Node.Spec.Unschedulable = false
	c.Node.Spec.Taints = nil
	c.TaintPaths = []*field.Path{}
	for i, t := range n.Node.Spec.Taints {
		if IsTransientTaint(t.Key) {
			continue
		}
		c.Node.Spec.Taints = append(c.Node.Spec.Taints, t)
		c.TaintPaths = append(c.TaintPaths, n.TaintPath(i))
	}
	return &c, true
}

// nameList is "a, b, c" or "a, b, c and 4 more".
func nameList(names []string) string {
	const shown = 5
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkInventory fails a run whose inventory paths gave neither a Node
// nor a pool, naming what they held instead.
func checkInventory(paths []string, loaded *loader.Result, built *inventory) error {
	if len(paths) == 0 || len(built.nodes) > 0 {
		return nil
	}
	e := &EmptyInventoryError{Paths: paths}
	if loaded != nil {
		for _, obj := range loaded.Objects {
			if pools.IsDefinition(obj) {
				return nil // a pool that could not be read: its parse-error says why
			}
		}
		count := map[string]int{}
		var kinds []string
		for _, obj := range loaded.Objects {
			k := obj.Kind
			if k == "" {
				k = "(no kind)"
			}
			if count[k] == 0 {
				kinds = append(kinds, k)
			}
			count[k]++
		}
		for _, k := range kinds {
			e.Held = append(e.Held, fmt.Sprintf("%s: %d", k, count[k]))
		}
		if n := len(loaded.Terraform); n > 0 {
			e.Held = append(e.Held, fmt.Sprintf("Terraform files: %d", n))
			for _, note := range built.notes {
				if strings.HasPrefix(note, "Terraform: ") {
					e.Notes = append(e.Notes, note)
				}
			}
		}
		if n := len(loaded.Errors); n > 0 {
			e.Held = append(e.Held, fmt.Sprintf("%d document(s) that could not be read", n))
		}
	}
	return e
}
