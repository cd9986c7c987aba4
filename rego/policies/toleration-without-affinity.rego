# METADATA
# title: Toleration of a dedicated-node taint without a selector that draws pods there
# description: |-
#   Dedicated nodes take two halves: a taint keeps other pods off, and a
#   toleration plus a nodeSelector or required node affinity puts the right
#   pods on. A toleration alone only *allows* the dedicated nodes: the
#   scheduler may still place the pods anywhere, and usually does, so the
#   dedicated nodes stay empty while the pods compete on general ones.
#
#   The rule looks at tolerations of custom NoSchedule keys (not the
#   node-condition, cloud, autoscaler, spot, architecture or control-plane
#   taints, nor the keys under `runtimeTaints:` in `.taintlint.yaml`) on workloads
#   that are not DaemonSets, with no nodeSelector, required node affinity,
#   nodeName or RuntimeClass. A toleration whose key is an extended resource
#   the containers request (`nvidia.com/gpu`) is fine: the request itself
#   draws the pod to those nodes. Add a nodeSelector or required node affinity
#   on the label of the dedicated nodes.
#
#   The tolerations of operators' custom resources that the operator copies
#   into its pods (`input.placements`: Rook's placements, Argo Workflows,
#   Spark; Strimzi's `template.pod` is a pod template) are judged the same way, one
#   finding per placement; since operators merge placements (Rook's `all`
#   into each component, a workflow's into its templates), a placement is
#   drawn when any placement of the resource, or its pod template, sets a
#   nodeSelector or required node affinity.
#
#   A toleration that tolerates no taint of the inventory is
#   `toleration-unmatched`'s (or, when the pods need it, `pod-unschedulable`'s):
#   it lets the pods onto no dedicated node, so this rule says nothing about
#   it.
#
#   Known false positives: pods meant to use the dedicated nodes only as spare
#   room (batch work that may run anywhere), and selection by means the rule
#   does not read (a mutating webhook or PodNodeSelector adding the
#   selector). Suppress with
#   `ignore-check.taintlint.io/toleration-without-affinity: "<reason>"`.
# custom:
#   id: toleration-without-affinity
#   severity: note
#   kinds: [PodSpec, Placements]
#   bad: |-
#     tolerations:
#     - key: dedicated
#       value: batch
#       effect: NoSchedule
#   good: |-
#     nodeSelector:
#       dedicated: batch
#     tolerations:
#     - key: dedicated
#       value: batch
#       effect: NoSchedule
package taintlint.rules.toleration_without_affinity

import data.taintlint.lib

# daemon: a DaemonSet, or a Pod a DaemonSet made (kubectl get pods -o yaml).
daemon if input.facts.daemonSet

daemon if input.kind == "DaemonSet"

daemon if {
	input.kind == "Pod"
	some owner in input.object.metadata.ownerReferences
	owner.kind == "DaemonSet"
}

# One finding, at the first dedicated toleration, naming every dedicated
# key. The first index and the keys are rules, evaluated once per object:
# written inside deny's body they were evaluated once per toleration,
# quadratic in the number of tolerations.
deny contains {"msg": msg, "path": tol.path} if {
	not daemon
	not drawn
	some tol in dedicated
	tol.index == first_dedicated
	keys := dedicated_keys
	msg := sprintf(
		"toleration %s lets pods onto nodes dedicated with the %s %s, but no nodeSelector or required node affinity draws them there, so they may land on any node: add a nodeSelector on the dedicated nodes' label",
		[lib.toleration_string(tol), concat(", ", keys), lib.plural(count(keys), "taint", "taints")],
	)
}

first_dedicated := min({t.index | some t in dedicated})

dedicated_keys := sort({t.key | some t in dedicated})

dedicated contains tol if {
	some tol in input.facts.tolerations
	tol.source == "manifest"
	tol.key != ""
	not tol.runtimeTaint
	tol.effect in {"", "NoSchedule"}
	tol.tolerationSeconds == null
	lib.valid_toleration(tol)
	not tol.requested
	object.get(tol, "toleratesInventory", null) != false
}

# Each reads one field of the pod spec, not the whole of it: findings are
# reused across workloads that agree on what the rule reads.
drawn if count(input.podSpec.nodeSelector) > 0

drawn if count(input.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) > 0

drawn if input.podSpec.nodeName != ""

drawn if input.podSpec.runtimeClassName != ""

# A custom resource's tolerations, which the operator copies into its
# pods: one finding per placement, at its first dedicated toleration.
deny contains {"msg": msg, "path": sprintf("%s.tolerations[%d]", [path, i])} if {
	not drawn
	not placements_drawn
	some path in {d.path | some d in placement_dedicated}
	i := min({d.index | some d in placement_dedicated; d.path == path})
	some d in placement_dedicated
	d.path == path
	d.index == i
	keys := sort({e.tol.key | some e in placement_dedicated; e.path == path})
	msg := sprintf(
		"toleration %s lets the operator's pods onto nodes dedicated with the %s %s, but no nodeSelector or required node affinity of this resource draws them there, so they may land on any node: add a nodeSelector on the dedicated nodes' label",
		[lib.toleration_string(d.tol), concat(", ", keys), lib.plural(count(keys), "taint", "taints")],
	)
}

placement_dedicated contains {"path": p.path, "index": i, "tol": tol} if {
	some p in input.placements
	some i, tol in p.value.tolerations
	fact := p.facts.tolerations[i]
	is_string(tol.key)
	tol.key != ""
	not fact.runtimeTaint
	object.get(tol, "effect", "") in {"", null, "NoSchedule"}
	object.get(tol, "tolerationSeconds", null) == null
	lib.valid_toleration(tol)
	object.get(fact, "toleratesInventory", null) != false
}

placements_drawn if {
	some p in input.placements
	count(p.value.nodeSelector) > 0
}

placements_drawn if {
	some p in input.placements
	count(p.value.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) > 0
}

placements_drawn if {
	some p in input.placements
	count(p.value.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) > 0
}
