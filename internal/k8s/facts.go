package k8s

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/taintlint/taintlint/internal/textdist"
)

// This file computes the facts that taintlint's Rego rules (and users'
// policies) read as input.facts: everything that needs toleration
// matching, node selection or the DaemonSet controller's judgement is
// decided here, with the upstream helpers, so that no policy has to
// re-implement it (docs/policies.md describes the shape).

// Inventory is the node inventory prepared once per run: nodes grouped,
// the distinct taints counted.
type Inventory struct {
	Nodes  []*Node
	Groups []*NodeGroup
	// Taints are the distinct taints (key, value, effect) of the
	// inventory, sorted, each with how many nodes carry it.
	Taints []TaintCount

	// nearestCache holds nearestTaint's answers by nearestKey (a
	// *v1.Taint, or nil for none).
	nearestCache sync.Map
}

// NodeGroup is a set of nodes that look the same to scheduling: the same
// labels (apart from kubernetes.io/hostname), taints and spec.unschedulable.
type NodeGroup struct {
	Nodes []*Node // in inventory order; Nodes[0] stands for the group
}

// TaintCount is a distinct taint of the inventory.
type TaintCount struct {
	v1.Taint
	Nodes int
}

// hostnameLabel differs on every node; nodes are grouped without it, and
// workloads that select on it are judged node by node.
const hostnameLabel = v1.LabelHostname

// NewInventory groups nodes. It returns nil for an empty inventory.
func NewInventory(nodes []*Node) *Inventory {
	if len(nodes) == 0 {
		return nil
	}
	inv := &Inventory{Nodes: nodes}
	byKey := map[string]*NodeGroup{}
	counts := map[v1.Taint]int{}
	for _, n := range nodes {
		k := groupKey(&n.Node)
		g := byKey[k]
		if g == nil {
			g = &NodeGroup{}
			byKey[k] = g
			inv.Groups = append(inv.Groups, g)
		}
		g.Nodes = append(g.Nodes, n)
		seen := map[v1.Taint]bool{}
		for _, t := range n.Node.Spec.Taints {
			t := v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
			if !seen[t] {
				seen[t] = true
				counts[t]++
			}
		}
	}
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

func groupKey(n *v1.Node) string {
	var b strings.Builder
	WriteNodeKey(&b, n, false)
	return b.String()
}

// WriteNodeKey writes what every node filter and the DaemonSet controller
// read of a node, apart from its name and resources: labels (without
// kubernetes.io/hostname unless byHostname), taints and the cordon. Nodes
// with equal keys get equal verdicts from them.
func WriteNodeKey(b *strings.Builder, n *v1.Node, byHostname bool) {
	keys := make([]string, 0, len(n.Labels))
	for k := range n.Labels {
		if byHostname || k != hostnameLabel {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		b.WriteString(strconv.Quote(n.Labels[k]))
		b.WriteByte(',')
	}
	b.WriteString("|taints:")
	for _, t := range n.Spec.Taints {
		b.WriteString(strconv.Quote(t.Key) + "=" + strconv.Quote(t.Value) + ":" + strconv.Quote(string(t.Effect)) + ",")
	}
	if n.Spec.Unschedulable {
		b.WriteString("|cordoned")
	}
}

// FactsOptions are the run's settings that facts depend on.
type FactsOptions struct {
	Gates FeatureGates
	// RuntimeTaintKeys are extra taint keys that appear on nodes only at
	// run time (.taintlint.yaml runtimeTaints), beside the well-known ones.
	RuntimeTaintKeys []string
	// Admission is the run's admission settings, with what the plugins
	// read from the inputs (Admission.WithObjects): the effective pod, and
	// so the facts, include what enabled plugins add or reject.
	Admission Admission
}

// Facts are the facts about one workload.
type Facts struct {
	Pod         *Pod
	Tolerations []TolerationFact
	// Builtin says, for each taint Kubernetes itself puts on nodes, which
	// toleration (if any) the pod's tolerations use for it.
	Builtin []BuiltinTaintFact
	// Groups are per node group verdicts; nil without an inventory.
	Groups []GroupFact
}

// TolerationFact is one effective toleration with what Go decided about it.
type TolerationFact struct {
	Toleration
	// Path is the manifest field path of a toleration written in the
	// manifest, or of the one the DaemonSet controller replaced; "" else.
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

// GroupFact is one node group as the workload sees it.
type GroupFact struct {
	Group *NodeGroup
	Nodes []*Node // the group's nodes this verdict is for
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

// Eviction says when a pod that the node admits is evicted from it.
type Eviction struct {
	Seconds int64 // the smallest tolerationSeconds among the used tolerations (<= 0: at once)
	// Tolerations are the indexes of the finite tolerations used, and
	// Taints the NoExecute taints they are used for, pairwise.
	Tolerations []int
	Taints      []v1.Taint
}

// ComputeFacts computes the facts of one workload. inv may be nil.
func ComputeFacts(w *Workload, rcs []*RuntimeClass, inv *Inventory, opts FactsOptions) *Facts {
	return PodFacts(w, EffectivePod(w, rcs, opts.Admission), inv, opts)
}

// PodFacts computes the facts of w whose effective pod is pod (EffectivePod
// with opts.Admission). What it reads of w and pod is exactly what
// FactsKey encodes: two workloads with the same key, the same inv and
// opts get equal facts.
func PodFacts(w *Workload, pod *Pod, inv *Inventory, opts FactsOptions) *Facts {
	f := &Facts{Pod: pod}
	gate := opts.Gates.TaintTolerationComparisonOperators
	tols := pod.V1Tolerations()
	f.Tolerations = make([]TolerationFact, len(pod.Tolerations))
	requested := requestedResources(&w.Spec)
	for i, t := range pod.Tolerations {
		tf := TolerationFact{Toleration: t, RuntimeTaint: t.Key != "" && IsRuntimeTaintKey(t.Key, opts.RuntimeTaintKeys), Requested: slices.Contains(requested, t.Key), Invalid: invalidKeyOrValue(&t.Toleration)}
		switch {
		case t.Index >= 0:
			tf.Path = w.SpecPath.Child("tolerations").Index(t.Index).String()
		case t.Replaces >= 0:
			tf.Path = w.SpecPath.Child("tolerations").Index(t.Replaces).String()
		}
		if inv != nil {
			tf.ToleratesInventory = toleratesAny(&t.Toleration, inv, gate)
			if !tf.ToleratesInventory {
				tf.Nearest = inv.nearest(&t.Toleration)
				if tf.Nearest != nil && !w.IsDaemonSet() && IsConditionTaintKey(tf.Nearest.Key) {
					tf.Nearest = nil // never advise tolerating a node's condition
				}
			}
		}
		tf.Shadows = shadows(tols, i, gate)
		f.Tolerations[i] = tf
	}
	for _, bt := range BuiltinTaints {
		f.Builtin = append(f.Builtin, BuiltinTaintFact{Taint: bt, Toleration: firstTolerating(tols, &bt, gate)})
	}
	if inv != nil {
		f.Groups = groupFacts(w, pod, tols, inv, gate)
	}
	return f
}

// Tolerates reports whether t tolerates some taint of some inventory node.
func (inv *Inventory) Tolerates(t *v1.Toleration, gate bool) bool {
	return toleratesAny(t, inv, gate)
}

// Explain sets ExplainedBy to rule on the tolerations written at the
// manifest indexes given.
func (f *Facts) Explain(rule string, manifestIndexes []int) {
	for i := range f.Tolerations {
		t := &f.Tolerations[i]
		if t.Source == FromManifest && slices.Contains(manifestIndexes, t.Index) {
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

func toleratesAny(t *v1.Toleration, inv *Inventory, gate bool) bool {
	for i := range inv.Taints {
		if t.ToleratesTaint(Logger(), &inv.Taints[i].Taint, gate) {
			return true
		}
	}
	return false
}

// nearest is nearestTaint(t, inv), computed once per key, value and
// effect for the inventory: many workloads repeat the same tolerations, and
// every candidate costs two edit distances.
func (inv *Inventory) nearest(t *v1.Toleration) *v1.Taint {
	k := nearestKey{t.Key, t.Value, t.Effect}
	if v, ok := inv.nearestCache.Load(k); ok {
		if v == nil {
			return nil
		}
		out := *v.(*v1.Taint)
		return &out
	}
	n := nearestTaint(t, inv)
	if n == nil {
		inv.nearestCache.Store(k, nil)
		return nil
	}
	keep := *n
	inv.nearestCache.Store(k, &keep)
	return n
}

type nearestKey struct {
	key, value string
	effect     v1.TaintEffect
}

// nearestTaint picks the inventory taint most like t: the smallest edit
// distance over the key, then over the value, then the same effect.
func nearestTaint(t *v1.Toleration, inv *Inventory) *v1.Taint {
	var best *v1.Taint
	bestScore := -1
	for i := range inv.Taints {
		c := &inv.Taints[i].Taint
		score := textdist.Levenshtein(t.Key, c.Key)*10000 + textdist.Levenshtein(t.Value, c.Value)*10
		if t.Effect != "" && t.Effect != c.Effect {
			score++
		}
		if best == nil || score < bestScore {
			best, bestScore = c, score
		}
	}
	if best == nil {
		return nil
	}
	// A suggestion only helps when it is close: within a third of the key
	// (so a one-letter key gets none unless the key itself matches).
	if t.Key != "" && textdist.Levenshtein(t.Key, best.Key) > len(t.Key)/3 {
		return nil
	}
	out := *best
	return &out
}

// firstTolerating is the index of the first toleration that tolerates
// taint (GetMatchingTolerations' choice), or -1.
func firstTolerating(tols []v1.Toleration, taint *v1.Taint, gate bool) int {
	for i := range tols {
		if tols[i].ToleratesTaint(Logger(), taint, gate) {
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
			if a.ToleratesTaint(Logger(), &taint, gate) && b.ToleratesTaint(Logger(), &taint, gate) {
				return true
			}
		}
	}
	return false
}

// perNode reports whether w's placement may differ between nodes of one
// group: it names a node, or selects on the hostname label or a field.
func perNode(pod *Pod) bool {
	if pod.Workload.Spec.NodeName != "" {
		return true
	}
	if _, ok := pod.NodeSelector[hostnameLabel]; ok {
		return true
	}
	a := pod.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(term.MatchFields) > 0 {
			return true
		}
		for _, e := range term.MatchExpressions {
			if e.Key == hostnameLabel {
				return true
			}
		}
	}
	return false
}

func groupFacts(w *Workload, pod *Pod, tols []v1.Toleration, inv *Inventory, gate bool) []GroupFact {
	judgeTols := tols
	if w.IsDaemonSet() {
		judgeTols = DaemonPodTolerations(w)
	}
	sel := nodeaffinity.NewRequiredNodeAffinity(pod.NodeSelector, pod.Affinity)
	each := perNode(pod)
	var out []GroupFact
	for _, g := range inv.Groups {
		if !each {
			out = append(out, judge(w, pod, sel, judgeTols, tols, g, g.Nodes, gate))
			continue
		}
		// Judge node by node, then merge neighbours with the same verdict.
		start := len(out)
		for _, n := range g.Nodes {
			f := judge(w, pod, sel, judgeTols, tols, g, []*Node{n}, gate)
			merged := false
			for k := start; k < len(out); k++ {
				if sameVerdict(&out[k], &f) {
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

func sameVerdict(a, b *GroupFact) bool {
	if a.Selected != b.Selected || len(a.Untolerated) != len(b.Untolerated) || a.CordonTolerated != b.CordonTolerated {
		return false
	}
	if (a.Daemon == nil) != (b.Daemon == nil) || a.Daemon != nil && (a.Daemon.ShouldRun != b.Daemon.ShouldRun || a.Daemon.Reason != b.Daemon.Reason) {
		return false
	}
	return (a.Evicted == nil) == (b.Evicted == nil)
}

func judge(w *Workload, pod *Pod, sel nodeaffinity.RequiredNodeAffinity, judgeTols, tols []v1.Toleration, g *NodeGroup, nodes []*Node, gate bool) GroupFact {
	node := &nodes[0].Node
	f := GroupFact{Group: g, Nodes: nodes}
	f.Selected = pod.Rejected == "" && (w.Spec.NodeName == "" || w.Spec.NodeName == node.Name)
	if f.Selected {
		if c := nodes[0].Compatible; c != nil {
			f.Selected = c(pod.NodeSelector, pod.Affinity) == nil
		} else {
			ok, _ := sel.Match(node)
			f.Selected = ok
		}
	}
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect != v1.TaintEffectNoSchedule && t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(Logger(), judgeTols, t, gate) {
			f.Untolerated = append(f.Untolerated, v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
	}
	unsched := v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}
	f.CordonTolerated = !node.Spec.Unschedulable || corev1helpers.TolerationsTolerateTaint(Logger(), tols, &unsched, gate)
	if w.IsDaemonSet() {
		d := ShouldRunDaemonPodOn(w, nodes[0], FeatureGates{TaintTolerationComparisonOperators: gate})
		f.Daemon = &d
	}
	if len(f.Untolerated) == 0 {
		f.Evicted = eviction(tols, node.Spec.Taints, gate)
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

// FactsKey encodes everything PodFacts reads of w and pod (and what the
// input.facts document adds from w): workloads with equal keys get equal
// facts from the same inventory and options, so a run computes them once
// per key. A field PodFacts starts to read must be added here, or
// workloads that differ in it would share facts
// (TestFactsKeyCoversInputs in package rego holds the two together).
func FactsKey(w *Workload, pod *Pod) string {
	b := make([]byte, 0, 256)
	daemon := w.IsDaemonSet()
	b = strconv.AppendBool(b, daemon)
	b = append(b, '|')
	b = append(b, w.SpecPath.String()...)
	b = append(b, '|')
	b = appendStr(b, w.Spec.NodeName)
	b = appendStr(b, pod.Rejected)
	b = append(b, '|')
	for _, t := range pod.Tolerations {
		b = appendToleration(b, &t.Toleration)
		b = append(b, t.Source...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.Index), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.Replaces), 10)
		b = append(b, ';')
	}
	b = append(b, '|')
	b = appendSelector(b, pod.NodeSelector)
	b = appendAffinity(b, pod.Affinity)
	b = append(b, "|req|"...)
	for _, name := range requestedResources(&w.Spec) {
		b = appendStr(b, name)
	}
	if daemon {
		// The DaemonSet controller judges the template as written, with
		// its own tolerations (DaemonPodTolerations, ShouldRunDaemonPod).
		b = append(b, "|ds|"...)
		b = strconv.AppendBool(b, w.Spec.HostNetwork)
		for i := range w.Spec.Tolerations {
			b = appendToleration(b, &w.Spec.Tolerations[i])
			b = append(b, ';')
		}
		b = append(b, '|')
		b = appendSelector(b, w.Spec.NodeSelector)
		b = appendAffinity(b, w.Spec.Affinity)
	}
	return string(b)
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

// AppendSchedulingKey appends an encoding of tolerations, a node selector
// and an affinity to b, for cache keys: equal encodings, equal values.
func AppendSchedulingKey(b []byte, tols []v1.Toleration, sel map[string]string, aff *v1.Affinity) []byte {
	for i := range tols {
		b = appendToleration(b, &tols[i])
	}
	b = append(b, '|')
	b = appendSelector(b, sel)
	return appendAffinity(b, aff)
}

// appendStr appends s, length first: unlike quoting, it copies s as is,
// and no two strings encode alike.
func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendToleration(b []byte, t *v1.Toleration) []byte {
	b = appendStr(b, t.Key)
	b = appendStr(b, string(t.Operator))
	b = appendStr(b, t.Value)
	b = appendStr(b, string(t.Effect))
	if t.TolerationSeconds != nil {
		b = strconv.AppendInt(b, *t.TolerationSeconds, 10)
	} else {
		b = append(b, 'n')
	}
	return append(b, ',')
}

func appendSelector(b []byte, sel map[string]string) []byte {
	if sel == nil {
		return append(b, "nil|"...)
	}
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for _, k := range keys {
		b = appendStr(b, k)
		b = appendStr(b, sel[k])
	}
	return append(b, "}|"...)
}

func appendAffinity(b []byte, a *v1.Affinity) []byte {
	if a == nil {
		return append(b, "nil|"...)
	}
	j, err := json.Marshal(a)
	if err != nil { // cannot happen for these types; never share then
		return fmt.Appendf(b, "%p|", a)
	}
	b = append(b, j...)
	return append(b, '|')
}

// SelectsOnHostname reports whether anything that can become part of a
// pod's node selection names the kubernetes.io/hostname label: a
// workload's nodeSelector or node affinity (required or preferred), a
// RuntimeClass's nodeSelector, or the node selectors PodNodeSelector would
// add. When nothing does, that label, which differs on every node, cannot
// change a verdict, and nodes are grouped without it.
func SelectsOnHostname(ws []*Workload, rcs []*RuntimeClass, adm Admission) bool {
	for _, w := range ws {
		if _, ok := w.Spec.NodeSelector[hostnameLabel]; ok {
			return true
		}
		if a := w.Spec.Affinity; a != nil && a.NodeAffinity != nil {
			na := a.NodeAffinity
			if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil && termsName(r.NodeSelectorTerms, hostnameLabel) {
				return true
			}
			for _, p := range na.PreferredDuringSchedulingIgnoredDuringExecution {
				if termsName([]v1.NodeSelectorTerm{p.Preference}, hostnameLabel) {
					return true
				}
			}
		}
	}
	for _, rc := range rcs {
		if s := rc.RuntimeClass.Scheduling; s != nil {
			if _, ok := s.NodeSelector[hostnameLabel]; ok {
				return true
			}
		}
	}
	if adm.PodNodeSelector {
		if _, ok := adm.ClusterDefaultNodeSelector[hostnameLabel]; ok {
			return true
		}
		for _, ann := range adm.Namespaces {
			for _, v := range ann {
				if strings.Contains(v, hostnameLabel) {
					return true
				}
			}
		}
	}
	return false
}

func termsName(terms []v1.NodeSelectorTerm, key string) bool {
	for _, t := range terms {
		for _, e := range t.MatchExpressions {
			if e.Key == key {
				return true
			}
		}
	}
	return false
}
