// Package scheduling decides, offline, where Kubernetes 1.37 would put the
// pods of a workload on a node inventory, and what taintlint's rules (Go
// and Rego) need to know about that. It owns, for one run:
//
//   - node groups (NewInventory): nodes that scheduling cannot tell apart
//     but by name, grouped once per run (the driver builds the inventory
//     once, for its summary and every rule), with what the filters read of
//     them worked out once (Group: labels, taints, allocatable as the
//     resource check reads it);
//   - the verdict tables: each verdict is computed once per scheduling key
//     and group, the key being the struct the computation reads, written
//     as its JSON encoding shows it (key.go, by hand), so a key cannot
//     leave out what the verdict depends on; a workload whose key was met costs nothing per group (the
//     facts' group verdicts are shared, read only), and the upstream
//     matchers run once per key and group, or per node where the name
//     matters;
//   - placement (Inventory.Place): kube-scheduler's filters in their order
//     (NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit),
//     the first failure per node, worded as a FailedScheduling event would
//     be, then taintlint's own detail; the kubelet's admission check for
//     pods that name their node; the DaemonSet controller's node choice;
//   - near misses (similar): one threshold for every suggestion, so that
//     pod-unschedulable's fix and toleration-unmatched's nearest taint agree;
//   - the facts (Inventory.Facts): per workload, what each toleration
//     tolerates, and each group's verdict, which the Go facts rules and the
//     Rego rules (input.facts, docs/policies.md) read.
//
// Matching is never re-implemented: taints and tolerations go through
// k8s.io/component-helpers' FindMatchingUntoleratedTaint and
// TolerationsTolerateTaint, selectors and affinity through its nodeaffinity
// package, and pod requests through its resource.PodRequests.
//
// Groups leave out the kubernetes.io/hostname label, which differs on
// every node; a pod that selects on it, names its node, or uses matchFields
// is judged node by node within its groups. The cost grows with the
// number of node pools and the run's distinct scheduling keys, not with
// nodes or workloads.
//
// Other pods are not modelled: every node is taken as empty, so hostPorts
// never conflict and a resource is short only when the pod asks for more
// than the node's whole allocatable. Nodes without status.allocatable skip
// the resource check; a node pool's allocatable is known in part
// (k8s.Node.PartialAllocatable), and the resources it does not list are
// not judged.
package scheduling
