# METADATA
# title: DaemonSet leaves NotReady nodes, cannot start on new nodes, or tolerates a condition taint with an effect it never has
# description: |-
#   The DaemonSet controller adds tolerations to every daemon pod: forever for
#   `node.kubernetes.io/not-ready` and `unreachable` (NoExecute), and for
#   `disk-pressure`, `memory-pressure`, `pid-pressure` and `unschedulable`
#   (NoSchedule), plus `network-unavailable` with `hostNetwork`. An ordinary
#   DaemonSet needs nothing more. This rule takes those additions into account
#   and fires in three cases:
#
#   - A toleration of its own makes daemon pods leave a NotReady or unreachable
#     node after `tolerationSeconds`. The controller replaces a toleration's
#     seconds only when key, operator, value and effect all equal its own
#     (`operator: Exists`, `effect: NoExecute`); otherwise it appends its
#     forever toleration after yours, and eviction uses the first toleration
#     that matches: yours.
#   - It runs host-level plumbing (`hostNetwork`, or priority class
#     `system-node-critical` / `system-cluster-critical`) yet does not tolerate
#     `node.kubernetes.io/not-ready:NoSchedule`, which every new node carries
#     until it is Ready, `node.kubernetes.io/network-unavailable:NoSchedule`
#     (the controller adds it only with `hostNetwork`), or
#     `node.cloudprovider.kubernetes.io/uninitialized`, which a node with an
#     external cloud provider carries until the cloud controller initialises
#     it. The pod cannot start on a node that is still coming up, and the node
#     may be waiting for it (CNI, storage, device plugins).
#   - It tolerates a node-condition taint key with an effect that taint never
#     has (`memory-pressure` is only ever NoSchedule), so the toleration does
#     nothing.
#
#   Fix: drop `tolerationSeconds` from not-ready/unreachable tolerations (or
#   write them exactly as the controller does), add the start-up tolerations,
#   and use the effect the node lifecycle controller really sets.
# custom:
#   id: daemonset-pressure-tolerations
#   severity: warning
#   kinds: [DaemonSet]
#   bad: |-
#     kind: DaemonSet
#     spec:
#       template:
#         spec:
#           hostNetwork: true
#           tolerations:
#           - key: node.kubernetes.io/not-ready
#             effect: NoExecute
#             tolerationSeconds: 300
#   good: |-
#     kind: DaemonSet
#     spec:
#       template:
#         spec:
#           hostNetwork: true
#           tolerations:
#           - operator: Exists
package taintlint.rules.daemonset_pressure_tolerations

import data.taintlint.lib

eviction_keys := {"node.kubernetes.io/not-ready": "NotReady", "node.kubernetes.io/unreachable": "unreachable"}

# (a) A manifest toleration is the first match for not-ready or unreachable
# NoExecute, and it has seconds: the controller's forever one comes after.
deny contains {"msg": msg, "path": concat(".", [tol.path, "tolerationSeconds"])} if {
	input.facts.daemonSet
	some i, tol in input.facts.tolerations
	tol.source == "manifest"
	is_number(tol.tolerationSeconds)
	conditions := sort([eviction_keys[b.key] |
		some b in input.facts.builtinTaints
		b.effect == "NoExecute"
		eviction_keys[b.key]
		b.toleration == i
	])
	count(conditions) > 0
	msg := sprintf(
		"toleration %s is the one eviction uses for the %s %s (NoExecute), so daemon pods leave a %s node %s; the DaemonSet controller's own forever toleration is appended after it, because it replaces only a toleration with the same key, operator, value and effect: remove tolerationSeconds (or the whole toleration) to keep daemon pods on such nodes",
		[lib.toleration_string(tol), concat(" and ", conditions), lib.plural(count(conditions), "taint", "taints"), concat(" or ", conditions), when(tol.tolerationSeconds)],
	)
}

when(s) := "at once" if s <= 0

when(s) := sprintf("after %ds", [s]) if s > 0

plumbing := "hostNetwork" if input.podSpec.hostNetwork == true

plumbing := sprintf("priorityClassName %s", [input.podSpec.priorityClassName]) if {
	not input.podSpec.hostNetwork == true
	input.podSpec.priorityClassName in {"system-node-critical", "system-cluster-critical"}
}

startup_taint(b) if {
	b.key == "node.kubernetes.io/not-ready"
	b.effect == "NoSchedule"
}

startup_taint(b) if {
	b.key == "node.kubernetes.io/network-unavailable"
	not input.podSpec.hostNetwork == true
}

startup_taint(b) if b.key == "node.cloudprovider.kubernetes.io/uninitialized"

# (b) Host plumbing that cannot start on a node that is coming up.
deny contains {"msg": msg, "path": lib.tolerations_path} if {
	input.facts.daemonSet
	why := plumbing
	missing := [b |
		some b in input.facts.builtinTaints
		startup_taint(b)
		not b.tolerated
	]
	count(missing) > 0
	names := [lib.taint_string(b) | some b in missing]
	fixes := [sprintf("{key: %s, operator: Exists, effect: %s}", [b.key, b.effect]) | some b in missing]
	msg := sprintf(
		"DaemonSet runs host-level plumbing (%s) but does not tolerate %s, so its pods cannot start on a node that is still coming up (the DaemonSet controller does not add %s): add %s, or tolerate every taint with {operator: Exists}",
		[why, concat(", ", names), lib.plural(count(missing), "it", "them"), concat(", ", fixes)],
	)
}

# Effects the node lifecycle controller and cloud controllers give each
# node-condition taint (SEMANTICS.md §7).
condition_effects := {
	"node.kubernetes.io/not-ready": {"NoSchedule", "NoExecute"},
	"node.kubernetes.io/unreachable": {"NoSchedule", "NoExecute"},
	"node.kubernetes.io/memory-pressure": {"NoSchedule"},
	"node.kubernetes.io/disk-pressure": {"NoSchedule"},
	"node.kubernetes.io/pid-pressure": {"NoSchedule"},
	"node.kubernetes.io/network-unavailable": {"NoSchedule"},
	"node.kubernetes.io/unschedulable": {"NoSchedule"},
	"node.cloudprovider.kubernetes.io/uninitialized": {"NoSchedule"},
	"node.cloudprovider.kubernetes.io/shutdown": {"NoSchedule"},
}

# (c) A condition key with an effect that taint never carries.
deny contains {"msg": msg, "path": sprintf("%s.tolerations[%d].effect", [input.podSpecPath, i])} if {
	input.facts.daemonSet
	some i, tol in input.podSpec.tolerations
	effects := condition_effects[tol.key]
	tol.effect in {"NoSchedule", "PreferNoSchedule", "NoExecute"}
	not tol.effect in effects
	msg := sprintf(
		"%s is only ever a %s taint, so this %s toleration tolerates nothing: use effect %s, or leave effect out",
		[tol.key, concat(" and ", sort(effects)), tol.effect, concat(" or ", sort(effects))],
	)
}
