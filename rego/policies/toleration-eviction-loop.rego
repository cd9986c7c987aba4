# METADATA
# title: Workload fits a node only by tolerating a NoExecute taint for a limited time
# description: |-
#   A toleration with `tolerationSeconds` tolerates a NoExecute taint for that
#   long, and the scheduler counts the taint as tolerated. When such a taint is
#   permanent, pods are scheduled onto the node, evicted after
#   `tolerationSeconds`, scheduled there again, and so on without end
#   (kubernetes/kubernetes#117520): restarts, lost work and churn that look
#   like a flaky application.
#
#   taintlint finds the node groups of the inventory that the workload fits
#   (node selection, taints, cordon) while the toleration eviction uses for one
#   of their NoExecute taints has a finite `tolerationSeconds` (the taint
#   eviction controller uses the first matching toleration). The built-in
#   not-ready and unreachable taints are left out: they come and go with the
#   node's health. Either tolerate the taint without `tolerationSeconds`, or
#   keep the pods off those nodes with node affinity.
#
#   Known false positives: a taint the inventory snapshot shows but that is
#   temporary in the cluster (a drain or maintenance taint a controller
#   removes), where the finite toleration is the intent. List its key under
#   `runtimeTaints:` or suppress with
#   `ignore-check.taintlint.io/toleration-eviction-loop: "<reason>"`.
# custom:
#   id: toleration-eviction-loop
#   severity: warning
#   kinds: [PodSpec]
#   needs_inventory: true
#   bad: |-
#     # nodes are tainted maintenance=true:NoExecute
#     tolerations:
#     - key: maintenance
#       operator: Exists
#       effect: NoExecute
#       tolerationSeconds: 60
#   good: |-
#     affinity:
#       nodeAffinity:
#         requiredDuringSchedulingIgnoredDuringExecution:
#           nodeSelectorTerms:
#           - matchExpressions:
#             - {key: maintenance, operator: DoesNotExist}
package taintlint.rules.toleration_eviction_loop

import data.taintlint.lib

transient := {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}

# fits: the scheduler (or, for a DaemonSet, the controller) would place a
# pod on the group's nodes.
fits(g) if {
	not input.facts.daemonSet
	g.selected
	count(g.untolerated) == 0
	g.cordonTolerated
}

fits(g) if {
	input.facts.daemonSet
	g.daemonSet.shouldRun
}

loops contains [u.toleration, u.taint, g] if {
	some g in input.facts.nodeGroups
	fits(g)
	some u in g.eviction.uses
	not u.taint.key in transient
	input.facts.tolerations[u.toleration].source in {"manifest", "RuntimeClass"}
}

deny contains {"msg": msg, "path": path} if {
	some [i, taint, _] in loops
	tol := input.facts.tolerations[i]
	groups := [g | some [j, t, g] in loops; j == i; t == taint]
	total := sum([g.count | some g in groups])
	listed := sort([n | some g in groups; some n in g.nodes])
	is_string(tol.path)
	path := concat(".", [tol.path, "tolerationSeconds"])
	msg := sprintf(
		"pods fit %d %s (%s) only by tolerating %s for %ds (toleration %s), so they are scheduled there, evicted after %ds and scheduled there again, without end (kubernetes/kubernetes#117520): tolerate the taint without tolerationSeconds, or keep the pods off these nodes with node affinity",
		[total, lib.plural(total, "node", "nodes"), lib.node_list(listed, total), lib.taint_string(taint), tol.tolerationSeconds, lib.toleration_string(tol), tol.tolerationSeconds],
	)
}
