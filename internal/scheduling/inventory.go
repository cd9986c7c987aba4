package scheduling

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// Group is a set of nodes that scheduling cannot tell apart but by name:
// the same labels (apart from kubernetes.io/hostname), taints (in the same
// order), unschedulable flag and allocatable. Everything a filter reads of
// the nodes is worked out here once per run.
//
// Today every group is made of Node objects. A group made from a pool
// definition (a Karpenter NodePool, an eksctl node group) would have no
// Nodes, Requirements instead of (or beside) concrete Labels, and
// StartupTaints; the fields are here so that it can say so.
type Group struct {
	// Nodes are the group's nodes in inventory order; nil for a group
	// that stands for a pool definition.
	Nodes []*k8s.Node
	// Node is the first of them, which stands for the group: the upstream
	// matchers (nodeaffinity, the taint helpers) read a *v1.Node.
	Node *v1.Node
	// Names are the node names, sorted.
	Names []string
	// Labels are the labels every node of the group is known to carry
	// (the first node's, its hostname included).
	Labels map[string]string
	// Requirements are the label keys a pool allows with their In, NotIn
	// or Exists sets, where no concrete value is known; nil for nodes.
	Requirements []v1.NodeSelectorRequirement
	// Taints are the taints every node carries; StartupTaints are those
	// that go once a node has started (nil for nodes).
	Taints, StartupTaints []v1.Taint
	Unschedulable         bool
	// Allocatable is the nodes' status.allocatable; nil when unknown (the
	// resource check is skipped).
	Allocatable v1.ResourceList
	// Object is where the group is defined, for related places: the first
	// node's object.
	Object *loader.Object

	alloc *resources // newResources(Allocatable), nil when Allocatable is
	index int
}

// Count is how many nodes the group stands for.
func (g *Group) Count() int { return len(g.Nodes) }

// Inventory is the node inventory of a run, grouped once, with the
// verdict tables every workload of the run shares.
type Inventory struct {
	Nodes  []*k8s.Node
	Groups []*Group
	// Taints are the distinct taints (key, value, effect) of the
	// inventory, sorted by key, effect and value, each with how many nodes
	// carry it.
	Taints []TaintCount

	opts Options
	// pools: every node stands for a node pool (k8s.Node.Compatible), so
	// messages count pools.
	pools  bool
	byName map[string]*k8s.Node
	group  map[*k8s.Node]*Group

	// classes partition the groups by what a judge reads of them
	// (classes.go): each table below judges a class once.
	classes *classSets

	scheduler table[groupVerdict]    // scheduler filters, by pod scheduling key
	daemon    table[DaemonPlacement] // DaemonSet controller, by template key
	facts     table[GroupFact]       // input.facts group verdicts, by judge key
	nearest   table[*v1.Taint]       // nearest inventory taint, by toleration (one value)
	requests  requestsTable          // pods' requests, by requests class and runtime class
	// unnamed holds a nil for each node: a message that counts the other
	// nodes slices it, rather than listing them (read only).
	unnamed []*k8s.Node
	keys    keyBufs
}

// TaintCount is a distinct taint of the inventory.
type TaintCount struct {
	v1.Taint
	Nodes int
}

// Options are the run's settings that placement and facts depend on.
type Options struct {
	Gates          k8s.FeatureGates
	RuntimeClasses []*k8s.RuntimeClass
	// Admission is the run's admission settings, with what the plugins
	// read from the inputs (Admission.WithObjects).
	Admission k8s.Admission
	// RuntimeTaintKeys are extra taint keys that appear on nodes only at
	// run time (.taintlint.yaml runtimeTaints), beside the well-known ones.
	RuntimeTaintKeys []string
}

// PlaceOptions say how much of a placement to keep.
type PlaceOptions struct {
	// Brief leaves Results nil for a scheduled pod that fits a node
	// without an untolerated PreferNoSchedule taint: no rule reports on
	// such a pod, and most pods are such pods. Fit still counts its nodes.
	Brief bool
}

// hostnameLabel differs on every node: nodes are grouped without it, and
// workloads that select on it are judged node by node.
const hostnameLabel = v1.LabelHostname

// NewInventory groups nodes once for the run. Groups keep the order of
// their first node.
func NewInventory(nodes []*k8s.Node, opts Options) *Inventory {
	inv := &Inventory{Nodes: nodes, opts: opts, byName: make(map[string]*k8s.Node, len(nodes)), group: make(map[*k8s.Node]*Group, len(nodes)), unnamed: make([]*k8s.Node, len(nodes))}
	byKey := map[string]*Group{}
	counts := map[v1.Taint]int{}
	inv.pools = len(nodes) > 0
	keys := nodeKeys(nodes)
	for i, n := range nodes {
		inv.pools = inv.pools && n.Compatible != nil
		if _, dup := inv.byName[n.Node.Name]; !dup {
			inv.byName[n.Node.Name] = n
		}
		key := keys[i]
		g := byKey[key]
		if g == nil {
			g = &Group{Node: &n.Node, Labels: n.Node.Labels, Taints: n.Node.Spec.Taints, Unschedulable: n.Node.Spec.Unschedulable, Allocatable: n.Node.Status.Allocatable, Object: n.Object, index: len(inv.Groups)}
			if g.Allocatable != nil {
				g.alloc = allocatableOf(n)
			}
			byKey[key] = g
			inv.Groups = append(inv.Groups, g)
		}
		g.Nodes = append(g.Nodes, n)
		g.Names = append(g.Names, n.Node.Name)
		inv.group[n] = g
		for j, t := range n.Node.Spec.Taints {
			// Each distinct taint of the node once.
			if !slices.ContainsFunc(n.Node.Spec.Taints[:j], func(u v1.Taint) bool { return u.Key == t.Key && u.Value == t.Value && u.Effect == t.Effect }) {
				counts[v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}]++
			}
		}
	}
	for _, g := range inv.Groups {
		sort.Strings(g.Names)
	}
	inv.classes = newClassSets(inv.Groups)
	for t, c := range counts {
		inv.Taints = append(inv.Taints, TaintCount{Taint: t, Nodes: c})
	}
	sort.Slice(inv.Taints, func(i, j int) bool {
		a, b := inv.Taints[i], inv.Taints[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Effect != b.Effect {
			return a.Effect < b.Effect
		}
		return a.Value < b.Value
	})
	return inv
}

// nodeKeys are the nodes' group keys (nodeKey; a pool's own), worked out
// on every core: sorting each node's labels is most of grouping them.
func nodeKeys(nodes []*k8s.Node) []string {
	keys := make([]string, len(nodes))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(nodes)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			var order labelOrder
			// The nodes of a group share one key string: most nodes
			// repeat another's key.
			made := map[string]string{}
			for i := w; i < len(nodes); i += workers {
				n := nodes[i]
				if n.Compatible != nil {
					// A pool is a group of its own, its rule deciding: two
					// definitions of one name (another cluster's file) stay two.
					pos := n.Object.Pos()
					keys[i] = fmt.Sprintf("pool\x00%s:%d:%d\x00%s", pos.File, pos.Line, pos.Column, n.Node.Name)
					continue
				}
				buf = order.nodeKey(buf[:0], &n.Node)
				k, ok := made[string(buf)]
				if !ok {
					k = string(buf)
					made[k] = k
				}
				keys[i] = k
			}
		}()
	}
	wg.Wait()
	return keys
}

// Node returns the inventory node of a name, or nil.
func (inv *Inventory) Node(name string) *k8s.Node { return inv.byName[name] }

// GroupOf returns the group of an inventory node.
func (inv *Inventory) GroupOf(n *k8s.Node) *Group { return inv.group[n] }

// nodeKey is everything about a node, except its name and hostname label,
// that a filter or the DaemonSet controller can look at: labels, taints,
// the cordon, and allocatable keyed by the values the scheduler reads (so
// "1" and "1000m" CPUs group together; a node without allocatable differs
// from one with an empty map). Strings are written length first, so the
// key is unambiguous without quoting; buf is reused between nodes.
func nodeKey(buf []byte, n *v1.Node) []byte {
	var o labelOrder
	return o.nodeKey(buf, n)
}

// labelOrder is the sorted label keys, the hostname label aside, of the
// last node a worker keyed: the nodes of a pool share their label keys,
// so a node's are checked against them rather than sorted again.
type labelOrder struct{ keys []string }

// nodeKey is nodeKey, with o's keys when n's labels have the same.
func (o *labelOrder) nodeKey(buf []byte, n *v1.Node) []byte {
	str := func(s string) {
		buf = strconv.AppendInt(buf, int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
	}
	keys := o.of(n.Labels)
	buf = append(buf, "labels"...)
	for _, k := range keys {
		str(k)
		str(n.Labels[k])
	}
	buf = append(buf, "|taints"...)
	for _, t := range n.Spec.Taints {
		str(t.Key)
		str(t.Value)
		str(string(t.Effect))
	}
	if n.Spec.Unschedulable {
		buf = append(buf, "|cordoned"...)
	}
	buf = append(buf, "|allocatable:"...)
	return appendAllocatable(buf, n.Status.Allocatable)
}

// of is the sorted keys of labels but the hostname label.
func (o *labelOrder) of(labels map[string]string) []string {
	n := len(labels)
	if _, ok := labels[hostnameLabel]; ok {
		n--
	}
	if n > 0 && n == len(o.keys) {
		same := true
		for _, k := range o.keys {
			if _, ok := labels[k]; !ok {
				same = false
				break
			}
		}
		if same {
			return o.keys // n distinct keys, all among labels' n
		}
	}
	keys := make([]string, 0, n)
	for k := range labels {
		if k != hostnameLabel {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	o.keys = keys
	return keys
}

// appendAllocatable writes allocatable keyed by the values the scheduler
// reads: "none" when it is nil, else cpu, memory, ephemeral storage and
// pods, then the scalar resources by name.
func appendAllocatable(buf []byte, rl v1.ResourceList) []byte {
	if rl == nil {
		return append(buf, "none"...)
	}
	r := newResources(rl)
	for _, v := range []int64{r.milliCPU, r.memory, r.ephemeral, r.pods} {
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ',')
	}
	names := make([]string, 0, len(r.scalar))
	for k := range r.scalar {
		names = append(names, string(k))
	}
	sort.Strings(names)
	k := keyWriter{b: buf}
	for _, name := range names {
		k.str(name)
		k.b = strconv.AppendInt(k.b, r.scalar[v1.ResourceName(name)], 10)
	}
	return k.b
}

// table holds a value per node group for each scheduling key a run
// meets. It grows with the run's distinct keys and is never cleared: a
// run's workloads repeat their tolerations and selectors, so the keys are
// far fewer than the workloads, and a cleared table computes them again.
// Safe for concurrent use.
type table[V any] struct {
	mu sync.Mutex
	m  map[string]judged[V]
}

// judged are the values of one key, by group, and the classes of the
// groups they were judged by (each class's first group judged, the
// others given its value); c is nil when every group was judged.
type judged[V any] struct {
	vs []V
	c  *classes
}

// get returns the values of key, computing them the first time: of
// (nil for none) gives the classes of the groups, and eval the value of
// group i (of n, in order), given the classes and the values of the
// groups before i (a class's first group's value, to copy).
func (t *table[V]) get(key []byte, n int, of func() *classes, eval func(i int, c *classes, done []V) V) judged[V] {
	t.mu.Lock()
	j, ok := t.m[string(key)]
	t.mu.Unlock()
	if ok {
		return j
	}
	if of != nil {
		j.c = of()
	}
	j.vs = make([]V, n)
	for i := range j.vs {
		j.vs[i] = eval(i, j.c, j.vs[:i])
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if prev, ok := t.m[string(key)]; ok { // another worker was first
		return prev
	}
	if t.m == nil {
		t.m = map[string]judged[V]{}
	}
	t.m[string(key)] = j
	return j
}
