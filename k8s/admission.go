package k8s

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/taintlint/taintlint/loader"
)

// Namespace annotations the off-by-default admission plugins read
// (SEMANTICS §6.3, §6.4).
const (
	AnnotationNodeSelector        = "scheduler.alpha.kubernetes.io/node-selector"
	AnnotationDefaultTolerations  = "scheduler.alpha.kubernetes.io/defaultTolerations"
	AnnotationTolerationWhitelist = "scheduler.alpha.kubernetes.io/tolerationsWhitelist"
)

// WithObjects records what admission plugins read from other objects
// among objs: the PriorityClasses (Priority, on by default) and, when
// PodNodeSelector or PodTolerationRestriction is on, the annotations of
// Namespaces.
func (a Admission) WithObjects(objs []*loader.Object) Admission {
	a.PriorityClasses = map[string]v1.PreemptionPolicy{}
	a.Namespaces = map[string]map[string]string{}
	for _, obj := range objs {
		if obj.Kind == "PriorityClass" && strings.HasPrefix(obj.APIVersion, "scheduling.k8s.io/") {
			var pc struct {
				PreemptionPolicy v1.PreemptionPolicy `json:"preemptionPolicy"`
				GlobalDefault    bool                `json:"globalDefault"`
			}
			if err := obj.Decode("", &pc); err == nil {
				if pc.PreemptionPolicy == "" {
					pc.PreemptionPolicy = v1.PreemptLowerPriority
				}
				a.PriorityClasses[obj.Name] = pc.PreemptionPolicy
				if pc.GlobalDefault {
					a.GlobalDefaultPriorityClass = obj.Name
				}
			}
			continue
		}
		if obj.Kind != "Namespace" || obj.APIVersion != "v1" || !a.PodNodeSelector && !a.PodTolerationRestriction {
			continue
		}
		var meta struct {
			Annotations map[string]string `json:"annotations"`
		}
		if err := obj.Decode("metadata", &meta); err == nil {
			a.Namespaces[obj.Name] = meta.Annotations
		}
	}
	return a
}

// namespaceOf is the namespace a workload's pods are created in: the
// manifest's, or default when it names none.
func namespaceOf(w *Workload) string {
	if w.Object.Namespace == "" {
		return "default"
	}
	return w.Object.Namespace
}

// podNodeSelector is the PodNodeSelector admission plugin (off by
// default): the namespace's node-selector annotation, or the cluster
// default, merged into the pod's nodeSelector; a conflict rejects the pod.
func (p *Pod) podNodeSelector(adm Admission) {
	sel := adm.ClusterDefaultNodeSelector
	source := "the cluster default node selector"
	if ann, ok := adm.Namespaces[namespaceOf(p.Workload)][AnnotationNodeSelector]; ok {
		source = fmt.Sprintf("namespace %s's %s annotation", namespaceOf(p.Workload), AnnotationNodeSelector)
		set, err := labels.ConvertSelectorToLabelsMap(ann)
		if err != nil {
			p.Rejected = fmt.Sprintf("PodNodeSelector: %s %q does not parse: %v", source, ann, err)
			return
		}
		sel = set
	}
	if len(sel) == 0 {
		return
	}
	if labels.Conflicts(labels.Set(sel), labels.Set(p.NodeSelector)) {
		p.Rejected = fmt.Sprintf("PodNodeSelector: pod node label selector conflicts with its namespace node label selector (%s: %s)", source, labels.Set(sel))
		return
	}
	p.NodeSelector = labels.Merge(labels.Set(sel), labels.Set(p.NodeSelector))
}

// podTolerationRestriction is the PodTolerationRestriction admission
// plugin's mutation (off by default): the namespace's default tolerations,
// or the cluster's, and a memory-pressure toleration for pods that are not
// BestEffort, merged into the pod's.
func (p *Pod) podTolerationRestriction(adm Admission) {
	defaults := adm.DefaultTolerations
	if ann, ok := adm.Namespaces[namespaceOf(p.Workload)][AnnotationDefaultTolerations]; ok {
		defaults = nil
		if strings.TrimSpace(ann) != "" {
			if err := json.Unmarshal([]byte(ann), &defaults); err != nil {
				p.Rejected = fmt.Sprintf("PodTolerationRestriction: namespace %s's %s annotation does not parse: %v", namespaceOf(p.Workload), AnnotationDefaultTolerations, err)
				return
			}
		}
	}
	extra := make([]Toleration, 0, len(defaults)+1)
	for _, t := range defaults {
		extra = append(extra, Toleration{Toleration: t, Source: FromPodTolerationRestriction, Index: -1, Replaces: -1})
	}
	if !bestEffort(&p.Workload.Spec) {
		extra = append(extra, Toleration{Toleration: v1.Toleration{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}, Source: FromPodTolerationRestriction, Index: -1, Replaces: -1})
	}
	if len(extra) > 0 {
		p.Tolerations = MergeTolerations(p.Tolerations, extra)
	}
}

// tolerationWhitelist is PodTolerationRestriction's validation: every
// toleration of the finished pod must be covered by the namespace's
// whitelist, or the cluster's.
func (p *Pod) tolerationWhitelist(adm Admission) {
	whitelist, which := adm.TolerationWhitelist, "cluster"
	if ann, ok := adm.Namespaces[namespaceOf(p.Workload)][AnnotationTolerationWhitelist]; ok {
		whitelist, which = nil, "namespace"
		if strings.TrimSpace(ann) != "" {
			if err := json.Unmarshal([]byte(ann), &whitelist); err != nil {
				p.Rejected = fmt.Sprintf("PodTolerationRestriction: namespace %s's %s annotation does not parse: %v", namespaceOf(p.Workload), AnnotationTolerationWhitelist, err)
				return
			}
		}
	}
	if len(whitelist) == 0 {
		return
	}
	for _, t := range p.Tolerations {
		covered := false
		for _, w := range whitelist {
			if IsSuperset(w, t.Toleration) {
				covered = true
				break
			}
		}
		if !covered {
			p.Rejected = fmt.Sprintf("PodTolerationRestriction: pod tolerations (possibly merged with namespace default tolerations) conflict with its %s whitelist (%s toleration {key: %q, operator: %q, value: %q, effect: %q} is not covered)", which, t.Source, t.Key, t.Operator, t.Value, t.Effect)
			return
		}
	}
}

// extendedResourceToleration is the ExtendedResourceToleration admission
// plugin (off by default): an Exists NoSchedule toleration keyed by every
// extended resource the containers request, in sorted order.
func (p *Pod) extendedResourceToleration() {
	for _, n := range ExtendedResourceRequests(&p.Workload.Spec) {
		p.Tolerations = addOrUpdateToleration(p.Tolerations, ExtendedResourceTolerationFor(n), FromExtendedResourceToleration)
	}
}

// ExtendedResourceRequests are the extended resources the containers and
// init containers of spec request (or limit: requests are defaulted from
// limits before admission runs), sorted: those the ExtendedResourceToleration
// plugin adds a toleration for.
func ExtendedResourceRequests(spec *v1.PodSpec) []string {
	names := map[string]bool{}
	for _, cs := range [][]v1.Container{spec.Containers, spec.InitContainers} {
		for _, c := range cs {
			for _, rl := range []v1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
				for name := range rl {
					if IsExtendedResourceName(name) {
						names[string(name)] = true
					}
				}
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	return sorted
}

// ExtendedResourceTolerationFor is the toleration the
// ExtendedResourceToleration plugin adds for a requested resource.
func ExtendedResourceTolerationFor(name string) v1.Toleration {
	return v1.Toleration{Key: name, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}
}

// addOrUpdateToleration is AddOrUpdateTolerationInPodSpec: a toleration
// equal to add in key, effect, operator and value is replaced by it, unless
// one is identical, in which case nothing changes; with no such toleration,
// add is appended. tols is the caller's own: it is changed in place.
func addOrUpdateToleration(tols []Toleration, add v1.Toleration, src TolerationSource) []Toleration {
	matched := false
	for i := range tols {
		if add.MatchToleration(&tols[i].Toleration) {
			if tolerationsEqual(&add, &tols[i].Toleration) {
				return tols
			}
			matched = true
		}
	}
	if !matched {
		return append(tols, Toleration{Toleration: add, Source: src, Index: -1, Replaces: -1})
	}
	for i, t := range tols {
		if !add.MatchToleration(&t.Toleration) {
			continue
		}
		replaced := t.Index
		if t.Replaces >= 0 {
			replaced = t.Replaces
		}
		tols[i] = Toleration{Toleration: add, Source: src, Index: -1, Replaces: replaced}
	}
	return tols
}

// tolerationsEqual is equality.Semantic.DeepEqual for tolerations (no
// field of one has an equality function of its own), without reflection.
func tolerationsEqual(a, b *v1.Toleration) bool {
	if a.Key != b.Key || a.Operator != b.Operator || a.Value != b.Value || a.Effect != b.Effect {
		return false
	}
	if a.TolerationSeconds == nil || b.TolerationSeconds == nil {
		return a.TolerationSeconds == nil && b.TolerationSeconds == nil
	}
	return *a.TolerationSeconds == *b.TolerationSeconds
}

// bestEffort reports whether the pod's QoS class is BestEffort: no
// container sets a cpu or memory request or limit, nor does the pod.
func bestEffort(spec *v1.PodSpec) bool {
	has := func(rl v1.ResourceList) bool {
		for _, n := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			if q, ok := rl[n]; ok && !q.IsZero() {
				return true
			}
		}
		return false
	}
	if r := spec.Resources; r != nil && (has(r.Requests) || has(r.Limits)) {
		return false
	}
	for _, cs := range [][]v1.Container{spec.Containers, spec.InitContainers} {
		for _, c := range cs {
			if has(c.Resources.Requests) || has(c.Resources.Limits) {
				return false
			}
		}
	}
	return true
}

// IsExtendedResourceName is v1helper.IsExtendedResourceName: a name with a
// domain prefix outside kubernetes.io/, not starting with requests., whose
// requests. form is a qualified name.
func IsExtendedResourceName(name v1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, v1.ResourceDefaultNamespacePrefix) {
		return false
	}
	if strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(v1.DefaultResourceRequestsPrefix+s)) == 0
}

// priority is the Priority admission plugin's part that matters here: the
// pod's preemptionPolicy comes from its PriorityClass (or the global
// default class) when that class is among the inputs.
func (p *Pod) priority(adm Admission) {
	spec := &p.Workload.Spec
	p.PreemptionPolicy = v1.PreemptLowerPriority
	if spec.PreemptionPolicy != nil {
		p.PreemptionPolicy = *spec.PreemptionPolicy
	}
	name := spec.PriorityClassName
	if name == "" {
		name = adm.GlobalDefaultPriorityClass
	}
	policy, ok := adm.PriorityClasses[name]
	if !ok {
		return
	}
	if spec.PreemptionPolicy != nil && *spec.PreemptionPolicy != policy {
		p.Rejected = fmt.Sprintf("Priority: the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *spec.PreemptionPolicy, policy)
		return
	}
	p.PreemptionPolicy = policy
}
