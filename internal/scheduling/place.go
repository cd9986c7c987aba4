package scheduling

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/taintlint/taintlint/k8s"
)

// Filter names, as kube-scheduler's plugins are called, in the order the
// scheduler runs them.
const (
	NodeUnschedulable = "NodeUnschedulable"
	TaintToleration   = "TaintToleration"
	NodeAffinity      = "NodeAffinity"
	NodeResourcesFit  = "NodeResourcesFit"
	// DaemonSetController is not a filter: the DaemonSet controller chose
	// not to create a daemon pod for the node.
	DaemonSetController = "DaemonSetController"
)

// Scheduler reasons (SEMANTICS §9.6).
const (
	ReasonUnschedulable = "node(s) were unschedulable"
	ReasonTaint         = "node(s) had untolerated taint(s)"
	ReasonAffinity      = "node(s) didn't match Pod's node affinity/selector"
	ReasonAbsent        = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
	ReasonConflict      = "pod affinity terms conflict"
)

// Mode says how a workload's pods reach their nodes.
type Mode int

const (
	// Scheduled pods go through kube-scheduler.
	Scheduled Mode = iota
	// NodeName pods name their node and skip the scheduler; only the
	// kubelet's admission check stands between them and the node.
	NodeName
	// Daemon pods are placed by the DaemonSet controller, one per node it
	// picks, and then go through the scheduler pinned to that node.
	Daemon
)

// Verdict is the outcome for one node.
type Verdict struct {
	// Filter is the first failing filter, or "" when the pod fits.
	Filter string
	// Reasons are the scheduler's reasons for Filter, as the
	// FailedScheduling histogram counts them.
	Reasons []string
	// Unresolvable: preemption cannot help (every filter failure but a
	// full node).
	Unresolvable bool
	// Absent: the node was outside the node names the pod's matchFields
	// allow (NodeAffinity PreFilter), so no filter ran.
	Absent bool
	// TaintIndex is the node's first untolerated NoSchedule or NoExecute
	// taint (TaintToleration), or -1.
	TaintIndex int
	// Shortfalls are the resources the node lacks (NodeResourcesFit).
	Shortfalls []Shortfall
	// Avoided are the indexes of the node's PreferNoSchedule taints the pod
	// does not tolerate, when it fits.
	Avoided []int
	// Daemon is why the DaemonSet controller creates no pod for the node:
	// "nodeName", "affinity" or "taint" (Filter is DaemonSetController).
	Daemon string
}

// Result is a verdict shared by some nodes of one group.
type Result struct {
	Group *Group
	Nodes []*k8s.Node
	// Verdict is shared with the other results of the placement (and of
	// other placements) that have this verdict: read only. A placement
	// holds a result per node group, and verdicts are judged per class of
	// groups.
	*Verdict
}

// Placement is where a workload's pods can go.
type Placement struct {
	Workload *k8s.Workload
	// Pod is the pod as the cluster would create it.
	Pod *k8s.Pod
	// Requests are the pod's requests (PodRequests after defaulting).
	Requests v1.ResourceList
	Mode     Mode
	// Total is the number of inventory nodes.
	Total int
	// Results cover the nodes the verdicts are about: every node, except
	// in NodeName mode (only the named node).
	Results []Result
	// Fit counts the nodes the pod can run on (Daemon: nodes the
	// controller picks whose pod the scheduler places).
	Fit int
	// Rejected is why admission would refuse the pod, or "".
	Rejected string
	// Conflict: the required matchFields terms allow no node name at all.
	Conflict bool
	// AllowedNames are the node names matchFields metadata.name In allows
	// (NodeAffinity PreFilter), sorted; nil when it allows every node.
	AllowedNames []string
	// Target is the node spec.nodeName names, nil when it is not in the
	// inventory (NodeName mode).
	Target *k8s.Node
	// Picked counts the nodes the DaemonSet controller creates a pod for.
	Picked int
	// Message is the FailedScheduling message (Scheduled), the kubelet's
	// rejection (NodeName), or the FailedScheduling message of the first
	// daemon pod that would stay Pending (Daemon); "" when nothing fails.
	Message string
	// PendingNode is the node of the daemon pod Message is about.
	PendingNode *k8s.Node

	inv *Inventory
	// req is Requests as the filters compare them (read only).
	req *resources
	// brief: Results were left out (Options.Brief).
	brief bool
	// ert: the ExtendedResourceToleration admission plugin is on.
	ert bool
}

// podSched is what the filters look at in a pod.
type podSched struct {
	tols     []v1.Toleration
	selector map[string]string
	affinity *v1.Affinity
	required *nodeaffinity.RequiredNodeAffinity // made when first needed (requiredAffinity)
	skipAff  bool                               // NodeAffinity PreFilter returns Skip
	perNode  bool                               // required terms use matchFields: the name matters
	req      *resources
	gate     bool
}

func newPodSched(tols []v1.Toleration, selector map[string]string, aff *v1.Affinity, req *resources, gates k8s.FeatureGates) *podSched {
	ps := &podSched{tols: tols, selector: selector, affinity: aff, req: req, gate: gates.TaintTolerationComparisonOperators}
	ps.skipAff = requiredTerms(aff) == nil && selector == nil
	ps.perNode = namesNode(selector, aff)
	return ps
}

// namesNode reports whether a node selector and required node affinity
// can tell nodes of one group apart: they name the kubernetes.io/hostname
// label, which groups leave out, or a field (metadata.name).
func namesNode(selector map[string]string, aff *v1.Affinity) bool {
	if _, ok := selector[hostnameLabel]; ok {
		return true
	}
	if rna := requiredTerms(aff); rna != nil {
		for _, t := range rna.NodeSelectorTerms {
			if len(t.MatchFields) > 0 {
				return true
			}
			for _, e := range t.MatchExpressions {
				if e.Key == hostnameLabel {
					return true
				}
			}
		}
	}
	return false
}

// splitByAffinity sorts nodes of one group by whether the pod's node
// selector and required affinity admit them, for a pod that tells the
// nodes of a group apart (perNode). A node that stands for a pool decides
// itself (a DaemonSet pod is not provisioned for: daemon).
func (ps *podSched) splitByAffinity(nodes []*k8s.Node, daemon bool) (good, bad []*k8s.Node) {
	for _, n := range nodes {
		compatible := n.Compatible
		if daemon && n.DaemonCompatible != nil {
			compatible = n.DaemonCompatible
		}
		if compatible != nil {
			if compatible(ps.selector, ps.affinity) == nil {
				good = append(good, n)
			} else {
				bad = append(bad, n)
			}
			continue
		}
		if ok, _ := ps.requiredAffinity().Match(&n.Node); ok {
			good = append(good, n)
		} else {
			bad = append(bad, n)
		}
	}
	return good, bad
}

// affinityFailure is the NodeAffinity filter's verdict on a node it
// rejects.
func affinityFailure() Verdict {
	return Verdict{Filter: NodeAffinity, Reasons: []string{ReasonAffinity}, Unresolvable: true, TaintIndex: -1}
}

// sharedAffinityFailure returns affinityFailure, made once for the
// results of one placement that share it.
func sharedAffinityFailure() func() *Verdict {
	var v *Verdict
	return func() *Verdict {
		if v == nil {
			f := affinityFailure()
			v = &f
		}
		return v
	}
}

// requiredAffinity is the pod's node selector and required node affinity
// as the NodeAffinity filter matches them; most pods hit the verdict cache
// and never need it.
func (ps *podSched) requiredAffinity() *nodeaffinity.RequiredNodeAffinity {
	if ps.required == nil {
		r := nodeaffinity.NewRequiredNodeAffinity(ps.selector, ps.affinity)
		ps.required = &r
	}
	return ps.required
}

func requiredTerms(aff *v1.Affinity) *v1.NodeSelector {
	if aff == nil || aff.NodeAffinity == nil {
		return nil
	}
	return aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

// schedKey is everything the cached part of the filters (evalGroup)
// reads of a pod: not its requests, which NodeResourcesFit compares per
// pod. Its key (key.go) is the verdict table's key.
type schedKey struct {
	Mode        string            `json:"mode"`
	Gate        bool              `json:"gate"`
	Tolerations []v1.Toleration   `json:"tolerations"`
	Selector    map[string]string `json:"selector"`
	Affinity    *v1.Affinity      `json:"affinity"`
	SkipAff     bool              `json:"skipAff"`
	PerNode     bool              `json:"perNode"`
}

func (ps *podSched) key(mode string) *schedKey {
	return &schedKey{Mode: mode, Gate: ps.gate, Tolerations: ps.tols, Selector: ps.selector, Affinity: ps.affinity, SkipAff: ps.skipAff, PerNode: ps.perNode}
}

var unschedulableTaint = v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}

func noScheduleOrNoExecute(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// verdict is a group's outcome for a pod, with NodeAffinity left open
// when the name matters.
type verdict struct {
	pre     *Verdict // failed NodeUnschedulable or TaintToleration
	affFail bool     // failed NodeAffinity (not perNode)
	post    *Verdict // NodeResourcesFit outcome, or a fit (pre == nil only)
}

// groupVerdict is the part of a group's verdict that does not depend on
// the pod's requests: the filters before NodeResourcesFit, and the
// PreferNoSchedule taints the pod does not tolerate.
type groupVerdict struct {
	pre     *Verdict
	affFail bool
	avoided []int // indexes into the group node's taints; shared, read only
}

// evalGroup runs the filters other than NodeResourcesFit on a group's
// representative node.
func (ps *podSched) evalGroup(g *Group) groupVerdict {
	n := g.Node
	if n.Spec.Unschedulable && !corev1helpers.TolerationsTolerateTaint(k8s.Logger(), ps.tols, &unschedulableTaint, ps.gate) {
		return groupVerdict{pre: &Verdict{Filter: NodeUnschedulable, Reasons: []string{ReasonUnschedulable}, Unresolvable: true, TaintIndex: -1}}
	}
	if taint, bad := corev1helpers.FindMatchingUntoleratedTaint(k8s.Logger(), n.Spec.Taints, ps.tols, noScheduleOrNoExecute, ps.gate); bad {
		return groupVerdict{pre: &Verdict{Filter: TaintToleration, Reasons: []string{ReasonTaint}, Unresolvable: true, TaintIndex: taintIndex(n.Spec.Taints, taint)}}
	}
	var v groupVerdict
	if !ps.skipAff && !ps.perNode {
		if c := g.Nodes[0].Compatible; c != nil { // a node pool
			v.affFail = c(ps.selector, ps.affinity) != nil
		} else if ok, _ := ps.requiredAffinity().Match(n); !ok {
			v.affFail = true
		}
	}
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect == v1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(k8s.Logger(), ps.tols, t, ps.gate) {
			v.avoided = append(v.avoided, i)
		}
	}
	return v
}

// resourceVerdict is NodeResourcesFit, then the PreferNoSchedule taints
// the pod does not tolerate when it fits.
func (ps *podSched) resourceVerdict(g *Group, avoided []int) Verdict {
	if g.alloc != nil && !fitsAll(ps.req, g.alloc) {
		if short := fits(ps.req, g.alloc); len(short) > 0 {
			v := Verdict{Filter: NodeResourcesFit, TaintIndex: -1, Shortfalls: short}
			for _, s := range short {
				v.Reasons = append(v.Reasons, s.Reason)
				v.Unresolvable = v.Unresolvable || s.Unresolvable
			}
			return v
		}
	}
	return Verdict{TaintIndex: -1, Avoided: avoided}
}

func taintIndex(taints []v1.Taint, t v1.Taint) int {
	for i := range taints {
		if taints[i].Key == t.Key && taints[i].Value == t.Value && taints[i].Effect == t.Effect {
			return i
		}
	}
	return -1
}

// verdicts returns the part of a pod's group verdicts that does not depend
// on its requests, from the run's table (workloads repeat tolerations and
// selectors far more than requests); NodeResourcesFit is a few comparisons
// per group, made for each pod (verdict, passes).
// The classes returned are those of the groups the verdicts were judged
// by: groups of one class have one verdict.
func (inv *Inventory) verdicts(ps *podSched, mode string) ([]groupVerdict, *classes) {
	k := inv.keys.get()
	defer inv.keys.put(k)
	ps.key(mode).writeKey(k)
	of := func() *classes { return inv.classes.of(inv.Groups, ps.labelKeys()) }
	j := inv.scheduler.get(k.b, len(inv.Groups), of, func(i int, c *classes, done []groupVerdict) groupVerdict {
		if r := c.rep(i); r != i {
			return done[r]
		}
		return ps.evalGroup(inv.Groups[i])
	})
	return j.vs, j.c
}

// labelKeys are the label keys evalGroup reads: none when it leaves
// NodeAffinity out (a pod without selectors, or one judged node by node).
func (ps *podSched) labelKeys() []string {
	if ps.skipAff || ps.perNode {
		return nil
	}
	return labelKeys(nil, ps.selector, ps.affinity)
}

// postVerdicts are a pod's NodeResourcesFit verdicts of the groups, made
// once per class of the groups for no label key refined by allocatable:
// the verdict reads the group's allocatable and (through gv) its taints
// and cordon only.
type postVerdicts struct {
	ps    *podSched
	c     *classes
	done  []bool
	posts []Verdict
	fit   []int8 // fitsAll by class: 0 unknown, 1 fits, 2 does not
}

func (inv *Inventory) postVerdicts(ps *podSched) *postVerdicts {
	return &postVerdicts{ps: ps, c: inv.classes.none.fit}
}

// verdict is ps.verdict(g, gv) for group i, g.
func (pv *postVerdicts) verdict(i int, g *Group, gv groupVerdict) verdict {
	if gv.pre != nil {
		return pv.ps.verdict(g, gv)
	}
	if pv.done == nil {
		pv.done = make([]bool, len(pv.c.reps))
		pv.posts = make([]Verdict, len(pv.c.reps))
	}
	k := pv.c.of[i]
	if !pv.done[k] {
		pv.done[k] = true
		pv.posts[k] = pv.ps.resourceVerdict(g, gv.avoided)
	}
	return verdict{affFail: gv.affFail, post: &pv.posts[k]}
}

// passes is ps.passes(g, gv) for group i, g.
func (pv *postVerdicts) passes(i int, g *Group, gv groupVerdict) (ok, avoided bool) {
	if gv.pre != nil || (!pv.ps.skipAff && gv.affFail) {
		return false, false
	}
	if g.alloc != nil {
		if pv.fit == nil {
			pv.fit = make([]int8, len(pv.c.reps))
		}
		k := pv.c.of[i]
		if pv.fit[k] == 0 {
			pv.fit[k] = 2
			if fitsAll(pv.ps.req, g.alloc) {
				pv.fit[k] = 1
			}
		}
		if pv.fit[k] != 1 {
			return false, false
		}
	}
	return true, len(gv.avoided) > 0
}

// verdict is group g's whole verdict for the pod, gv its cached part.
func (ps *podSched) verdict(g *Group, gv groupVerdict) verdict {
	v := verdict{pre: gv.pre, affFail: gv.affFail}
	if gv.pre == nil {
		post := ps.resourceVerdict(g, gv.avoided)
		v.post = &post
	}
	return v
}

// passes reports whether the pod passes every filter on group g's nodes
// (the name aside), and whether it then meets an untolerated
// PreferNoSchedule taint there, without building the verdict.
func (ps *podSched) passes(g *Group, gv groupVerdict) (ok, avoided bool) {
	if gv.pre != nil || (!ps.skipAff && gv.affFail) {
		return false, false
	}
	if g.alloc != nil && !fitsAll(ps.req, g.alloc) {
		return false, false
	}
	return true, len(gv.avoided) > 0
}

// allowedNames is the NodeAffinity PreFilter: when every required term has
// a matchFields metadata.name In, the union over terms of the
// intersection within each term; nil when any term has none (every node
// stays eligible).
func allowedNames(aff *v1.Affinity) sets.Set[string] {
	rna := requiredTerms(aff)
	if rna == nil {
		return nil
	}
	var names sets.Set[string]
	for _, t := range rna.NodeSelectorTerms {
		var term sets.Set[string]
		for _, r := range t.MatchFields {
			if r.Key == metav1.ObjectNameField && r.Operator == v1.NodeSelectorOpIn {
				s := sets.New(r.Values...)
				if term == nil {
					term = s
				} else {
					term = term.Intersection(s)
				}
			}
		}
		if term == nil {
			return nil
		}
		names = names.Union(term)
	}
	return names
}

// Place works out where w's pods can go.
func (inv *Inventory) Place(w *k8s.Workload, popts PlaceOptions) *Placement {
	return inv.PlacePod(w, k8s.EffectivePod(w, inv.opts.RuntimeClasses, inv.opts.Admission), popts)
}

// PlacePod is Place for w whose effective pod (k8s.EffectivePod with the
// inventory's options) is pod, already built.
func (inv *Inventory) PlacePod(w *k8s.Workload, pod *k8s.Pod, popts PlaceOptions) *Placement {
	opts := inv.opts
	p := &Placement{Workload: w, Pod: pod, Total: len(inv.Nodes), inv: inv, ert: opts.Admission.ExtendedResourceToleration}
	var overhead v1.ResourceList
	var class *k8s.RuntimeClass // the RuntimeClass with w's overhead
	if name := w.Spec.RuntimeClassName; name != nil {
		for _, rc := range opts.RuntimeClasses {
			if rc.Object.Name == *name && rc.RuntimeClass.Overhead != nil {
				class, overhead = rc, rc.RuntimeClass.Overhead.PodFixed
				break
			}
		}
	}
	req := inv.requests.podRequests(w, class)
	p.Requests, p.req = req.list, req.res
	switch {
	case w.IsDaemonSet():
		p.Mode = Daemon
	case w.Spec.NodeName != "":
		p.Mode = NodeName
	}
	if pod.Rejected != "" {
		p.Rejected = pod.Rejected
		return p
	}
	switch p.Mode {
	case Scheduled:
		inv.placeScheduled(p, popts)
	case NodeName:
		inv.placeNodeName(p, overhead)
	case Daemon:
		inv.placeDaemon(p, popts, overhead)
	}
	return p
}

func (inv *Inventory) placeScheduled(p *Placement, opts PlaceOptions) {
	pod := p.Pod
	ps := newPodSched(pod.V1Tolerations(), pod.NodeSelector, pod.Affinity, p.req, inv.opts.Gates)
	names := allowedNames(pod.Affinity)
	if names != nil && names.Len() == 0 {
		p.Conflict = true
		p.Message = conflictMessage(p.Total)
		return
	}
	vs, c := inv.verdicts(ps, "scheduler")
	pv := inv.postVerdicts(ps)
	if opts.Brief && names == nil && !ps.perNode && briefFit(p, inv, pv, vs, c) {
		return
	}
	p.Results = make([]Result, 0, len(inv.Groups)+1)
	affFailed := sharedAffinityFailure()
	// nodes of each group the PreFilter lets through.
	var allowed map[*Group][]*k8s.Node
	evaluated := p.Total
	if names != nil {
		p.AllowedNames = sets.List(names)
		allowed = map[*Group][]*k8s.Node{}
		evaluated = 0
		for _, name := range p.AllowedNames {
			if n := inv.byName[name]; n != nil {
				g := inv.group[n]
				allowed[g] = append(allowed[g], n)
				evaluated++
			}
		}
	}
	for i, g := range inv.Groups {
		nodes := g.Nodes
		if allowed != nil {
			nodes = allowed[g]
			if len(nodes) == 0 {
				continue
			}
		}
		v := pv.verdict(i, g, vs[i])
		switch {
		case v.pre != nil:
			p.Results = append(p.Results, Result{Group: g, Nodes: nodes, Verdict: v.pre})
		case ps.skipAff:
			p.Results = append(p.Results, Result{Group: g, Nodes: nodes, Verdict: v.post})
		case ps.perNode:
			good, bad := ps.splitByAffinity(nodes, false)
			if len(bad) > 0 {
				p.Results = append(p.Results, Result{Group: g, Nodes: bad, Verdict: affFailed()})
			}
			if len(good) > 0 {
				p.Results = append(p.Results, Result{Group: g, Nodes: good, Verdict: v.post})
			}
		case v.affFail:
			p.Results = append(p.Results, Result{Group: g, Nodes: nodes, Verdict: affFailed()})
		default:
			p.Results = append(p.Results, Result{Group: g, Nodes: nodes, Verdict: v.post})
		}
	}
	if absent := p.Total - evaluated; absent > 0 {
		p.Results = append(p.Results, Result{Nodes: inv.absentNodes(names, absent), Verdict: &Verdict{Filter: NodeAffinity, Reasons: []string{ReasonAbsent}, Unresolvable: true, Absent: true, TaintIndex: -1}})
	}
	for _, r := range p.Results {
		if r.Filter == "" {
			p.Fit += len(r.Nodes)
		}
	}
	if p.Fit == 0 {
		p.Message = fitErrorMessage(p.Total, p.Results, p.Pod.PreemptionPolicy == v1.PreemptNever, inv.pools)
	}
}

// briefFit sets p.Fit and reports true when the pod fits some node without
// an untolerated PreferNoSchedule taint (Options.Brief), for a pod whose
// verdicts hold for whole groups, and for whole classes c of groups (the
// classes the verdicts were judged by), refined by allocatable.
func briefFit(p *Placement, inv *Inventory, pv *postVerdicts, vs []groupVerdict, c *classes) bool {
	fit, clean := 0, false
	c = c.fit
	for k, i := range c.reps {
		ok, avoided := pv.passes(i, inv.Groups[i], vs[i])
		if !ok {
			continue
		}
		fit += c.nodes[k]
		clean = clean || !avoided
	}
	if clean {
		p.Fit, p.brief = fit, true
	}
	return clean
}
