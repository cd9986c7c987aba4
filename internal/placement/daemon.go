package placement

import (
	"fmt"
	"sort"
	"strings"

	"github.com/taintlint/taintlint/internal/k8s"
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
	var failed []Result
	for _, r := range p.Results {
		if r.Filter != DaemonSetController {
			continue
		}
		switch r.Daemon {
		case "taint":
			r.Filter = TaintToleration
		case "affinity":
			r.Filter = NodeAffinity
		default:
			continue
		}
		failed = append(failed, r)
	}
	s := &subject{
		tols:     k8s.DaemonControllerTolerations(w),
		selector: w.Spec.NodeSelector,
		affinity: w.Spec.Affinity,
		terms:    true,
		daemon:   true,
	}
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
		rule, details = "daemonset-no-nodes", p.NoNodesDetails(gates)
	case p.Message != "":
		rule, details = "pod-unschedulable", p.Details(gates)
	default:
		return "", nil
	}
	var out []int
	for _, d := range details {
		if d.Toleration >= 0 {
			out = append(out, d.Toleration)
		}
	}
	return rule, out
}
