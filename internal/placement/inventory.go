package placement

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/k8s"
)

// Group is a set of nodes the scheduler cannot tell apart except by name:
// the same labels, taints (in the same order), unschedulable flag and
// allocatable.
type Group struct {
	// Nodes are the group's nodes in inventory order.
	Nodes []*k8s.Node
	// Node is the first of them, which stands for the group.
	Node *v1.Node
	// Names are the node names, sorted.
	Names []string
	alloc *resources // nil: the nodes have no status.allocatable
	index int
}

// Inventory is a node inventory split into groups.
type Inventory struct {
	Nodes  []*k8s.Node
	Groups []*Group
	byName map[string]*k8s.Node
	group  map[*k8s.Node]*Group
	// pools: every node stands for a node pool (k8s.Node.Compatible), so
	// messages count pools.
	pools bool

	mu          sync.Mutex
	cache       map[string][]groupVerdict        // pod signature -> verdict per group
	daemonCache map[string][]k8s.DaemonPlacement // template signature -> controller verdict per group
}

// NewInventory groups nodes. Groups keep the order of their first node.
// With byHostname false, the kubernetes.io/hostname label is left out of
// the grouping (see k8s.SelectsOnHostname): real inventories label every
// node with its own hostname, which would make every node a group.
func NewInventory(nodes []*k8s.Node, byHostname bool) *Inventory {
	inv := &Inventory{Nodes: nodes, byName: make(map[string]*k8s.Node, len(nodes)), group: make(map[*k8s.Node]*Group, len(nodes)), cache: map[string][]groupVerdict{}, daemonCache: map[string][]k8s.DaemonPlacement{}}
	byKey := map[string]*Group{}
	inv.pools = len(nodes) > 0
	for _, n := range nodes {
		inv.pools = inv.pools && n.Compatible != nil
		if _, dup := inv.byName[n.Node.Name]; !dup {
			inv.byName[n.Node.Name] = n
		}
		key := groupKey(&n.Node, byHostname)
		g := byKey[key]
		if g == nil {
			g = &Group{Node: &n.Node, index: len(inv.Groups)}
			if n.Node.Status.Allocatable != nil {
				g.alloc = newResources(n.Node.Status.Allocatable)
			}
			byKey[key] = g
			inv.Groups = append(inv.Groups, g)
		}
		g.Nodes = append(g.Nodes, n)
		g.Names = append(g.Names, n.Node.Name)
		inv.group[n] = g
	}
	for _, g := range inv.Groups {
		sort.Strings(g.Names)
	}
	return inv
}

// Node returns the inventory node of a name, or nil.
func (inv *Inventory) Node(name string) *k8s.Node { return inv.byName[name] }

// GroupOf returns the group of an inventory node.
func (inv *Inventory) GroupOf(n *k8s.Node) *Group { return inv.group[n] }

// groupKey is everything about a node, except its name, that a filter can
// look at. Allocatable is keyed by the values the scheduler reads, so "1"
// and "1000m" CPUs group together; a node without allocatable differs from
// one with an empty map.
func groupKey(n *v1.Node, byHostname bool) string {
	var b strings.Builder
	k8s.WriteNodeKey(&b, n, byHostname)
	b.WriteString("|allocatable:")
	if n.Status.Allocatable == nil {
		b.WriteString("none")
	} else {
		r := newResources(n.Status.Allocatable)
		b.WriteString(strconv.FormatInt(r.milliCPU, 10) + "," + strconv.FormatInt(r.memory, 10) + "," + strconv.FormatInt(r.ephemeral, 10) + "," + strconv.FormatInt(r.pods, 10))
		names := make([]string, 0, len(r.scalar))
		for k := range r.scalar {
			names = append(names, string(k))
		}
		sort.Strings(names)
		for _, k := range names {
			b.WriteString("," + strconv.Quote(k) + "=" + strconv.FormatInt(r.scalar[v1.ResourceName(k)], 10))
		}
	}
	return b.String()
}
