package k8s

import (
	"fmt"
	"sort"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TolerationSource says who put a toleration on a pod.
type TolerationSource string

const (
	// FromManifest: written in the workload's pod spec.
	FromManifest TolerationSource = "manifest"
	// FromDaemonSetController: added by the DaemonSet controller to every
	// daemon pod (AddOrUpdateDaemonPodTolerations).
	FromDaemonSetController TolerationSource = "daemonset-controller"
	// FromDefaultTolerationSeconds: added by the DefaultTolerationSeconds
	// admission plugin (on by default).
	FromDefaultTolerationSeconds TolerationSource = "DefaultTolerationSeconds"
	// FromRuntimeClass: merged from the pod's RuntimeClass scheduling.
	FromRuntimeClass TolerationSource = "RuntimeClass"
	// FromPodTolerationRestriction: merged from the namespace's default
	// tolerations (admission plugin, off by default).
	FromPodTolerationRestriction TolerationSource = "PodTolerationRestriction"
	// FromExtendedResourceToleration: added for a requested extended
	// resource (admission plugin, off by default).
	FromExtendedResourceToleration TolerationSource = "ExtendedResourceToleration"
	// FromOperator: the operator's own for the pods it makes, where the
	// custom resource sets none (a ClusterPolicy's operands: Operands).
	FromOperator TolerationSource = "operator"
	// FromPlacement: written in an operator's custom resource outside any
	// pod spec, and merged by the operator into the pods it makes
	// (CustomKind.Merges); the placement it is written in is validated.
	FromPlacement TolerationSource = "placement"
)

// Toleration is one toleration of an effective pod.
type Toleration struct {
	v1.Toleration
	Source TolerationSource
	// Index is the toleration's index in the manifest's list, for
	// FromManifest, or -1.
	Index int
	// Replaces is the manifest index whose toleration the DaemonSet
	// controller replaced in place (same key, operator, value and effect;
	// only tolerationSeconds differed), or -1.
	Replaces int
}

// Pod is a workload's pod as the cluster would create it: the controller's
// additions first (DaemonSets), then the admission plugins that are on by
// default, in their upstream order.
type Pod struct {
	Workload    *Workload
	Tolerations []Toleration
	// NodeSelector and Affinity are read only: they may be the
	// workload's own.
	NodeSelector map[string]string
	Affinity     *v1.Affinity
	// Rejected holds the reason admission would refuse the pod (a
	// RuntimeClass nodeSelector that conflicts with the pod's), or "".
	Rejected string
	// PreemptionPolicy is the pod's, or its PriorityClass's when the
	// class is among the inputs.
	PreemptionPolicy v1.PreemptionPolicy
}

// V1Tolerations returns the tolerations as k8s.io/api values, in order.
func (p *Pod) V1Tolerations() []v1.Toleration {
	out := make([]v1.Toleration, len(p.Tolerations))
	for i, t := range p.Tolerations {
		out[i] = t.Toleration
	}
	return out
}

// Admission says which admission plugins to model beyond the defaults.
// The zero value models Kubernetes 1.37's default set.
type Admission struct {
	// DefaultNotReadySeconds and DefaultUnreachableSeconds are the
	// kube-apiserver's --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds (0 means the default, 300).
	DefaultNotReadySeconds, DefaultUnreachableSeconds int64

	// PodNodeSelector turns the plugin on, with ClusterDefaultNodeSelector
	// for namespaces without the node-selector annotation.
	PodNodeSelector            bool
	ClusterDefaultNodeSelector map[string]string
	// PodTolerationRestriction turns the plugin on, with the cluster's
	// default tolerations and whitelist for namespaces without annotations.
	PodTolerationRestriction bool
	DefaultTolerations       []v1.Toleration
	TolerationWhitelist      []v1.Toleration
	// ExtendedResourceToleration turns the plugin on.
	ExtendedResourceToleration bool
	// Namespaces are the annotations of the Namespace objects among the
	// inputs, by name (see WithObjects).
	Namespaces map[string]map[string]string
	// PriorityClasses are the preemption policies of the PriorityClass
	// objects among the inputs, by name, and GlobalDefaultPriorityClass
	// the one marked globalDefault.
	PriorityClasses            map[string]v1.PreemptionPolicy
	GlobalDefaultPriorityClass string
}

// Logger is the logger to hand to k8s.io/component-helpers and k8s.io/api
// functions: they log (and never return) errors such as a non-numeric Gt
// value, which taintlint reports as findings of its own.
func Logger() logr.Logger { return logr.Discard() }

// EffectivePod builds the pod the cluster would create from w. runtime
// classes are looked up by name among rcs; an unknown name changes nothing
// (the RuntimeClass may exist in the cluster).
func EffectivePod(w *Workload, rcs []*RuntimeClass, adm Admission) *Pod {
	p := &Pod{Workload: w, NodeSelector: w.Spec.NodeSelector, Affinity: w.Spec.Affinity}
	// Room for what DefaultTolerationSeconds (two) and, for a DaemonSet,
	// the DaemonSet controller (seven) add.
	room := 2
	if w.IsDaemonSet() {
		room += 7
	}
	p.Tolerations = make([]Toleration, len(w.Spec.Tolerations), len(w.Spec.Tolerations)+room)
	for i, t := range w.Spec.Tolerations {
		p.Tolerations[i] = w.written(i, t)
	}
	if w.IsDaemonSet() {
		p.Tolerations = addDaemonSetTolerations(p.Tolerations, w.Spec.HostNetwork)
	}
	// Admission plugins in their upstream order (AllOrderedPlugins).
	if adm.PodNodeSelector {
		p.podNodeSelector(adm)
	}
	if p.Rejected == "" {
		p.priority(adm)
	}
	p.Tolerations = defaultTolerationSeconds(p.Tolerations, adm)
	if adm.PodTolerationRestriction && p.Rejected == "" {
		p.podTolerationRestriction(adm)
	}
	if adm.ExtendedResourceToleration {
		p.extendedResourceToleration()
	}
	if name := w.Spec.RuntimeClassName; name != nil && p.Rejected == "" {
		for _, rc := range rcs {
			if rc.Object.Name == *name && rc.RuntimeClass.Scheduling != nil {
				p.mergeRuntimeClass(rc)
				break
			}
		}
	}
	if adm.PodTolerationRestriction && p.Rejected == "" {
		p.tolerationWhitelist(adm)
	}
	return p
}

// daemonSetTaints are the taints AddOrUpdateDaemonPodTolerations
// tolerates on every daemon pod, in its order (SEMANTICS §5.1); a
// hostNetwork pod also tolerates network-unavailable.
func daemonSetTaints() [6]daemonTaint {
	return [...]daemonTaint{
		{v1.TaintNodeNotReady, v1.TaintEffectNoExecute},
		{v1.TaintNodeUnreachable, v1.TaintEffectNoExecute},
		{v1.TaintNodeDiskPressure, v1.TaintEffectNoSchedule},
		{v1.TaintNodeMemoryPressure, v1.TaintEffectNoSchedule},
		{v1.TaintNodePIDPressure, v1.TaintEffectNoSchedule},
		{v1.TaintNodeUnschedulable, v1.TaintEffectNoSchedule},
	}
}

type daemonTaint struct {
	key    string
	effect v1.TaintEffect
}

// DaemonSetTolerations are the tolerations AddOrUpdateDaemonPodTolerations
// adds, in its order (SEMANTICS §5.1).
func DaemonSetTolerations(hostNetwork bool) []v1.Toleration {
	out := make([]v1.Toleration, 0, 7)
	for _, t := range daemonSetTaints() {
		out = append(out, v1.Toleration{Key: t.key, Operator: v1.TolerationOpExists, Effect: t.effect})
	}
	if hostNetwork {
		out = append(out, v1.Toleration{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
	return out
}

// addDaemonSetTolerations applies AddOrUpdateTolerationInPodSpec for each
// controller toleration, to tols, the caller's own.
func addDaemonSetTolerations(tols []Toleration, hostNetwork bool) []Toleration {
	for _, t := range daemonSetTaints() {
		tols = addOrUpdateToleration(tols, v1.Toleration{Key: t.key, Operator: v1.TolerationOpExists, Effect: t.effect}, FromDaemonSetController)
	}
	if hostNetwork {
		tols = addOrUpdateToleration(tols, v1.Toleration{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}, FromDaemonSetController)
	}
	return tols
}

// defaultTolerationSeconds is the DefaultTolerationSeconds admission
// plugin: a not-ready or unreachable NoExecute toleration of 300 s is
// added unless some toleration has that key or an empty key, and effect
// NoExecute or empty, whatever its operator and value (SEMANTICS §6.1).
func defaultTolerationSeconds(tols []Toleration, adm Admission) []Toleration {
	notReady, unreachable := false, false
	for _, t := range tols {
		noExecute := t.Effect == v1.TaintEffectNoExecute || t.Effect == ""
		if !noExecute {
			continue
		}
		if t.Key == v1.TaintNodeNotReady || t.Key == "" {
			notReady = true
		}
		if t.Key == v1.TaintNodeUnreachable || t.Key == "" {
			unreachable = true
		}
	}
	seconds := func(v int64) *int64 {
		if v == 0 {
			v = 300
		}
		return &v
	}
	if !notReady {
		tols = append(tols, Toleration{Toleration: v1.Toleration{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: seconds(adm.DefaultNotReadySeconds)}, Source: FromDefaultTolerationSeconds, Index: -1, Replaces: -1})
	}
	if !unreachable {
		tols = append(tols, Toleration{Toleration: v1.Toleration{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: seconds(adm.DefaultUnreachableSeconds)}, Source: FromDefaultTolerationSeconds, Index: -1, Replaces: -1})
	}
	return tols
}

// mergeRuntimeClass is the RuntimeClass admission plugin's setScheduling:
// nodeSelector merged (a conflicting value rejects the pod), tolerations
// merged with MergeTolerations (SEMANTICS §6.5).
func (p *Pod) mergeRuntimeClass(rc *RuntimeClass) {
	s := rc.RuntimeClass.Scheduling
	keys := make([]string, 0, len(s.NodeSelector))
	for k := range s.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s.NodeSelector[k]
		if pv, ok := p.NodeSelector[k]; ok && pv != v {
			p.Rejected = fmt.Sprintf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, pv)
			return
		}
	}
	if len(keys) > 0 {
		// The pod's own map: NodeSelector may be the workload's.
		own := make(map[string]string, len(p.NodeSelector)+len(keys))
		for k, v := range p.NodeSelector {
			own[k] = v
		}
		p.NodeSelector = own
	}
	for _, k := range keys {
		p.NodeSelector[k] = s.NodeSelector[k]
	}
	extra := make([]Toleration, len(s.Tolerations))
	for i, t := range s.Tolerations {
		extra[i] = Toleration{Toleration: t, Source: FromRuntimeClass, Index: -1, Replaces: -1}
	}
	p.Tolerations = MergeTolerations(p.Tolerations, extra)
}

// MergeTolerations is pkg/util/tolerations.MergeTolerations: both lists
// concatenated, dropping any toleration that another one already kept, or a
// later different one, covers (isSuperset).
func MergeTolerations(first, second []Toleration) []Toleration {
	all := append(append([]Toleration(nil), first...), second...)
	var merged []Toleration
next:
	for i, t := range all {
		for _, m := range merged {
			if IsSuperset(m.Toleration, t.Toleration) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !equality.Semantic.DeepEqual(t.Toleration, later.Toleration) && IsSuperset(later.Toleration, t.Toleration) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// IsSuperset reports whether ss tolerates everything t does, as
// pkg/util/tolerations.isSuperset decides it (SEMANTICS §6.3 quirks: an
// Equal entry covers only literal Equal; Lt and Gt are never covered).
func IsSuperset(ss, t v1.Toleration) bool {
	if equality.Semantic.DeepEqual(t, ss) {
		return true
	}
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != v1.TolerationOpExists) {
		return false
	}
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	if ss.Effect == v1.TaintEffectNoExecute && ss.TolerationSeconds != nil {
		if t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds {
			return false
		}
	}
	switch ss.Operator {
	case v1.TolerationOpEqual, "":
		return t.Operator == v1.TolerationOpEqual && t.Value == ss.Value
	case v1.TolerationOpExists:
		return true
	}
	return false
}

// DaemonPodTolerations are daemonPodTolerations(ds): the template's
// tolerations after AddOrUpdateDaemonPodTolerations.
func DaemonPodTolerations(w *Workload) []v1.Toleration {
	tols := DaemonControllerTolerations(w)
	out := make([]v1.Toleration, len(tols))
	for i, t := range tols {
		out[i] = t.Toleration
	}
	return out
}

// DaemonControllerTolerations are DaemonPodTolerations with where each
// came from: the tolerations the DaemonSet controller judges nodes with
// (admission plugins add theirs only to the pods it then creates).
func DaemonControllerTolerations(w *Workload) []Toleration {
	tols := make([]Toleration, len(w.Spec.Tolerations))
	for i, t := range w.Spec.Tolerations {
		tols[i] = w.written(i, t)
	}
	return addDaemonSetTolerations(tols, w.Spec.HostNetwork)
}

// written is toleration i of w's pod spec: the manifest's, or the
// operator's own where the custom resource sets none.
func (w *Workload) written(i int, t v1.Toleration) Toleration {
	if w.operatorTolerations {
		return Toleration{Toleration: t, Source: FromOperator, Index: -1, Replaces: -1}
	}
	if w.merged {
		return Toleration{Toleration: t, Source: FromPlacement, Index: -1, Replaces: -1}
	}
	return Toleration{Toleration: t, Source: FromManifest, Index: i, Replaces: -1}
}
