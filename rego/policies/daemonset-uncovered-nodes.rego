# METADATA
# title: DaemonSet skips nodes it selects because it does not tolerate their taints
# description: |-
#   A DaemonSet runs a pod on every node its nodeSelector and required node
#   affinity select, except where a NoSchedule or NoExecute taint is not
#   tolerated: there the DaemonSet controller silently creates nothing. Logs,
#   metrics, CNI or a device plugin are then missing on exactly the nodes that
#   were tainted later, such as a new GPU pool or the control plane.
#
#   taintlint decides this with the controller's own logic, its added
#   tolerations included (it ignores cordons, PreferNoSchedule and resources,
#   as the controller does), on every node group of the inventory. One
#   finding per DaemonSet lists the skipped nodes by taint, each with the
#   toleration that would let the daemon pods onto them. If
#   skipping those nodes is intended, make it explicit with a nodeSelector or
#   node affinity that excludes them, or suppress the finding with a reason.
#
#   A DaemonSet the controller puts on no node at all is
#   `daemonset-no-nodes`' finding, with the same taints: this rule then says
#   nothing.
#
#   Known false positives: a DaemonSet meant for some pools only that selects
#   them by toleration alone (it relies on the other pools' taints to stay
#   off them); write the selector, or suppress with
#   `ignore-check.taintlint.io/daemonset-uncovered-nodes: "<reason>"`. An
#   inventory snapshot's NotReady, uninitialised or out-of-service nodes are
#   left out: their condition taints go when the node recovers, and the
#   controller then creates the pod.
#   docs/daemonsets-in-the-wild.md shows the rule on public DaemonSets.
# custom:
#   id: daemonset-uncovered-nodes
#   severity: warning
#   kinds: [DaemonSet]
#   needs_inventory: true
#   bad: |-
#     # nodes: gpu-1 tainted nvidia.com/gpu=present:NoSchedule
#     kind: DaemonSet
#     spec:
#       template:
#         spec:
#           containers: [{name: agent, image: agent}]
#   good: |-
#     kind: DaemonSet
#     spec:
#       template:
#         spec:
#           containers: [{name: agent, image: agent}]
#           tolerations:
#           - key: nvidia.com/gpu
#             operator: Exists
#             effect: NoSchedule
package taintlint.rules.daemonset_uncovered_nodes

import data.taintlint.lib

# runs: the controller puts a pod on some node. A DaemonSet that runs
# nowhere is daemonset-no-nodes' finding, which lists the taints itself.
runs if {
	some g in input.facts.nodeGroups
	g.daemonSet.shouldRun
}

# condition holds for a taint Kubernetes puts on a node for its state
# (not-ready, network-unavailable, the cloud provider's uninitialized,
# out-of-service, ...): input.facts.builtinTaints lists their keys. The
# controller creates the pod once the node recovers; a network plugin that
# must start before is daemonset-pressure-tolerations' business.
condition(t) if {
	some b in input.facts.builtinTaints
	b.key == t.key
}

# skipped are the node groups the controller skips for a taint alone, one
# that is not a node condition.
skipped contains g if {
	some g in input.facts.nodeGroups
	g.daemonSet.reason == "taint"
	some t in g.untolerated
	not condition(t)
}

# taints are the untolerated taints of skipped groups, with their fixes.
taints contains [t, fix] if {
	some g in skipped
	some i, t in g.untolerated
	not condition(t)
	fix := g.fixes[i]
}

# skipped_taints pairs each skipped group with the set of its untolerated
# taints, built once, so that taint_line asks a set (a hash lookup) which
# groups carry a taint. Asking g.untolerated, an array, scanned it for
# every taint: quadratic on a node with thousands of taints.
skipped_taints := [{"group": g, "taints": {t | some t in g.untolerated}} | some g in skipped]

# Like every scheduling rule, findings point at the pod spec (CONTRACT.md).
# One finding per DaemonSet, a line per untolerated taint: a DaemonSet kept
# off several pools is one thing to fix, not one warning per pool.
deny contains {"msg": msg, "path": input.podSpecPath} if {
	runs
	count(taints) > 0
	total := sum([g.count | some g in skipped])
	listed := sort([n | some g in skipped; some n in g.nodes])
	lines := sort([taint_line(t, fix) | some [t, fix] in taints])
	msg := sprintf(
		"DaemonSet does not run on %d %s that its nodeSelector and affinity select (%s), because of %s it does not tolerate:\n%s",
		[total, lib.plural(total, "node", "nodes"), lib.node_list(listed, total), lib.plural(count(lines), "a taint", "taints"), concat("\n", lines)],
	)
}

# taint_line: the taint, the nodes that carry it, and the toleration that
# lets the daemon pods onto them.
taint_line(t, fix) := sprintf("%s on %d %s (%s): add the toleration %s", [lib.taint_string(t), total, lib.plural(total, "node", "nodes"), lib.node_list(listed, total), lib.toleration_string(fix)]) if {
	groups := [s.group | some s in skipped_taints; t in s.taints]
	total := sum([g.count | some g in groups])
	listed := sort([n | some g in groups; some n in g.nodes])
}
