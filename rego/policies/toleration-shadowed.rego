# METADATA
# title: Toleration with tolerationSeconds shadows a later forever toleration, or evicts at once
# description: |-
#   When a NoExecute taint lands on a node, the taint eviction controller
#   takes, for each taint, the **first** toleration in the list that tolerates
#   it, and evicts the pod after the smallest `tolerationSeconds` among those.
#   A later toleration that tolerates the same taint forever is never used, so
#   an earlier finite one shadows it: the pod is evicted although the list
#   seems to say it stays.
#
#   `tolerationSeconds` of zero or less means "evict at once", the same as no
#   toleration for eviction, but the scheduler still counts the taint as
#   tolerated.
#
#   Put the forever toleration first, or drop the finite one; give a positive
#   number of seconds, or remove a toleration that evicts at once.
#
#   Known false positives: none known for the eviction order, which is the
#   taint eviction controller's; a list written this way on purpose (evict
#   from one kind of node, the witness taint never present) can be accepted
#   with `ignore-check.taintlint.io/toleration-shadowed: "<reason>"`.
# custom:
#   id: toleration-shadowed
#   severity: note
#   kinds: [PodSpec]
#   bad: |-
#     tolerations:
#     - key: example.com/maintenance
#       operator: Exists
#       effect: NoExecute
#       tolerationSeconds: 60
#     - operator: Exists
#   good: |-
#     tolerations:
#     - operator: Exists
package taintlint.rules.toleration_shadowed

import data.taintlint.lib

# eviction_condition: a DaemonSet toleration used for not-ready or
# unreachable is daemonset-pressure-tolerations' business.
eviction_condition(i) if {
	input.facts.daemonSet
	some b in input.facts.builtinTaints
	b.effect == "NoExecute"
	b.key in {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}
	b.toleration == i
}

deny contains {"msg": msg, "path": concat(".", [tol.path, "tolerationSeconds"])} if {
	some i, tol in input.facts.tolerations
	tol.source == "manifest"
	lib.valid_toleration(tol)
	is_number(tol.tolerationSeconds)
	tol.tolerationSeconds > 0
	later := [sprintf("%s (tolerations[%d])", [lib.toleration_string(u), u.index]) |
		some j in tol.shadows
		u := input.facts.tolerations[j]
		u.source == "manifest"
	]
	count(later) > 0
	not eviction_condition(i)
	msg := sprintf(
		"toleration %s comes before %s, which %s the same NoExecute taints forever, but eviction uses only the first toleration that matches: pods are evicted after %ds; put the forever toleration first, or remove this one",
		[lib.toleration_string(tol), concat(", ", later), lib.plural(count(later), "tolerates", "tolerate"), tol.tolerationSeconds],
	)
}

deny contains {"msg": msg, "path": concat(".", [tol.path, "tolerationSeconds"])} if {
	some i, tol in input.facts.tolerations
	tol.source == "manifest"
	tol.effect == "NoExecute"
	lib.valid_toleration(tol)
	is_number(tol.tolerationSeconds)
	tol.tolerationSeconds <= 0
	not eviction_condition(i)
	msg := sprintf(
		"tolerationSeconds %d evicts pods at once when the taint appears, as if there were no toleration, yet the scheduler still places pods on nodes with it: give a positive number of seconds, remove tolerationSeconds to tolerate it forever, or remove the toleration",
		[tol.tolerationSeconds],
	)
}
