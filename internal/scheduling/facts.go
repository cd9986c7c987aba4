package scheduling

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/taintlint/taintlint/k8s"
)

// This file computes the facts that taintlint's Rego rules (and users'
// policies) read as input.facts: everything that needs toleration
// matching, node selection or the DaemonSet controller's judgement is
// decided here, with the upstream helpers, so that no policy has to
// re-implement it (docs/policies.md describes the shape).

// Facts are the facts about one workload.
type Facts struct {
	Pod         *k8s.Pod
	Tolerations []TolerationFact
	// Builtin says, for each taint Kubernetes itself puts on nodes, which
	// toleration (if any) the pod's tolerations use for it.
	Builtin []BuiltinTaintFact
	// Groups are per node group verdicts; nil without an inventory. They
	// may be shared with other workloads' facts: read only.
	Groups []GroupFact
}

// TolerationFact is one effective toleration with what Go decided about it.
type TolerationFact struct {
	k8s.Toleration
	// Path is the manifest field path of a toleration written in the
	// manifest (in a placement, for a merged pod's), or of the one the
	// DaemonSet controller replaced; "" else.
	Path string
	// RuntimeTaint: the key is one of the taints nodes get only at run
	// time (node.kubernetes.io/*, cloud provider, autoscalers, configured).
	RuntimeTaint bool
	// Requested: the key is a resource a container or init container
	// requests or limits (nvidia.com/gpu): the request itself draws the
	// pod to the nodes that have it.
	Requested bool
	// ToleratesInventory: it tolerates at least one taint of one inventory
	// node (false without an inventory).
	ToleratesInventory bool
	// Nearest is the inventory taint closest to the toleration (by key,
	// then value and effect), when it tolerates none.
	Nearest *v1.Taint
	// Invalid: the API server rejects the toleration's key or value (a
	// validation rule reports it), so no other rule should speak of it.
	Invalid bool
	// ExplainedBy is the scheduling rule (pod-unschedulable,
	// daemonset-no-nodes) whose finding names this manifest toleration as
	// nearly matching a taint the workload needs, with the fix; "" else.
	// toleration-unmatched then says nothing: one cause, one finding.
	ExplainedBy string
	// Shadows are the indexes (in Tolerations) of later tolerations that
	// tolerate some NoExecute taint forever which this finite one also
	// tolerates: eviction uses this one, the first that matches.
	Shadows []int
}

// BuiltinTaintFact is the pod's answer to one built-in node taint.
type BuiltinTaintFact struct {
	v1.Taint
	// Toleration is the index of the first toleration that tolerates the
	// taint (the one eviction uses), or -1.
	Toleration int
}

// BuiltinTaints are the taints Kubernetes itself puts on nodes
// (SEMANTICS §7), with the values they carry.
var BuiltinTaints = []v1.Taint{
	{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeMemoryPressure, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeDiskPressure, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodePIDPressure, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeNetworkUnavailable, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule},
	{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: v1.TaintEffectNoSchedule},
	{Key: "node.cloudprovider.kubernetes.io/shutdown", Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: v1.TaintEffectNoExecute},
}

// IsConditionTaintKey reports whether key is one of the taints Kubernetes
// puts on a node for its state (BuiltinTaints: not-ready, unreachable,
// the pressure taints, network-unavailable, unschedulable, the cloud
// provider's uninitialized and shutdown, out-of-service). They come and go
// with the node's condition; a workload other than a DaemonSet should
// never be told to tolerate one.
func IsConditionTaintKey(key string) bool {
	for _, t := range BuiltinTaints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// runtimeTaintPrefixes and runtimeTaintKeys name taints that nodes carry
// only for a while (conditions, bootstrap, scale-down), or that mark a kind
// of node a pod may use rather than one dedicated to it (spot capacity, an
// architecture), so a toleration of them is right even when no inventory
// node has them now, and needs no selector beside it.
var (
	runtimeTaintPrefixes = []string{"node.kubernetes.io/", "node.cloudprovider.kubernetes.io/", "karpenter.sh/", "karpenter.k8s.aws/", "node.cilium.io/", "cluster-autoscaler.kubernetes.io/"}
	runtimeTaintKeys     = []string{"ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler", "node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master", "CriticalAddonsOnly", "eks.amazonaws.com/compute-type", "kubernetes.azure.com/scalesetpriority", "cloud.google.com/gke-spot", "cloud.google.com/gke-preemptible", "kubernetes.io/arch", "kubernetes.io/os", "eks.amazonaws.com/capacityType"}
)

// IsRuntimeTaintKey reports whether key names a taint that appears on
// nodes only at run time, or that an inventory snapshot often lacks.
func IsRuntimeTaintKey(key string, extra []string) bool {
	for _, p := range runtimeTaintPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	for _, k := range runtimeTaintKeys {
		if key == k {
			return true
		}
	}
	for _, k := range extra {
		if key == k || strings.HasSuffix(k, "*") && strings.HasPrefix(key, strings.TrimSuffix(k, "*")) {
			return true
		}
	}
	return false
}

// GroupVerdict is a node group's verdict for a workload, as input.facts
// gives it.
type GroupVerdict struct {
	// Selected: nodeName, nodeSelector (with a RuntimeClass's) and required
	// node affinity all admit the nodes.
	Selected bool
	// Untolerated are the NoSchedule and NoExecute taints no toleration
	// tolerates, in node order (for DaemonSets, with the controller's
	// tolerations only, as the controller decides).
	Untolerated []v1.Taint
	// CordonTolerated: the node is not cordoned, or the pod tolerates
	// node.kubernetes.io/unschedulable:NoSchedule (the scheduler's
	// NodeUnschedulable filter).
	CordonTolerated bool
	// Daemon is the DaemonSet controller's verdict, for DaemonSets.
	Daemon *DaemonPlacement
	// Evicted is set when the pod tolerates every NoExecute taint of the
	// nodes but the toleration eviction uses for one of them is finite.
	Evicted *Eviction
}

// GroupFact is one node group as the workload sees it.
type GroupFact struct {
	Group *Group
	Nodes []*k8s.Node // the group's nodes this verdict is for
	GroupVerdict
}

// Key stands for the fact's value: facts with equal keys are about the
// same nodes of the same group with equal verdicts (Rego shares their
// input.facts.nodeGroups entries between workloads). It is worked out
// when asked for: only policies that read input.facts.nodeGroups do, and
// a run's facts hold a fact per node group for every judge key.
func (g *GroupFact) Key() string {
	var names []string
	if len(g.Nodes) != len(g.Group.Nodes) {
		for _, n := range g.Nodes {
			names = append(names, n.Node.Name)
		}
	}
	k := groupFactKey{g.Group.index, names, g.GroupVerdict}
	return string(keyOf(&k))
}

// Eviction says when a pod that the node admits is evicted from it.
type Eviction struct {
	Seconds int64 // the smallest tolerationSeconds among the used tolerations (<= 0: at once)
	// Tolerations are the indexes of the finite tolerations used, and
	// Taints the NoExecute taints they are used for, pairwise.
	Tolerations []int
	Taints      []v1.Taint
}

// factsInput is everything the facts of a workload are computed from
// (PodFacts reads nothing else), so that its key (key.go), the facts key,
// says when two workloads get equal facts.
type factsInput struct {
	DaemonSet   bool              `json:"daemonSet"`
	SpecPath    string            `json:"specPath"`
	NodeName    string            `json:"nodeName"`
	Rejected    string            `json:"rejected"`
	Tolerations []k8s.Toleration  `json:"tolerations"`
	Selector    map[string]string `json:"selector"`
	Affinity    *v1.Affinity      `json:"affinity"`
	// Requested are the resource names the containers and init
	// containers request or limit, sorted, each once.
	Requested []string `json:"requested"`
	// Template is what the DaemonSet controller reads, for DaemonSets.
	Template *daemonTemplate `json:"template"`
}

func newFactsInput(w *k8s.Workload, pod *k8s.Pod, gates k8s.FeatureGates) *factsInput {
	return newFactsInputRequesting(w, pod, gates, requestedResources(&w.Spec))
}

// newFactsInputRequesting is newFactsInput with requested, the
// requestedResources of w's spec, already known.
func newFactsInputRequesting(w *k8s.Workload, pod *k8s.Pod, gates k8s.FeatureGates, requested []string) *factsInput {
	in := &factsInput{DaemonSet: w.IsDaemonSet(), SpecPath: w.SpecPathString(), NodeName: w.Spec.NodeName, Rejected: pod.Rejected, Tolerations: pod.Tolerations, Selector: pod.NodeSelector, Affinity: pod.Affinity, Requested: requested}
	if in.DaemonSet {
		in.Template = newDaemonTemplate(w, gates)
	}
	return in
}

// FactsKey is the key of w's facts (pod is its effective pod): workloads
// with equal keys get equal facts from one inventory and options, so a run
// computes them once per key.
func FactsKey(w *k8s.Workload, pod *k8s.Pod, opts Options) string {
	return string(keyOf(newFactsInput(w, pod, opts.Gates)))
}

// Facts computes the facts of one workload; inv may be nil (no inventory).
func (inv *Inventory) Facts(w *k8s.Workload, opts Options) *Facts {
	return inv.PodFacts(w, k8s.EffectivePod(w, opts.RuntimeClasses, opts.Admission), opts, true)
}

// PodFacts computes the facts of w whose effective pod is pod (EffectivePod
// with opts.Admission); inv may be nil. Workloads with the same FactsKey
// get equal facts. Without groups, Groups stays nil: the group verdicts
// are most of the cost, and most readers of the facts do not look at them.
func (inv *Inventory) PodFacts(w *k8s.Workload, pod *k8s.Pod, opts Options, groups bool) *Facts {
	return inv.computeFacts(newFactsInput(w, pod, opts.Gates), pod, opts, groups)
}

// FactsTable shares facts between the workloads of one run: workloads
// with one facts key (FactsKey) get one SharedFacts, computed for the
// first of them. It grows with the run's distinct keys. Safe for
// concurrent use.
type FactsTable struct {
	inv  *Inventory // nil without an inventory
	opts Options
	mu   sync.Mutex
	m    map[string]*SharedFacts
	// requested are requestedResources by requests class (read only).
	requested map[*k8s.RequestsClass][]string
	keys      keyBufs
}

// NewFactsTable returns an empty table for the run's inventory (nil
// without one) and options.
func (inv *Inventory) NewFactsTable(opts Options) *FactsTable {
	return &FactsTable{inv: inv, opts: opts, m: map[string]*SharedFacts{}, requested: map[*k8s.RequestsClass][]string{}}
}

// SharedFacts are the facts of the workloads of one facts key. Read only.
type SharedFacts struct {
	// ID numbers the table's entries, from 0, in the order they were
	// first met.
	ID int

	in       *factsInput
	t        *FactsTable
	base     *Facts // without node groups
	once     sync.Once
	withNode *Facts // with them, made when first asked for
}

// Of returns the facts of w, whose effective pod is pod (EffectivePod with
// the table's admission options).
func (t *FactsTable) Of(w *k8s.Workload, pod *k8s.Pod) *SharedFacts {
	in := newFactsInputRequesting(w, pod, t.opts.Gates, t.requestedBy(w))
	k := t.keys.get()
	defer t.keys.put(k)
	in.writeKey(k)
	key := k.b
	t.mu.Lock()
	s := t.m[string(key)]
	t.mu.Unlock()
	if s != nil {
		return s
	}
	s = &SharedFacts{in: in, t: t, base: t.inv.computeFacts(in, pod, t.opts, false)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if prev := t.m[string(key)]; prev != nil { // another worker was first
		return prev
	}
	s.ID = len(t.m)
	t.m[string(key)] = s
	return s
}

// requestedBy is requestedResources of w's spec, shared by requests class
// (k8s.RequestsClass: the names come from the containers' resources).
func (t *FactsTable) requestedBy(w *k8s.Workload) []string {
	if w.Requests == nil {
		return requestedResources(&w.Spec)
	}
	t.mu.Lock()
	names, ok := t.requested[w.Requests]
	t.mu.Unlock()
	if ok {
		return names
	}
	names = requestedResources(&w.Spec)
	t.mu.Lock()
	t.requested[w.Requests] = names
	t.mu.Unlock()
	return names
}

// Facts are the facts, with node group verdicts when groups (and there is
// an inventory): PodFacts of the first workload of the key. Their Pod is
// that workload's effective pod, equal to every other's wherever the facts
// read it.
func (s *SharedFacts) Facts(groups bool) *Facts {
	if !groups || s.t.inv == nil {
		return s.base
	}
	s.once.Do(func() {
		f := *s.base
		f.Groups = s.t.inv.groupFacts(s.in, s.in.v1Tolerations(), s.t.opts.Gates.TaintTolerationComparisonOperators)
		s.withNode = &f
	})
	return s.withNode
}

// v1Tolerations are the pod's tolerations as k8s.io/api values.
func (in *factsInput) v1Tolerations() []v1.Toleration {
	tols := make([]v1.Toleration, len(in.Tolerations))
	for i, t := range in.Tolerations {
		tols[i] = t.Toleration
	}
	return tols
}

func (inv *Inventory) computeFacts(in *factsInput, pod *k8s.Pod, opts Options, groups bool) *Facts {
	f := &Facts{Pod: pod}
	gate := opts.Gates.TaintTolerationComparisonOperators
	tols := in.v1Tolerations()
	tolPath := func(i int) string {
		return in.SpecPath + ".tolerations[" + strconv.Itoa(i) + "]"
	}
	f.Tolerations = make([]TolerationFact, len(in.Tolerations))
	for i, t := range in.Tolerations {
		tf := TolerationFact{Toleration: t, RuntimeTaint: t.Key != "" && IsRuntimeTaintKey(t.Key, opts.RuntimeTaintKeys), Requested: slices.Contains(in.Requested, t.Key), Invalid: invalidKeyOrValue(&t.Toleration)}
		switch {
		case t.Path != "":
			tf.Path = t.Path
		case t.Index >= 0:
			tf.Path = tolPath(t.Index)
		case t.Replaces >= 0:
			tf.Path = tolPath(t.Replaces)
		}
		if inv != nil {
			tf.ToleratesInventory = inv.Tolerates(&t.Toleration, gate)
			if !tf.ToleratesInventory {
				tf.Nearest = inv.NearestTaint(&t.Toleration, in.DaemonSet)
			}
		}
		tf.Shadows = shadows(tols, i, gate)
		f.Tolerations[i] = tf
	}
	for _, bt := range BuiltinTaints {
		f.Builtin = append(f.Builtin, BuiltinTaintFact{Taint: bt, Toleration: firstTolerating(tols, &bt, gate)})
	}
	if inv != nil && groups {
		f.Groups = inv.groupFacts(in, tols, gate)
	}
	return f
}

// Tolerates reports whether t tolerates some taint of some inventory node.
func (inv *Inventory) Tolerates(t *v1.Toleration, gate bool) bool {
	for i := range inv.Taints {
		if t.ToleratesTaint(k8s.Logger(), &inv.Taints[i].Taint, gate) {
			return true
		}
	}
	return false
}

// Explain sets ExplainedBy to rule on the tolerations written at the
// manifest indexes given (of the merged pod's list, for a merged pod).
func (f *Facts) Explain(rule string, manifestIndexes []int) {
	for i := range f.Tolerations {
		t := &f.Tolerations[i]
		if (t.Source == k8s.FromManifest || t.Source == k8s.FromPlacement) && slices.Contains(manifestIndexes, t.Index) {
			t.ExplainedBy = rule
		}
	}
}

// invalidKeyOrValue reports whether the API server rejects t's key (not a
// qualified name) or, under Equal, its value (not a label value).
func invalidKeyOrValue(t *v1.Toleration) bool {
	if t.Key != "" && len(validation.IsQualifiedName(t.Key)) > 0 {
		return true
	}
	if t.Operator == v1.TolerationOpEqual || t.Operator == "" {
		return len(validation.IsValidLabelValue(t.Value)) > 0
	}
	return false
}

// firstTolerating is the index of the first toleration that tolerates
// taint (GetMatchingTolerations' choice), or -1.
func firstTolerating(tols []v1.Toleration, taint *v1.Taint, gate bool) int {
	for i := range tols {
		if tols[i].ToleratesTaint(k8s.Logger(), taint, gate) {
			return i
		}
	}
	return -1
}

func noExecuteCapable(t *v1.Toleration) bool {
	return t.Effect == "" || t.Effect == v1.TaintEffectNoExecute
}

// shadows lists the later tolerations that tolerate forever some NoExecute
// taint which tolerations[i], finite, tolerates first. A witness taint is
// searched among the keys and values both tolerations name.
func shadows(tols []v1.Toleration, i int, gate bool) []int {
	t := &tols[i]
	if t.TolerationSeconds == nil || !noExecuteCapable(t) {
		return nil
	}
	var out []int
	for j := i + 1; j < len(tols); j++ {
		u := &tols[j]
		if u.TolerationSeconds != nil || !noExecuteCapable(u) {
			continue
		}
		if witness(t, u, gate) {
			out = append(out, j)
		}
	}
	return out
}

// witness reports whether some NoExecute taint is tolerated by both a and b.
func witness(a, b *v1.Toleration, gate bool) bool {
	keys := []string{a.Key, b.Key}
	if a.Key == "" && b.Key == "" {
		keys = []string{"example.com/any"}
	}
	values := []string{a.Value, b.Value, "", "x"}
	for _, v := range []string{a.Value, b.Value} {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			values = append(values, strconv.FormatInt(n+1, 10), strconv.FormatInt(n-1, 10))
		}
	}
	for _, k := range keys {
		if k == "" {
			continue
		}
		for _, v := range values {
			taint := v1.Taint{Key: k, Value: v, Effect: v1.TaintEffectNoExecute}
			if a.ToleratesTaint(k8s.Logger(), &taint, gate) && b.ToleratesTaint(k8s.Logger(), &taint, gate) {
				return true
			}
		}
	}
	return false
}

// groupJudge is what the facts' group verdicts read of a workload; its
// key (key.go) is the key of the run's facts verdict table.
type groupJudge struct {
	DaemonSet bool `json:"daemonSet"`
	// Judge are the tolerations untolerated taints are judged with (the
	// controller's for a DaemonSet), Tolerations the pod's.
	Judge       []v1.Toleration   `json:"judge"`
	Tolerations []v1.Toleration   `json:"tolerations"`
	NodeName    string            `json:"nodeName"`
	Rejected    bool              `json:"rejected"`
	Selector    map[string]string `json:"selector"`
	Affinity    *v1.Affinity      `json:"affinity"`
	Template    *daemonTemplate   `json:"template"`
	Gate        bool              `json:"gate"`

	match *nodeaffinity.RequiredNodeAffinity // made when first needed (required)
}

// required is the workload's node selector and required node affinity as
// the NodeAffinity filter matches them; made only when a group is judged,
// which the run's table spares most workloads.
func (j *groupJudge) required() *nodeaffinity.RequiredNodeAffinity {
	if j.match == nil {
		r := nodeaffinity.NewRequiredNodeAffinity(j.Selector, j.Affinity)
		j.match = &r
	}
	return j.match
}

// groupFacts are the group verdicts of a workload. Unless the name of a
// node matters, they come from the run's table, shared with every
// workload of the same judge key: the facts of a workload cost nothing
// per group once its key has been met, and readers must not modify them.
func (inv *Inventory) groupFacts(in *factsInput, tols []v1.Toleration, gate bool) []GroupFact {
	j := &groupJudge{DaemonSet: in.DaemonSet, Judge: tols, Tolerations: tols, NodeName: in.NodeName, Rejected: in.Rejected != "", Selector: in.Selector, Affinity: in.Affinity, Template: in.Template, Gate: gate}
	if in.Template != nil {
		j.Judge = in.Template.Tolerations
	}
	each := in.NodeName != "" || namesNode(in.Selector, in.Affinity) || in.Template != nil && (in.Template.NodeName != "" || namesNode(in.Template.Selector, in.Template.Affinity))
	if !each {
		of := func() *classes { return inv.classes.of(inv.Groups, j.labelKeys()) }
		return inv.facts.get(keyOf(j), len(inv.Groups), of, func(i int, c *classes, done []GroupFact) GroupFact {
			g := inv.Groups[i]
			if r := c.rep(i); r != i {
				return GroupFact{Group: g, Nodes: g.Nodes, GroupVerdict: done[r].GroupVerdict}
			}
			return GroupFact{Group: g, Nodes: g.Nodes, GroupVerdict: j.judge(g.Nodes[0])}
		}).vs
	}
	out := make([]GroupFact, 0, len(inv.Groups))
	for _, g := range inv.Groups {
		// Judge node by node, then merge neighbours with the same verdict.
		start := len(out)
		for _, n := range g.Nodes {
			f := GroupFact{Group: g, Nodes: []*k8s.Node{n}, GroupVerdict: j.judge(n)}
			merged := false
			for k := start; k < len(out); k++ {
				if sameVerdict(&out[k].GroupVerdict, &f.GroupVerdict) {
					out[k].Nodes = append(out[k].Nodes, n)
					merged = true
					break
				}
			}
			if !merged {
				out = append(out, f)
			}
		}
	}
	return out
}

// labelKeys are the label keys judge reads: the pod's node selector and
// required node affinity, and the DaemonSet template's.
func (j *groupJudge) labelKeys() []string {
	keys := labelKeys(nil, j.Selector, j.Affinity)
	if j.Template != nil {
		keys = labelKeys(keys, j.Template.Selector, j.Template.Affinity)
	}
	return keys
}

func sameVerdict(a, b *GroupVerdict) bool {
	if a.Selected != b.Selected || len(a.Untolerated) != len(b.Untolerated) || a.CordonTolerated != b.CordonTolerated {
		return false
	}
	if (a.Daemon == nil) != (b.Daemon == nil) || a.Daemon != nil && (a.Daemon.ShouldRun != b.Daemon.ShouldRun || a.Daemon.Reason != b.Daemon.Reason) {
		return false
	}
	return (a.Evicted == nil) == (b.Evicted == nil)
}

func (j *groupJudge) judge(n *k8s.Node) GroupVerdict {
	node := &n.Node
	var f GroupVerdict
	f.Selected = !j.Rejected && (j.NodeName == "" || j.NodeName == node.Name)
	if f.Selected {
		if n.Compatible != nil { // a node pool decides
			f.Selected = n.Compatible(j.Selector, j.Affinity) == nil
		} else {
			ok, _ := j.required().Match(node)
			f.Selected = ok
		}
	}
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if !noScheduleOrNoExecute(t) {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(k8s.Logger(), j.Judge, t, j.Gate) {
			f.Untolerated = append(f.Untolerated, v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
	}
	f.CordonTolerated = !node.Spec.Unschedulable || corev1helpers.TolerationsTolerateTaint(k8s.Logger(), j.Tolerations, &unschedulableTaint, j.Gate)
	if j.Template != nil {
		d := j.Template.shouldRun(n)
		f.Daemon = &d
	}
	if len(f.Untolerated) == 0 {
		f.Evicted = eviction(j.Tolerations, node.Spec.Taints, j.Gate)
	}
	return f
}

// eviction is the taint-eviction controller's view of a pod on a node
// whose NoExecute taints it all tolerates: the first tolerating toleration
// per taint, and the smallest finite seconds among them.
func eviction(tols []v1.Toleration, taints []v1.Taint, gate bool) *Eviction {
	var e *Eviction
	for i := range taints {
		t := &taints[i]
		if t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		j := firstTolerating(tols, t, gate)
		if j < 0 || tols[j].TolerationSeconds == nil {
			continue
		}
		s := *tols[j].TolerationSeconds
		if e == nil {
			e = &Eviction{Seconds: s}
		}
		e.Seconds = min(e.Seconds, s)
		e.Tolerations = append(e.Tolerations, j)
		e.Taints = append(e.Taints, v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return e
}

// FixToleration is the toleration that would tolerate taint: Exists for
// its key and effect (every value), so a value change does not break it.
func FixToleration(t v1.Taint) v1.Toleration {
	return v1.Toleration{Key: t.Key, Operator: v1.TolerationOpExists, Effect: t.Effect}
}

// requestedResources are the resource names the containers and init
// containers request or limit, sorted, each once.
func requestedResources(spec *v1.PodSpec) []string {
	var names []string
	for _, cs := range [][]v1.Container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			for _, rl := range []v1.ResourceList{cs[i].Resources.Requests, cs[i].Resources.Limits} {
				for name := range rl {
					names = append(names, string(name))
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
