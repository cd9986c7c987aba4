package scheduling

import (
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/taintlint/taintlint/k8s"
)

// briefDaemon sets p.Picked and p.Fit and reports true when the controller
// creates some daemon pod and every one it creates gets scheduled
// (Options.Brief), for a template whose verdicts hold for whole groups.
func briefDaemon(p *Placement, inv *Inventory, pv *postVerdicts, vs []groupVerdict, controller []DaemonPlacement) bool {
	picked, fit := 0, 0
	for i, g := range inv.Groups {
		if controller[i].Reason != "" {
			continue
		}
		picked += len(g.Nodes)
		if ok, _ := pv.passes(i, g, vs[i]); !ok {
			return false
		}
		fit += len(g.Nodes)
	}
	if picked == 0 {
		return false // daemonset-no-nodes explains the controller's verdicts
	}
	p.Picked, p.Fit, p.brief = picked, fit, true
	return true
}

// absentNodes lists the nodes outside the PreFilter names, up to a few
// (only their count reaches messages).
func (inv *Inventory) absentNodes(names sets.Set[string], count int) []*k8s.Node {
	out := make([]*k8s.Node, 0, count)
	for _, n := range inv.Nodes {
		if !names.Has(n.Node.Name) {
			out = append(out, n)
		}
	}
	return out
}

// placeNodeName is the kubelet's admission check (generalFilter) for a pod
// that names its node: resources (extended resources the node does not
// list are dropped first), node selector and required affinity, then
// untolerated NoExecute taints; the first failure is the rejection.
func (inv *Inventory) placeNodeName(p *Placement, overhead v1.ResourceList) {
	w := p.Workload
	n := inv.byName[w.Spec.NodeName]
	p.Target = n
	if n == nil {
		p.Message = "spec.nodeName names node " + quote(w.Spec.NodeName) + ", which is not in the inventory"
		return
	}
	v := inv.kubeletVerdict(p, n, overhead)
	p.Results = []Result{{Group: inv.group[n], Nodes: []*k8s.Node{n}, Verdict: &v}}
	if v.Filter == "" {
		p.Fit = 1
		return
	}
	p.Message = kubeletMessage(v)
}

func (inv *Inventory) kubeletVerdict(p *Placement, n *k8s.Node, overhead v1.ResourceList) Verdict {
	pod := p.Pod
	gate := inv.opts.Gates.TaintTolerationComparisonOperators
	if n.Node.Status.Allocatable != nil {
		kp := withoutMissingExtended(podForRequests(&p.Workload.Spec, overhead), n.Node.Status.Allocatable)
		req := newResources(PodRequestsOf(kp))
		if short := fits(req, allocatableOf(n)); len(short) > 0 {
			return Verdict{Filter: NodeResourcesFit, Reasons: []string{short[0].Reason}, Shortfalls: short[:1], TaintIndex: -1}
		}
	}
	if ok, _ := nodeaffinity.NewRequiredNodeAffinity(pod.NodeSelector, pod.Affinity).Match(&n.Node); !ok {
		return Verdict{Filter: NodeAffinity, Reasons: []string{ReasonAffinity}, TaintIndex: -1}
	}
	if taint, bad := corev1helpers.FindMatchingUntoleratedTaint(k8s.Logger(), n.Node.Spec.Taints, pod.V1Tolerations(), func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute
	}, gate); bad {
		return Verdict{Filter: TaintToleration, Reasons: []string{"node(s) had taints that the pod didn't tolerate"}, TaintIndex: taintIndex(n.Node.Spec.Taints, taint)}
	}
	return Verdict{TaintIndex: -1}
}

// placeDaemon follows the DaemonSet controller's node choice, then puts
// each daemon pod through the scheduler pinned to its node (its required
// terms replaced by matchFields metadata.name In [node]), or through the
// kubelet's check when the template names a node.
func (inv *Inventory) placeDaemon(p *Placement, opts PlaceOptions, overhead v1.ResourceList) {
	w := p.Workload
	pod := p.Pod
	ps := newPodSched(pod.V1Tolerations(), pod.NodeSelector, nil, p.req, inv.opts.Gates)
	ps.skipAff = pod.NodeSelector == nil
	vs, _ := inv.verdicts(ps, "daemon")
	pv := inv.postVerdicts(ps)
	// The controller judges the template; its verdict can differ between
	// the nodes of a group when the template names a node.
	perNode := w.Spec.NodeName != "" || namesNode(w.Spec.NodeSelector, w.Spec.Affinity) || ps.perNode
	ctl := newDaemonTemplate(w, inv.opts.Gates)
	add := func(g *Group, nodes []*k8s.Node, v *Verdict) {
		if len(nodes) > 0 {
			p.Results = append(p.Results, Result{Group: g, Nodes: nodes, Verdict: v})
		}
	}
	affFailed := sharedAffinityFailure()
	skipped := map[string]*Verdict{} // the controller's verdicts, by reason
	var controller []DaemonPlacement
	if !perNode {
		controller = inv.daemonVerdicts(ctl)
		if opts.Brief && briefDaemon(p, inv, pv, vs, controller) {
			return
		}
	}
	p.Results = make([]Result, 0, len(inv.Groups))
	// judge files the nodes of group i the controller gives one verdict.
	judge := func(i int, g *Group, reason string, nodes []*k8s.Node) {
		if reason != "" {
			v := skipped[reason]
			if v == nil {
				v = &Verdict{Filter: DaemonSetController, Daemon: reason, TaintIndex: -1}
				skipped[reason] = v
			}
			add(g, nodes, v)
			return
		}
		p.Picked += len(nodes)
		if w.Spec.NodeName != "" {
			for _, n := range nodes {
				v := inv.kubeletVerdict(p, n, overhead)
				add(g, []*k8s.Node{n}, &v)
			}
			return
		}
		v := pv.verdict(i, g, vs[i])
		switch {
		case v.pre != nil:
			add(g, nodes, v.pre)
		case ps.perNode:
			good, bad := ps.splitByAffinity(nodes, true)
			add(g, bad, affFailed())
			add(g, good, v.post)
		case v.affFail:
			add(g, nodes, affFailed())
		default:
			add(g, nodes, v.post)
		}
	}
	for i, g := range inv.Groups {
		if !perNode { // the controller's verdict holds for the whole group
			judge(i, g, controller[i].Reason, g.Nodes)
			continue
		}
		// Node by node, the nodes of each verdict in the order first met.
		var reasons []string
		var nodes [][]*k8s.Node
		for _, n := range g.Nodes {
			reason := ctl.shouldRun(n).Reason
			k := slices.Index(reasons, reason)
			if k < 0 {
				k = len(reasons)
				reasons = append(reasons, reason)
				nodes = append(nodes, nil)
			}
			nodes[k] = append(nodes[k], n)
		}
		for k, reason := range reasons {
			judge(i, g, reason, nodes[k])
		}
	}
	for _, r := range p.Results {
		if r.Filter == "" {
			p.Fit += len(r.Nodes)
		}
	}
	// Each result's place in the inventory, looked up once.
	idx := make([]int, len(p.Results))
	for i := range p.Results {
		idx[i] = inv.index(p.Results[i].Nodes[0])
	}
	// The first pending daemon pod, in inventory order, words the message.
	var first *Result
	firstIdx := 0
	for i := range p.Results {
		r := &p.Results[i]
		if r.Filter == "" || r.Filter == DaemonSetController {
			continue
		}
		if first == nil || idx[i] < firstIdx {
			first, firstIdx = r, idx[i]
		}
	}
	if first != nil {
		p.PendingNode = first.Nodes[0]
		if w.Spec.NodeName != "" {
			p.Message = kubeletMessage(*first.Verdict)
		} else {
			pinned := []Result{{Group: first.Group, Nodes: first.Nodes[:1], Verdict: first.Verdict}}
			if p.Total > 1 {
				pinned = append(pinned, Result{Verdict: &Verdict{Filter: NodeAffinity, Reasons: []string{ReasonAbsent}, Unresolvable: true, Absent: true}, Nodes: inv.unnamed[:p.Total-1]})
			}
			p.Message = fitErrorMessage(p.Total, pinned, p.Pod.PreemptionPolicy == v1.PreemptNever, inv.pools)
		}
	}
	// The results come in group order: sorting finds them sorted, at two
	// map lookups a comparison.
	if !slices.IsSorted(idx) {
		sort.SliceStable(p.Results, func(i, j int) bool { return inv.index(p.Results[i].Nodes[0]) < inv.index(p.Results[j].Nodes[0]) })
	}
}

func (inv *Inventory) index(n *k8s.Node) int {
	if n == nil {
		return len(inv.Nodes)
	}
	g := inv.group[n]
	if g == nil {
		return len(inv.Nodes)
	}
	return g.index
}

// daemonVerdicts is the DaemonSet controller's choice for each group, from
// the run's table by what the controller reads of the template (its
// name-free part: callers judge templates that name a node per node).
func (inv *Inventory) daemonVerdicts(ctl *daemonTemplate) []DaemonPlacement {
	k := inv.keys.get()
	defer inv.keys.put(k)
	ctl.writeKey(k)
	of := func() *classes { return inv.classes.of(inv.Groups, labelKeys(nil, ctl.Selector, ctl.Affinity)) }
	return inv.daemon.get(k.b, len(inv.Groups), of, func(i int, c *classes, done []DaemonPlacement) DaemonPlacement {
		if r := c.rep(i); r != i {
			return done[r]
		}
		return ctl.shouldRun(inv.Groups[i].Nodes[0])
	}).vs
}
