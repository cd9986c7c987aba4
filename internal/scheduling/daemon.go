package scheduling

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/taintlint/taintlint/k8s"
)

// Reasons the DaemonSet controller creates no daemon pod on a node, worded
// as the scheduler words its filters' (SEMANTICS §5.3).
const (
	ReasonDaemonAffinity = "node(s) didn't match the DaemonSet's node affinity/selector"
	ReasonDaemonNodeName = "node(s) didn't match the DaemonSet's node name"
)

// RunsNowhere reports whether p is a DaemonSet the controller creates no
// pod for on any node of the inventory (its pods not refused by admission,
// which pod-unschedulable reports).
func (p *Placement) RunsNowhere() bool {
	return p.Mode == Daemon && p.Rejected == "" && p.Total > 0 && p.Picked == 0 && !p.brief
}

// daemonReason is the histogram reason of the controller's verdict.
func daemonReason(why string) string {
	switch why {
	case "affinity":
		return ReasonDaemonAffinity
	case "nodeName":
		return ReasonDaemonNodeName
	}
	return ReasonTaint
}

// NoNodesMessage words a DaemonSet that runs nowhere as the scheduler words
// a pod that fits nowhere: one count per reason, sorted as text.
func (p *Placement) NoNodesMessage() string {
	counts := map[string]int{}
	for _, r := range p.Results {
		if r.Filter == DaemonSetController {
			counts[daemonReason(r.Daemon)] += len(r.Nodes)
		}
	}
	if p.inv.pools {
		pooled := make(map[string]int, len(counts))
		for reason, n := range counts {
			pooled[strings.Replace(reason, "node(s)", "node pool(s)", 1)] = n
		}
		return fmt.Sprintf("0/%d node pools run a daemon pod: %s.", p.Total, histogram(pooled))
	}
	return fmt.Sprintf("0/%d nodes run a daemon pod: %s.", p.Total, histogram(counts))
}

// NoNodesDetails explains a DaemonSet that runs nowhere with the details
// pod-unschedulable gives, against the template as the controller judges
// it: its tolerations with the controller's own, its nodeSelector and
// required node affinity (admission plugins change only the pods the
// controller creates, never its choice of nodes).
func (p *Placement) NoNodesDetails(gates k8s.FeatureGates) []Detail {
	w := p.Workload
	failed, s := p.noNodes()
	var out []Detail
	if name := w.Spec.NodeName; name != "" {
		text := fmt.Sprintf("the template's spec.nodeName puts every daemon pod on %s", quote(name))
		if p.inventoryNode(name) == nil {
			text += fmt.Sprintf(", which is not in the inventory of %d node(s)", p.Total)
			names := make([]string, 0, len(p.inv.Nodes))
			for _, n := range p.inv.Nodes {
				names = append(names, n.Node.Name)
			}
			sort.Strings(names)
			if n := nearest(name, names); n != "" {
				text += fmt.Sprintf(" (did you mean %s?)", n)
			}
		}
		out = append(out, Detail{Text: text, Toleration: -1})
	}
	out = append(out, taintDetails(p, s, failed, gates)...)
	out = append(out, affinityDetails(p, s, failed)...)
	return out
}

// noNodes are the results of the nodes the DaemonSet controller leaves
// out for a taint or the affinity, as the filter that words it, and the
// template as the controller judges it.
func (p *Placement) noNodes() ([]*Result, *subject) {
	w := p.Workload
	var failed []*Result
	for _, r := range p.Results {
		if r.Filter != DaemonSetController {
			continue
		}
		v := *r.Verdict // the placement's is shared
		switch r.Daemon {
		case "taint":
			v.Filter = TaintToleration
		case "affinity":
			v.Filter = NodeAffinity
		default:
			continue
		}
		r.Verdict = &v
		failed = append(failed, &r) // a copy, its Filter changed
	}
	return failed, &subject{
		tols:     k8s.DaemonControllerTolerations(w),
		selector: w.Spec.NodeSelector,
		affinity: w.Spec.Affinity,
		terms:    true,
		daemon:   true,
	}
}

// ExplainedTolerations are the rule that reports p (pod-unschedulable or
// daemonset-no-nodes, "" for neither) and the manifest indexes of the
// tolerations its details name as nearly matching a taint the workload
// needs, with the fix.
func (p *Placement) ExplainedTolerations(gates k8s.FeatureGates) (string, []int) {
	var rule string
	var details []Detail
	switch {
	case p.Rejected != "":
		return "", nil
	case p.RunsNowhere():
		// Of the details, only the taints' name a toleration.
		failed, s := p.noNodes()
		rule, details = "daemonset-no-nodes", taintDetails(p, s, failed, gates)
	case p.Message != "":
		rule, details = "pod-unschedulable", p.taintDetails(gates)
	default:
		return "", nil
	}
	return rule, tolerationsNamed(details)
}

// tolerationsNamed are the manifest indexes of the tolerations details
// name, in their order.
func tolerationsNamed(details []Detail) []int {
	var out []int
	for _, d := range details {
		if d.Toleration >= 0 {
			out = append(out, d.Toleration)
		}
	}
	return out
}

// DaemonPlacement is the DaemonSet controller's verdict for one node.
type DaemonPlacement struct {
	ShouldRun, ShouldContinueRunning bool
	// Reason is "" when ShouldRun, else "nodeName", "affinity" or "taint".
	Reason string
	// Untolerated is the first untolerated NoSchedule or NoExecute taint,
	// in node order, when Reason is "taint".
	Untolerated *v1.Taint
}

// daemonTemplate is what the DaemonSet controller reads of a template
// (SEMANTICS §5.3), with its node selection built once: the controller
// judges the template as written, with its own tolerations added
// (admission plugins change only the pods it then creates).
type daemonTemplate struct {
	NodeName    string            `json:"nodeName"`
	Selector    map[string]string `json:"selector"`
	Affinity    *v1.Affinity      `json:"affinity"`
	Tolerations []v1.Toleration   `json:"tolerations"` // the template's, then the controller's
	Gate        bool              `json:"gate"`

	match nodeaffinity.RequiredNodeAffinity
}

func newDaemonTemplate(w *k8s.Workload, gates k8s.FeatureGates) *daemonTemplate {
	return &daemonTemplate{
		NodeName:    w.Spec.NodeName,
		Selector:    w.Spec.NodeSelector,
		Affinity:    w.Spec.Affinity,
		Tolerations: k8s.DaemonPodTolerations(w),
		Gate:        gates.TaintTolerationComparisonOperators,
		match:       nodeaffinity.NewRequiredNodeAffinity(w.Spec.NodeSelector, w.Spec.Affinity),
	}
}

// shouldRun is the DaemonSet controller's NodeShouldRunDaemonPod for the
// template on node: the template's nodeName, its nodeSelector and required
// affinity, and its tolerations plus the controller's against NoSchedule
// and NoExecute taints. It ignores cordons, PreferNoSchedule, resources
// and ports, as the controller does.
// A node that stands for a pool (k8s.Node.Compatible) decides the
// nodeSelector and affinity itself.
func (d *daemonTemplate) shouldRun(n *k8s.Node) DaemonPlacement {
	node := &n.Node
	if d.NodeName != "" && d.NodeName != node.Name {
		return DaemonPlacement{Reason: "nodeName"}
	}
	if c := n.DaemonCompatible; c != nil {
		if c(d.Selector, d.Affinity) != nil {
			return DaemonPlacement{Reason: "affinity"}
		}
	} else if n.Compatible != nil {
		if n.Compatible(d.Selector, d.Affinity) != nil {
			return DaemonPlacement{Reason: "affinity"}
		}
	} else if ok, _ := d.match.Match(node); !ok {
		return DaemonPlacement{Reason: "affinity"}
	}
	taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(k8s.Logger(), node.Spec.Taints, d.Tolerations, noScheduleOrNoExecute, d.Gate)
	if !untolerated {
		return DaemonPlacement{ShouldRun: true, ShouldContinueRunning: true}
	}
	_, noExecute := corev1helpers.FindMatchingUntoleratedTaint(k8s.Logger(), node.Spec.Taints, d.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute
	}, d.Gate)
	return DaemonPlacement{ShouldContinueRunning: !noExecute, Reason: "taint", Untolerated: &taint}
}

// ShouldRunDaemonPod is the DaemonSet controller's NodeShouldRunDaemonPod
// for the template of w on node.
func ShouldRunDaemonPod(w *k8s.Workload, node *v1.Node, gates k8s.FeatureGates) DaemonPlacement {
	return newDaemonTemplate(w, gates).shouldRun(&k8s.Node{Node: *node})
}
