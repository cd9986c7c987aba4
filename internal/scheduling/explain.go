package scheduling

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/taintlint/taintlint/k8s"
)

// Names returns a result's node names, sorted.
func (r *Result) Names() []string {
	if r.Group != nil && len(r.Nodes) == len(r.Group.Nodes) {
		return r.Group.Names
	}
	var names []string
	for _, n := range r.Nodes {
		if n != nil {
			names = append(names, n.Node.Name)
		}
	}
	sort.Strings(names)
	return names
}

// Why says in a few words what made a node fail (or what it costs the
// pod when it fits), for one row of taintlint explain.
func (p *Placement) Why(r *Result, gates k8s.FeatureGates) string {
	gate := gates.TaintTolerationComparisonOperators
	switch r.Filter {
	case "":
		var avoided []string
		for _, i := range r.Avoided {
			avoided = append(avoided, r.Nodes[0].Node.Spec.Taints[i].ToString())
		}
		if len(avoided) > 0 {
			return "fits; scored lower for untolerated PreferNoSchedule " + strings.Join(avoided, ", ")
		}
		return "fits"
	case DaemonSetController:
		switch r.Daemon {
		case "nodeName":
			return "the DaemonSet controller creates no pod here: the template's nodeName names another node"
		case "affinity":
			return "the DaemonSet controller creates no pod here: node selector or required affinity does not match"
		}
		n := &r.Nodes[0].Node
		t, _ := corev1helpers.FindMatchingUntoleratedTaint(k8s.Logger(), n.Spec.Taints, k8s.DaemonPodTolerations(p.Workload), noScheduleOrNoExecute, gate)
		return "the DaemonSet controller creates no pod here: untolerated taint " + t.ToString()
	case NodeUnschedulable:
		return ReasonUnschedulable + " (spec.unschedulable: true)"
	case TaintToleration:
		n := &r.Nodes[0].Node
		var bad []string
		for i := range n.Spec.Taints {
			t := &n.Spec.Taints[i]
			if p.Mode == NodeName && t.Effect != v1.TaintEffectNoExecute || !noScheduleOrNoExecute(t) {
				continue
			}
			if !corev1helpers.TolerationsTolerateTaint(k8s.Logger(), p.Pod.V1Tolerations(), t, gate) {
				bad = append(bad, t.ToString())
			}
		}
		return r.Reasons[0] + ": " + strings.Join(bad, ", ")
	case NodeAffinity:
		if r.Absent {
			return ReasonAbsent + ": not named by matchFields metadata.name"
		}
		if c := r.Nodes[0].Compatible; c != nil { // a node pool says why
			if err := c(p.Pod.NodeSelector, p.Pod.Affinity); err != nil {
				return r.Reasons[0] + ": incompatible requirements, " + strings.ReplaceAll(err.Error(), "\n", "; ")
			}
		}
		n := &r.Nodes[0].Node
		var why []string
		keys := make([]string, 0, len(p.Pod.NodeSelector))
		for k := range p.Pod.NodeSelector {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			got, ok := n.Labels[k]
			switch {
			case !ok:
				why = append(why, "no label "+k)
			case got != p.Pod.NodeSelector[k]:
				why = append(why, fmt.Sprintf("%s=%s, not %s", k, got, p.Pod.NodeSelector[k]))
			}
		}
		if len(why) == 0 {
			why = append(why, "required node affinity matches no term")
		}
		return r.Reasons[0] + ": " + strings.Join(why, "; ")
	case NodeResourcesFit:
		var why []string
		for _, s := range r.Shortfalls {
			if r.Nodes[0].PartialAllocatable {
				why = append(why, s.Reason+": "+s.poolString("pool's"))
				continue
			}
			why = append(why, s.Reason+": "+s.String())
		}
		return strings.Join(why, "; ")
	}
	return strings.Join(r.Reasons, ", ")
}
