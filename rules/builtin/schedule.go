package builtin

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// schedulingRules are the rules that place workloads on the node
// inventory, and those that read the facts of its node groups. They share
// one inventory, and one placement and one set of facts per workload, per
// run.
func schedulingRules() []*rules.Rule {
	s, f := placements(), factFindingsOf()
	return []*rules.Rule{daemonSetNoNodes(s), daemonSetUncoveredNodes(f), podUnschedulable(s), podPrefersAvoidedNodes(s), tolerationEvictionLoop(f), tolerationShadowed(f), tolerationUnmatched(f)}
}

// placements is the prerequisite that turns the placements of a run's
// workloads into the scheduling rules' findings ([]placed, by workload),
// once for every rule that reports them. Only the workloads some rule
// reports on (prereq.Workload.Reportable, a few percent) are looked at:
// their placement is the one their record kept, or, when the run kept too
// many (a placement holds a verdict per node group), made again here and
// dropped once turned into findings.
func placements() *rules.Prerequisite {
	return &rules.Prerequisite{
		Name:     "placement",
		Requires: []*rules.Prerequisite{prereq.Placement, prereq.Workloads},
		Run: func(p *rules.PrereqPass) (any, error) {
			in := p.Input
			placer := p.ResultOf[prereq.Placement].(*prereq.Placer)
			recs := p.ResultOf[prereq.Workloads].([]prereq.Workload)
			found := make([]placed, len(in.Workloads))
			prereq.EachWorkload(in, func(i int) {
				if !recs[i].Reportable {
					return
				}
				pl := recs[i].Placement()
				if pl == nil { // not kept: placed again
					pl = placer.Place(in.Workloads[i])
				}
				found[i] = placed{unschedulable: unschedulable(in, pl), avoided: avoided(pl), nowhere: nowhere(in, pl)}
				for _, d := range []*rules.Diagnostic{found[i].unschedulable, found[i].avoided, found[i].nowhere} {
					if d != nil {
						d.Message = in.Workloads[i].Named(d.Path, d.Message)
					}
				}
			})
			return found, nil
		},
	}
}

// placed is what the scheduling rules report on one workload; nil when
// the rule has nothing to say.
type placed struct {
	unschedulable, avoided, nowhere *rules.Diagnostic
}

// newPending is a finding on a field of obj, made while the workload is
// placed and reported when its rule runs; the driver locates it.
func newPending(obj *loader.Object, path, msg string, related []rules.Related) *rules.Diagnostic {
	return &rules.Diagnostic{Object: obj, Path: path, Message: msg, Related: related}
}

// reportAll reports the findings of the placement prerequisite s that
// pick (one rule's) chooses.
func reportAll(p *rules.Pass, s *rules.Prerequisite, pick func(placed) *rules.Diagnostic) {
	for _, f := range p.ResultOf[s].([]placed) {
		if d := pick(f); d != nil {
			p.Report(*d)
		}
	}
}

// onInventory is the Run of a rule that reports, when there is an
// inventory, what report picks from the run's findings on each workload
// (all computes them once per run for every rule that shares them).
func onInventory[T any](all func(*rules.Input) []T, report func(*rules.Pass, *T)) func(*rules.Pass) error {
	return func(p *rules.Pass) error {
		if !p.Input.HasInventory() {
			return nil
		}
		found := all(p.Input)
		for i := range found {
			report(p, &found[i])
		}
		return nil
	}
}

// maxRelated caps the related locations of one finding.
const maxRelated = 8

func podUnschedulable(s *rules.Prerequisite) *rules.Rule {
	return rule(rules.Rule{
		Requires:       []*rules.Prerequisite{s},
		ID:             "pod-unschedulable",
		Summary:        "Workload's pods fit no node of the inventory",
		Severity:       rules.Error,
		NeedsInventory: true,
		Doc: `The pods of this workload would stay Pending: kube-scheduler's filters
(NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit, in that
order, first failure per node) reject every node of the inventory. The
message begins exactly as kube-scheduler 1.37 words the FailedScheduling
event, preemption text included, and goes on with what the event no longer
says: which taints on which nodes, which labels were missing, which resource
was short by how much, and where a toleration nearly matches a taint, the fix.

Pods are judged as the cluster would create them: requests defaulted from
limits and summed with the upstream formula (containers, sidecars, init
containers, overhead), the tolerations DefaultTolerationSeconds adds, a
RuntimeClass's scheduling and overhead and a PriorityClass's preemptionPolicy
when the class is among the inputs, and the admission plugins that are off by
default when .taintlint.yaml's admission section turns them on (a pod that
admission would refuse is reported with admission's reason). Other pods are
not modelled (every node is empty), and nodes without status.allocatable skip
the resource check. A node pool offers what the largest instance type it
allows offers (cpu, memory and GPUs from the instance-type catalogue); a
resource it cannot know (pods, ephemeral storage, other extended
resources, every resource of a pool whose instance types are unknown) is
not judged (docs/inventory.md). A pod with spec.nodeName skips
the scheduler: it is reported when its node is not in the inventory or the
kubelet's admission check there (resources, node selector and affinity,
NoExecute taints) would reject it. DaemonSets follow the DaemonSet
controller's node choice: a daemon pod is reported when the scheduler would
leave it Pending on a node the controller picked (nodes the controller skips
are daemonset-uncovered-nodes' business, a DaemonSet it puts on no node at
all daemonset-no-nodes').

Where a toleration nearly matches a taint the pods need, this rule gives the
fix and toleration-unmatched says nothing about that toleration: one cause,
one finding. The detail never advises a workload other than a DaemonSet to
tolerate a node-condition taint (not-ready, unreachable, the pressure taints,
network-unavailable, unschedulable, the cloud provider's uninitialized and
shutdown, out-of-service): such a node takes pods again once it recovers. For
a taint keyed by an extended resource the pod requests (nvidia.com/gpu), it
says that the ExtendedResourceToleration admission plugin would add the
toleration: the plugin is off by default upstream and on in GKE and some EKS
setups; set admission: {extendedResourceToleration: true} in .taintlint.yaml
when your cluster runs it.

Known false positives: other pods are not modelled, so a pod that fits only
after the cluster autoscaler adds a node (a pool scaled to zero, absent from
the inventory) is reported; with --node-state as-is, an inventory taken while a pool is
cordoned or NotReady reports pods that will fit once it recovers (by
default that transient state is left out). Suppress with
ignore-check.taintlint.io/pod-unschedulable: "<reason>" on the object, or by
object or path in .taintlint.yaml.`,
		Bad: `# nodes: gpu-a-1, gpu-a-2 tainted nvidia.com/gpu=present:NoSchedule
nodeSelector:
  pool: gpu
tolerations:
- key: nvidia.com/gpu
  operator: Equal
  value: "true"        # the taint's value is "present"
  effect: NoSchedule`,
		Good: `nodeSelector:
  pool: gpu
tolerations:
- key: nvidia.com/gpu
  operator: Exists
  effect: NoSchedule`,
		Run: func(p *rules.Pass) error {
			if !p.Input.HasInventory() {
				return nil
			}
			reportAll(p, s, func(f placed) *rules.Diagnostic { return f.unschedulable })
			return nil
		},
	})
}

// unschedulable is pod-unschedulable's finding on pl, or nil.
func unschedulable(in *rules.Input, pl *scheduling.Placement) *rules.Diagnostic {
	w := pl.Workload
	var head string
	switch {
	case pl.Rejected != "":
		head = "admission would reject the pod: " + pl.Rejected
	case pl.Message == "":
		return nil
	case pl.Mode == scheduling.NodeName && pl.Target == nil:
		head = pl.Message
	case pl.Mode == scheduling.NodeName:
		head = fmt.Sprintf("spec.nodeName pins the pod to node %s, whose kubelet would reject it: %s", pl.Target.Node.Name, pl.Message)
	case pl.Mode == scheduling.Daemon:
		head = fmt.Sprintf("%s (daemon pod for node %s)", pl.Message, pl.PendingNode.Node.Name)
	default:
		head = pl.Message
	}
	return explained(w, head, pl.Details(in.Gates))
}

// explained is a finding on w's pod spec: head, then a line per detail,
// with the taints and near-miss tolerations the details name as related
// places.
func explained(w *k8s.Workload, head string, details []scheduling.Detail) *rules.Diagnostic {
	lines := []string{head}
	var related []rules.Related
	for _, d := range details {
		lines = append(lines, d.Text)
		if d.Node != nil && len(related) < maxRelated {
			related = append(related, rules.RelatedAt(d.Site(), d.Path, "%s", relatedText(d)))
		}
		if d.Toleration >= 0 && len(related) < maxRelated {
			related = append(related, rules.RelatedAt(w.Object, w.TolerationPath(d.Toleration), "this toleration nearly matches the taint"))
		}
	}
	return newPending(w.Object, w.SpecPathString(), strings.Join(lines, "\n"), related)
}

// relatedText is a detail line cut to what the related place shows.
func relatedText(d scheduling.Detail) string {
	t := d.Text
	if i := strings.Index(t, "; "); i > 0 {
		t = t[:i]
	}
	return t
}

func podPrefersAvoidedNodes(s *rules.Prerequisite) *rules.Rule {
	return rule(rules.Rule{
		Requires:       []*rules.Prerequisite{s},
		ID:             "pod-prefers-avoided-nodes",
		Summary:        "Workload's pods fit only nodes whose PreferNoSchedule taints they do not tolerate",
		Severity:       rules.Warning,
		NeedsInventory: true,
		Doc: `PreferNoSchedule is a soft taint: the scheduler avoids such nodes but uses them
when nothing else fits. Every node these pods fit carries a PreferNoSchedule
taint they do not tolerate, so they always land where the cluster's owners
asked workloads not to go (spot capacity, a pool being drained). Tolerate the
taint if the placement is intended, or fix the selector, affinity or
toleration that keeps the pods off the other nodes.

DaemonSets are never reported: each daemon pod is pinned to its node, so the
PreferNoSchedule score cannot move it (the DaemonSet controller ignores
PreferNoSchedule). Pods with spec.nodeName skip the scheduler and are not
reported either.

Known false positives: other pods are not modelled, so a pool that is full in
the cluster but empty in the inventory is not weighed; and an inventory taken
while the clean nodes were absent (scaled down), or cordoned with
--node-state as-is, reports pods that normally land elsewhere. Suppress with
ignore-check.taintlint.io/pod-prefers-avoided-nodes: "<reason>" on the object.`,
		Bad: `# nodes: spot-1 tainted cloud.example.com/spot=true:PreferNoSchedule;
# the other nodes lack the label
nodeSelector:
  lifecycle: spot`,
		Good: `nodeSelector:
  lifecycle: spot
tolerations:
- key: cloud.example.com/spot
  operator: Exists
  effect: PreferNoSchedule`,
		Run: func(p *rules.Pass) error {
			if !p.Input.HasInventory() {
				return nil
			}
			reportAll(p, s, func(f placed) *rules.Diagnostic { return f.avoided })
			return nil
		},
	})
}

// avoided is pod-prefers-avoided-nodes' finding on pl, or nil.
func avoided(pl *scheduling.Placement) *rules.Diagnostic {
	if !pl.OnlyAvoided() {
		return nil
	}
	w := pl.Workload
	lines := []string{fmt.Sprintf("fits only %s, each with a PreferNoSchedule taint the pod does not tolerate; the scheduler puts it there only because nothing else fits", pl.FitSummary())}
	var related []rules.Related
	for _, d := range pl.AvoidedDetails() {
		lines = append(lines, "untolerated taint "+d.Text)
		if len(related) < maxRelated {
			related = append(related, rules.RelatedAt(d.Site(), d.Path, "PreferNoSchedule taint on %s", d.Node.Node.Name))
		}
	}
	return newPending(w.Object, w.SpecPathString(), strings.Join(lines, "\n"), related)
}

func daemonSetNoNodes(s *rules.Prerequisite) *rules.Rule {
	return rule(rules.Rule{
		Requires:       []*rules.Prerequisite{s},
		ID:             "daemonset-no-nodes",
		Summary:        "DaemonSet runs a pod on no node of the inventory",
		Severity:       rules.Warning,
		NeedsInventory: true,
		Doc: `The DaemonSet controller creates a daemon pod on a node only when the
template's nodeName (if any), nodeSelector and required node affinity select
the node and every NoSchedule and NoExecute taint there is tolerated, with the
tolerations the controller adds itself (not-ready and unreachable NoExecute,
the pressure taints, unschedulable, and network-unavailable with
hostNetwork). When that holds for no node of the inventory, the DaemonSet
runs nowhere, and nothing in the cluster says so: there is no Pending pod and
no event. A typo in a selector (` + "`pool: gpus`" + ` where the nodes say
` + "`pool: gpu`" + `) or a toleration that misses the pool's taint looks
exactly like this.

The message counts the nodes by the controller's reason, as the scheduler's
FailedScheduling event counts its filters, then gives the detail
pod-unschedulable gives: which taints on which nodes, with the toleration that
would admit them (or the fix for one that nearly matches), and which labels
were missing or different, with the inventory's nearest value or key one edit
away. A daemon pod the controller does create but the scheduler cannot place
(resources, a RuntimeClass's nodeSelector) is pod-unschedulable's finding;
admission plugins change only those pods, never the controller's choice.
When this rule fires, daemonset-uncovered-nodes says nothing about the same
DaemonSet: the taints are listed here.

Known false positives: charts ship DaemonSets for one operating system,
architecture or pool (` + "`kubernetes.io/os: windows`" + `, an arm64 or GPU
agent) that rightly run nowhere on an inventory without such nodes, and an
inventory taken from one cluster misses the pools of another. Suppress those
on the object with the reason:
` + "`ignore-check.taintlint.io/daemonset-no-nodes: \"Windows nodes only; this cluster has none\"`" + `,
or in .taintlint.yaml by object. How the rule judges public DaemonSets
(Calico, Cilium, kube-proxy, NVIDIA, NFD, ingress-nginx, ...) is in
docs/daemonsets-in-the-wild.md.`,
		Bad: `# nodes: gpu-1, gpu-2 labelled pool=gpu
kind: DaemonSet
spec:
  template:
    spec:
      nodeSelector:
        pool: gpus        # no node has pool=gpus`,
		Good: `kind: DaemonSet
spec:
  template:
    spec:
      nodeSelector:
        pool: gpu`,
		Run: func(p *rules.Pass) error {
			if !p.Input.HasInventory() {
				return nil
			}
			reportAll(p, s, func(f placed) *rules.Diagnostic { return f.nowhere })
			return nil
		},
	})
}

// nowhere is daemonset-no-nodes' finding on pl, or nil.
func nowhere(in *rules.Input, pl *scheduling.Placement) *rules.Diagnostic {
	if !pl.RunsNowhere() {
		return nil
	}
	details := pl.NoNodesDetails(in.Gates)
	if platformExcluded(&pl.Workload.Spec, in.Nodes) {
		details = append(details, scheduling.Detail{Text: "its operating system or architecture selection matches no node: a DaemonSet for another platform rightly runs nowhere on this inventory; if that is the case, suppress with the annotation ignore-check.taintlint.io/daemonset-no-nodes: \"<reason>\"", Toleration: -1})
	}
	return explained(pl.Workload, pl.NoNodesMessage(), details)
}

// platformKeys are the node labels that name a node's operating system
// and architecture.
var platformKeys = []string{"kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/arch"}

// platformExcluded reports whether spec's nodeSelector and required node
// affinity, kept to the operating system and architecture labels, name
// such a label and match no node: the DaemonSet is for another platform.
func platformExcluded(spec *v1.PodSpec, nodes []*k8s.Node) bool {
	named := false
	sel := map[string]string{}
	for k, v := range spec.NodeSelector {
		if slices.Contains(platformKeys, k) {
			sel[k], named = v, true
		}
	}
	var aff *v1.Affinity
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		var terms []v1.NodeSelectorTerm
		open := false // a term that names no platform admits every one
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			var kept v1.NodeSelectorTerm
			for _, e := range t.MatchExpressions {
				if slices.Contains(platformKeys, e.Key) {
					kept.MatchExpressions = append(kept.MatchExpressions, e)
				}
			}
			open = open || len(kept.MatchExpressions) == 0
			terms = append(terms, kept)
		}
		if !open && len(terms) > 0 {
			named = true
			aff = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}
		}
	}
	if !named {
		return false
	}
	match := nodeaffinity.NewRequiredNodeAffinity(sel, aff)
	for _, n := range nodes {
		if n.Compatible != nil { // a node pool
			if n.Compatible(sel, aff) == nil {
				return false
			}
		} else if ok, _ := match.Match(&n.Node); ok {
			return false
		}
	}
	return true
}
