// Package placement decides, offline, where kube-scheduler 1.37 could put
// the pods of a workload: for every node of an inventory it runs the
// scheduler's filters in their order (NodeUnschedulable, TaintToleration,
// NodeAffinity, NodeResourcesFit), keeps the first failure, and words the
// outcome as a FailedScheduling event would, followed by taintlint's own
// detail.
//
// Matching is never re-implemented: taints and tolerations go through
// k8s.io/component-helpers' FindMatchingUntoleratedTaint and
// TolerationsTolerateTaint, selectors and affinity through its nodeaffinity
// package, and pod requests through its resource.PodRequests.
//
// Nodes whose labels, taints, unschedulable flag and allocatable are equal
// form a group, and each group is evaluated once per pod signature, so the
// cost grows with the number of node pools rather than nodes. A node's name
// only matters to matchFields metadata.name and spec.nodeName; pods that use
// either are evaluated per node where the name can change the verdict.
//
// Other pods are not modelled: every node is taken as empty, so hostPorts
// never conflict and a resource is short only when the pod asks for more
// than the node's whole allocatable. Nodes without status.allocatable skip
// the resource check.
package scheduling
