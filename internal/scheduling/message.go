package scheduling

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Preemption texts of DefaultPreemption's PostFilter (SEMANTICS §3.9).
const (
	preemptionNotHelpful = "Preemption is not helpful for scheduling"
	preemptionNoVictims  = "No preemption victims found for incoming pod"
)

// PodRequestsOf is resource.PodRequests with the scheduler's options.
func PodRequestsOf(pod *v1.Pod) v1.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
}

// fitErrorMessage words a FitError as kube-scheduler 1.37 does: one count
// per reason over the nodes that failed, sorted as text, then the
// preemption PostFilter's own histogram (nodes whose failure preemption
// cannot resolve, and nodes outside the PreFilter result, are "not
// helpful"; a full node has no victims when other pods are not modelled).
//
// Over an inventory of node pools only, there is no node yet to preempt
// on, and the count is of pools: "0/3 node pools are available: 3 node
// pool(s) had untolerated taint(s).", the pools' own reasons following in
// the detail.
func fitErrorMessage(total int, results []Result, never, pools bool) string {
	if total == 0 {
		return "no nodes available to schedule pods"
	}
	if pools {
		counts := map[string]int{}
		for _, r := range results {
			if r.Filter == "" || r.Filter == DaemonSetController {
				continue
			}
			for _, reason := range r.Reasons {
				counts[strings.Replace(reason, "node(s)", "node pool(s)", 1)] += len(r.Nodes)
			}
		}
		return fmt.Sprintf("0/%d node pools are available: %s.", total, histogram(counts))
	}
	counts := map[string]int{}
	notHelpful, noVictims := 0, 0
	for _, r := range results {
		if r.Filter == "" || r.Filter == DaemonSetController {
			continue
		}
		n := len(r.Nodes)
		for _, reason := range r.Reasons {
			counts[reason] += n
		}
		if r.Unresolvable {
			notHelpful += n
		} else {
			noVictims += n
		}
	}
	msg := fmt.Sprintf("0/%d nodes are available: %s.", total, histogram(counts))
	if never {
		return msg + " preemption: not eligible due to preemptionPolicy=Never."
	}
	pre := map[string]int{}
	if notHelpful > 0 {
		pre[preemptionNotHelpful] = notHelpful
	}
	if noVictims > 0 {
		pre[preemptionNoVictims] = noVictims
	}
	return msg + fmt.Sprintf(" preemption: 0/%d nodes are available: %s.", total, histogram(pre))
}

// histogram is "<count> <reason>" per reason, sorted as strings (the count
// is part of the sort key), joined with ", ".
func histogram(counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for reason, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// conflictMessage is the text kube-scheduler 1.37 produces when the
// NodeAffinity PreFilter rejects the pod: the DynamicResources PostFilter
// then fails reading its state and its "not found" replaces the preemption
// text (SEMANTICS §3.9, verified on 1.37.1).
func conflictMessage(total int) string {
	return fmt.Sprintf("0/%d nodes are available: %s. not found", total, ReasonConflict)
}

// kubeletMessage is the status message of a pod the kubelet rejects at
// admission: the first failure of generalFilter.
func kubeletMessage(v Verdict) string {
	if v.Filter == NodeResourcesFit && len(v.Shortfalls) > 0 {
		s := v.Shortfalls[0]
		return fmt.Sprintf("Pod was rejected: Node didn't have enough resource: %s, requested: %d, used: 0, capacity: %d", s.Resource, s.Requested, s.Allocatable)
	}
	return fmt.Sprintf("Pod was rejected: Predicate %s failed: %s", v.Filter, v.Reasons[0])
}

func quote(s string) string { return strconv.Quote(s) }

// nodeSet summarises a set of nodes for a message: "1 node (a)",
// "3 nodes (a, b, c)", "12 nodes (a-1 … a-12)" with the names sorted.
type nodeSet struct {
	count int
	pools int      // of count, nodes that stand for node pools: named as pools when all are
	names []string // all names while there are few
	first string
	last  string
}

const listAll = 3

func (s *nodeSet) add(r *Result) {
	if len(r.Nodes) == 0 {
		return
	}
	for _, n := range r.Nodes {
		if n != nil && n.Compatible != nil {
			s.pools++
		}
	}
	var names []string
	if r.Group != nil && len(r.Nodes) == len(r.Group.Nodes) {
		names = r.Group.Names
	} else {
		for _, n := range r.Nodes {
			if n != nil {
				names = append(names, n.Node.Name)
			}
		}
		sort.Strings(names)
	}
	if len(names) == 0 {
		s.count += len(r.Nodes)
		return
	}
	if s.count == 0 || names[0] < s.first {
		s.first = names[0]
	}
	if s.count == 0 || names[len(names)-1] > s.last {
		s.last = names[len(names)-1]
	}
	s.count += len(r.Nodes)
	if s.count <= listAll {
		s.names = append(s.names, names...)
		sort.Strings(s.names)
	} else {
		s.names = nil
	}
}

func (s *nodeSet) String() string {
	noun := "nodes"
	if s.count == 1 {
		noun = "node"
	}
	if s.count > 0 && s.pools == s.count {
		noun = strings.Replace(noun, "node", "node pool", 1)
	}
	switch {
	case s.count == 0:
		return "0 nodes"
	case s.count <= listAll && len(s.names) == s.count:
		return fmt.Sprintf("%d %s (%s)", s.count, noun, strings.Join(s.names, ", "))
	case s.first != "":
		return fmt.Sprintf("%d %s (%s … %s)", s.count, noun, s.first, s.last)
	}
	return fmt.Sprintf("%d %s", s.count, noun)
}
