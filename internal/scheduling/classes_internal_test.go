package scheduling

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taintlint/taintlint/k8s"
)

// classesOfOne makes every group a class of its own: each judge then
// judges every group, as it did before classes.
func classesOfOne(groups []*Group) *classSets {
	s := newClassSets(groups)
	for i := range s.rest {
		s.rest[i], s.alloc[i] = strconv.Itoa(i), ""
	}
	s.none = s.partition(groups, nil)
	return s
}

// TestClassesShareVerdicts holds the verdicts judged once per class of
// groups and copied to the others (classes.go) to the verdicts of each
// group judged on its own, on random inventories (labels, taints with and
// without timeAdded, cordons, allocatable) and random workloads
// (nodeSelector, required terms with every operator, matchFields,
// tolerations, requests, DaemonSets, nodeName): placements whole and
// brief, their messages and details, and the facts' group verdicts with
// their keys.
func TestClassesShareVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5000))
	rounds, perRound := 100, 25
	if testing.Short() {
		rounds = 30
	}
	groups, shared, explained := 0, 0, 0
	for round := range rounds {
		nodes := randomNodes(t, rng)
		opts := Options{Gates: k8s.FeatureGates{TaintTolerationComparisonOperators: rng.IntN(2) == 0}}
		inv := NewInventory(nodes, opts)
		alone := NewInventory(nodes, opts)
		alone.classes = classesOfOne(alone.Groups)
		for range perRound {
			spec := randomSpec(rng)
			kind := []string{"Deployment", "DaemonSet", "Pod"}[rng.IntN(3)]
			w := workload(t, kind, spec)
			where := fmt.Sprintf("round %d, %s %s", round, kind, spec)
			for _, brief := range []bool{false, true} {
				got, want := inv.Place(w, PlaceOptions{Brief: brief}), alone.Place(w, PlaceOptions{Brief: brief})
				if g, w := placementText(got, opts.Gates), placementText(want, opts.Gates); g != w {
					t.Fatalf("%s, brief %v: placement\n%s\nwant (each group judged)\n%s", where, brief, g, w)
				}
				rule, idx := got.ExplainedTolerations(opts.Gates)
				if len(idx) > 0 {
					explained++
				}
				if wantRule, wantIdx := explainedByDetails(got, opts.Gates); rule != wantRule || !reflect.DeepEqual(idx, wantIdx) {
					t.Fatalf("%s, brief %v: explained %s %v, want (from all details) %s %v", where, brief, rule, idx, wantRule, wantIdx)
				}
			}
			got, want := inv.Facts(w, opts), alone.Facts(w, opts)
			if g, w := groupFactsText(got.Groups), groupFactsText(want.Groups); g != w {
				t.Fatalf("%s: group facts\n%s\nwant (each group judged)\n%s", where, g, w)
			}
			j := &groupJudge{Selector: w.Spec.NodeSelector, Affinity: w.Spec.Affinity}
			c := inv.classes.of(inv.Groups, j.labelKeys())
			groups += len(inv.Groups)
			shared += len(inv.Groups) - len(c.reps)
		}
	}
	if shared == 0 {
		t.Fatalf("no group shared a class's verdict in %d groups judged: the test does not test classes", groups)
	}
	if explained == 0 {
		t.Fatalf("no placement named a toleration in its details: the test does not test ExplainedTolerations")
	}
	t.Logf("%d of %d groups judged took their class's verdict; %d placements named a toleration", shared, groups, explained)
}

// explainedByDetails is ExplainedTolerations read from every detail of
// the rule that reports p.
func explainedByDetails(p *Placement, gates k8s.FeatureGates) (string, []int) {
	var rule string
	var details []Detail
	switch {
	case p.Rejected != "":
		return "", nil
	case p.RunsNowhere():
		rule, details = "daemonset-no-nodes", p.NoNodesDetails(gates)
	case p.Message != "":
		rule, details = "pod-unschedulable", p.Details(gates)
	default:
		return "", nil
	}
	return rule, tolerationsNamed(details)
}

// placementText is everything a placement says, groups by index.
func placementText(p *Placement, gates k8s.FeatureGates) string {
	var b []byte
	add := func(format string, args ...any) { b = fmt.Appendf(b, format+"\n", args...) }
	add("mode %d fit %d picked %d rejected %q conflict %v brief %v allowed %v", p.Mode, p.Fit, p.Picked, p.Rejected, p.Conflict, p.brief, p.AllowedNames)
	add("message %q", p.Message)
	if p.PendingNode != nil {
		add("pending %s", p.PendingNode.Node.Name)
	}
	for _, r := range p.Results {
		g := -1
		if r.Group != nil {
			g = r.Group.index
		}
		var names []string
		for _, n := range r.Nodes {
			if n != nil {
				names = append(names, n.Node.Name)
			}
		}
		v, _ := json.Marshal(r.Verdict)
		add("group %d nodes %d %v: %s", g, len(r.Nodes), names, v)
	}
	details := func(name string, ds []Detail) {
		for _, d := range ds {
			node, path := "", ""
			if d.Node != nil {
				node = d.Node.Node.Name
			}
			if d.Path != nil {
				path = d.Path.String()
			}
			add("%s: %s [%s %s %d]", name, d.Text, node, path, d.Toleration)
		}
	}
	if !p.brief {
		details("detail", p.Details(gates))
		details("avoided", p.AvoidedDetails())
		if p.RunsNowhere() {
			add("no nodes %s", p.NoNodesMessage())
			details("no nodes", p.NoNodesDetails(gates))
		}
		rule, tols := p.ExplainedTolerations(gates)
		add("only avoided %v, explained %s %v, fit %s", p.OnlyAvoided(), rule, tols, p.FitSummary())
	}
	return string(b)
}

func groupFactsText(gs []GroupFact) string {
	var b []byte
	for i := range gs {
		g := &gs[i]
		var names []string
		for _, n := range g.Nodes {
			names = append(names, n.Node.Name)
		}
		v, _ := json.Marshal(g.GroupVerdict)
		b = fmt.Appendf(b, "group %d %v: %s key %q\n", g.Group.index, names, v, g.Key())
	}
	return string(b)
}

// randomNodes are up to 40 nodes of a few pools, drawn from a few label
// values, taints and allocatable lists, so that groups repeat and classes
// form.
func randomNodes(t *testing.T, rng *rand.Rand) []*k8s.Node {
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	t1 := metav1.NewTime(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	t2 := metav1.NewTime(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))
	taintSets := [][]v1.Taint{
		nil,
		{taint("nvidia.com/gpu", "present", v1.TaintEffectNoSchedule)},
		{taint("spot", "true", v1.TaintEffectPreferNoSchedule)},
		{taint("dedicated", "infra", v1.TaintEffectNoExecute)},
		{{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoExecute, TimeAdded: &t1}},
		{{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoExecute, TimeAdded: &t2}},
		{taint("level", "3", v1.TaintEffectNoSchedule), taint("spot", "true", v1.TaintEffectPreferNoSchedule)},
		{taint("level", "7", v1.TaintEffectNoSchedule)},
		{taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoExecute)},
		{taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule)},
	}
	q := resource.MustParse
	allocs := []v1.ResourceList{
		nil,
		{v1.ResourceCPU: q("2"), v1.ResourceMemory: q("4Gi"), v1.ResourcePods: q("110")},
		{v1.ResourceCPU: q("2000m"), v1.ResourceMemory: q("4096Mi"), v1.ResourcePods: q("110")},
		{v1.ResourceCPU: q("8"), v1.ResourceMemory: q("32Gi"), v1.ResourcePods: q("110"), "nvidia.com/gpu": q("1")},
		{v1.ResourceCPU: q("8"), v1.ResourceMemory: q("32Gi"), v1.ResourcePods: q("0")},
	}
	// Nodes come from a few pools, each with its taints, allocatable,
	// cordon and some labels, the other labels (zone and what a pool
	// leaves open) drawn per node.
	type pool struct {
		taints   []v1.Taint
		alloc    v1.ResourceList
		cordoned bool
		labels   map[string]string
	}
	pools := make([]pool, 1+rng.IntN(5))
	for i := range pools {
		p := pool{taints: taintSets[rng.IntN(len(taintSets))], alloc: allocs[rng.IntN(len(allocs))], cordoned: rng.IntN(5) == 0, labels: map[string]string{}}
		for _, l := range []struct{ key, values string }{{"type", "small large"}, {"tier", "web db -"}, {"size", "1 5 10 x"}} {
			if rng.IntN(3) > 0 {
				p.labels[l.key] = empty(pick(strings.Fields(l.values)...))
			}
		}
		pools[i] = p
	}
	n := 1 + rng.IntN(40)
	nodes := make([]*k8s.Node, n)
	for i := range nodes {
		name := fmt.Sprintf("n%d", i)
		p := pools[rng.IntN(len(pools))]
		labels := map[string]string{hostnameLabel: name}
		for k, v := range p.labels {
			labels[k] = v
		}
		for _, l := range []struct{ key, values string }{{"zone", "a b c"}, {"type", "small large"}, {"tier", "web db -"}, {"size", "1 5 10 x"}} {
			if _, set := labels[l.key]; !set && rng.IntN(4) > 0 {
				labels[l.key] = empty(pick(strings.Fields(l.values)...))
			}
		}
		cordoned, taints, alloc := p.cordoned, p.taints, p.alloc
		if rng.IntN(10) == 0 { // a node unlike its pool
			cordoned, taints, alloc = rng.IntN(5) == 0, taintSets[rng.IntN(len(taintSets))], allocs[rng.IntN(len(allocs))]
		}
		nodes[i] = node(t, name, labels, cordoned, taints...)
		nodes[i].Node.Status.Allocatable = alloc
	}
	return nodes
}

// empty reads "-" as the empty value, which a label may have.
func empty(v string) string {
	if v == "-" {
		return ""
	}
	return v
}

// randomSpec is a pod spec as JSON (which YAML reads) with a random
// nodeSelector, required node affinity, tolerations and requests.
func randomSpec(rng *rand.Rand) string {
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	spec := map[string]any{}
	if rng.IntN(2) == 0 {
		sel := map[string]string{}
		for range 1 + rng.IntN(2) {
			switch k := pick("zone", "type", "tier", "missing", hostnameLabel); k {
			case hostnameLabel:
				if rng.IntN(4) == 0 {
					sel[k] = pick("n0", "n3")
				}
			default:
				sel[k] = pick("a", "b", "small", "large", "web", "")
			}
		}
		spec["nodeSelector"] = sel
	}
	if rng.IntN(2) == 0 {
		var terms []any
		for range 1 + rng.IntN(2) {
			var exprs []any
			for range 1 + rng.IntN(2) {
				key := pick("zone", "type", "tier", "size", "missing")
				if rng.IntN(12) == 0 {
					key = hostnameLabel
				}
				op := pick("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
				e := map[string]any{"key": key, "operator": op}
				switch op {
				case "In", "NotIn":
					e["values"] = []string{pick("a", "b", "small", "web", "5", ""), pick("c", "large", "db")}
				case "Gt", "Lt":
					e["values"] = []string{pick("1", "4", "6", "x")}
				}
				exprs = append(exprs, e)
			}
			term := map[string]any{"matchExpressions": exprs}
			if rng.IntN(10) == 0 {
				term["matchFields"] = []any{map[string]any{"key": "metadata.name", "operator": pick("In", "NotIn"), "values": []string{pick("n0", "n2", "gone")}}}
			}
			terms = append(terms, term)
		}
		spec["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": terms}}}
	}
	tols := []any{}
	for _, tol := range []map[string]any{
		{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
		{"key": "nvidia.com/gpu", "operator": "Equal", "value": "presnt", "effect": "NoSchedule"},
		{"key": "spot", "operator": "Exists"},
		{"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoExecute", "tolerationSeconds": 30},
		{"key": "dedicated", "operator": "Equal", "value": "infra"},
		{"key": "level", "operator": "Gt", "value": "5", "effect": "NoSchedule"},
		{"key": "level", "operator": "Lt", "value": "5", "effect": "NoSchedule"},
		{"key": v1.TaintNodeUnschedulable, "operator": "Exists", "effect": "NoSchedule"},
		{"key": v1.TaintNodeNotReady, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
		{"operator": "Exists"},
	} {
		if rng.IntN(5) == 0 {
			tols = append(tols, tol)
		}
	}
	if len(tols) > 0 {
		spec["tolerations"] = tols
	}
	requests := map[string]string{}
	if rng.IntN(2) == 0 {
		requests["cpu"] = pick("500m", "2", "4")
	}
	if rng.IntN(3) == 0 {
		requests["memory"] = pick("1Gi", "4Gi", "64Gi")
	}
	if rng.IntN(5) == 0 {
		requests["nvidia.com/gpu"] = "1"
	}
	container := map[string]any{"name": "a"}
	if len(requests) > 0 {
		container["resources"] = map[string]any{"requests": requests}
	}
	spec["containers"] = []any{container}
	if rng.IntN(15) == 0 {
		spec["nodeName"] = pick("n1", "n4", "gone")
	}
	if rng.IntN(5) == 0 {
		spec["hostNetwork"] = true
	}
	if rng.IntN(6) == 0 {
		spec["preemptionPolicy"] = "Never"
	}
	b, _ := json.Marshal(spec)
	return string(b)
}

// TestClassesPartition holds a partition to its definition: groups of one
// class agree on taints, cordon and each key's label, and groups of two
// classes differ in one of them; the fit classes on allocatable too.
func TestClassesPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 297))
	for range 100 {
		inv := NewInventory(randomNodes(t, rng), Options{})
		keys := labelKeys(nil, map[string]string{"zone": "a"}, nil)
		if rng.IntN(2) == 0 {
			keys = labelKeys(keys, map[string]string{"size": "1", "tier": "x"}, nil)
		}
		c := inv.classes.of(inv.Groups, keys)
		same := func(a, b *Group) bool {
			for _, k := range keys {
				va, oka := a.Labels[k]
				vb, okb := b.Labels[k]
				if oka != okb || va != vb {
					return false
				}
			}
			return reflect.DeepEqual(a.Taints, b.Taints) && a.Unschedulable == b.Unschedulable
		}
		sameAlloc := func(a, b *Group) bool {
			return string(appendAllocatable(nil, a.Allocatable)) == string(appendAllocatable(nil, b.Allocatable))
		}
		for i, a := range inv.Groups {
			for j, b := range inv.Groups {
				if (c.of[i] == c.of[j]) != same(a, b) {
					t.Fatalf("groups %d and %d: same class %v, agree %v (keys %v)", i, j, c.of[i] == c.of[j], same(a, b), keys)
				}
				if (c.fit.of[i] == c.fit.of[j]) != (same(a, b) && sameAlloc(a, b)) {
					t.Fatalf("groups %d and %d: same fit class %v, agree %v %v (keys %v)", i, j, c.fit.of[i] == c.fit.of[j], same(a, b), sameAlloc(a, b), keys)
				}
			}
			for _, c := range []*classes{c, c.fit} {
				if r := c.rep(i); r > i || c.of[r] != c.of[i] {
					t.Fatalf("group %d: representative %d", i, r)
				}
			}
		}
		for _, c := range []*classes{c, c.fit} {
			total := 0
			for _, n := range c.nodes {
				total += n
			}
			if total != len(inv.Nodes) {
				t.Fatalf("classes count %d nodes, want %d", total, len(inv.Nodes))
			}
		}
	}
}

// TestNodeKeys holds the group keys worked out on every core to nodeKey
// of each node, on an inventory large enough for several workers.
func TestNodeKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1000))
	var nodes []*k8s.Node
	for len(nodes) < 1200 {
		nodes = append(nodes, randomNodes(t, rng)...)
	}
	keys := nodeKeys(nodes)
	for i, n := range nodes {
		if want := string(nodeKey(nil, &n.Node)); keys[i] != want {
			t.Fatalf("node %d: key %q, want %q", i, keys[i], want)
		}
	}
	// One worker's label order, reused only for the same keys.
	var o labelOrder
	for i, labels := range []map[string]string{
		{"a": "1", "b": "2"}, {"b": "2", "a": "1"}, {"a": "1", "c": "2"}, {"a": "1", "c": "2", hostnameLabel: "h"},
		{"a": "1", hostnameLabel: "h"}, {"a": "1", "b": "2"}, {}, {hostnameLabel: "h"}, {"a": "1"}, nil, {"c": "3", "a": "1"},
	} {
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
		if got, want := string(o.nodeKey(nil, n)), string(nodeKey(nil, n)); got != want {
			t.Errorf("labels %d %v: key %q, want %q", i, labels, got, want)
		}
	}
}
