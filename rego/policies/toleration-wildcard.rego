# METADATA
# title: Workload tolerates every taint with an empty-key Exists toleration
# description: |-
#   `{operator: Exists}` with no key tolerates every taint. On a workload that
#   is not a DaemonSet this lets its pods onto control-plane nodes and onto
#   nodes dedicated to other teams or hardware, and, with no effect or
#   `effect: NoExecute`, it tolerates `node.kubernetes.io/not-ready` and
#   `unreachable` forever: the pods are never evicted from a dead node, and the
#   DefaultTolerationSeconds admission plugin adds nothing because the wildcard
#   already covers those keys. Replicas stay bound to a node that is gone.
#
#   Tolerate the taint keys you mean instead. `{operator: Exists, effect:
#   NoSchedule}` keeps eviction working but still opens every dedicated node.
#   DaemonSets are exempt: running on every node is their purpose (and so
#   are the templates an operator makes DaemonSets of, ECK's Beat and Agent
#   `daemonSet`, NVIDIA's ClusterPolicy). The tolerations of operators'
#   custom resources that the operator copies into the pods it makes
#   (`input.placements`: Rook's placements, Argo Workflows, Spark) are
#   judged too, and Strimzi's `template.pod` as a pod template.
#
#   Known false positives: node-level agents deployed as a Deployment or a
#   static Pod that must run beside the control plane, and operators that
#   schedule their own per-node pods. Suppress with
#   `ignore-check.taintlint.io/toleration-wildcard: "<reason>"`.
# custom:
#   id: toleration-wildcard
#   severity: warning
#   kinds: [PodSpec, Placements]
#   tags: [security]
#   security_severity: "5.0"
#   bad: |-
#     kind: Deployment
#     spec:
#       template:
#         spec:
#           tolerations:
#           - operator: Exists
#   good: |-
#     kind: Deployment
#     spec:
#       template:
#         spec:
#           tolerations:
#           - key: example.com/batch
#             operator: Exists
#             effect: NoSchedule
package taintlint.rules.toleration_wildcard

import data.taintlint.lib

# daemon: a DaemonSet (an operator's template it makes one of too), or a
# Pod a DaemonSet made (kubectl get pods -o yaml).
daemon if input.kind == "DaemonSet"

daemon if input.daemonSet == true

daemon if {
	input.kind == "Pod"
	some owner in input.object.metadata.ownerReferences
	owner.kind == "DaemonSet"
}

deny contains {"msg": message(object.get(tol, "effect", "")), "path": sprintf("%s.tolerations[%d]", [input.podSpecPath, i])} if {
	not daemon
	some i, tol in input.podSpec.tolerations
	wildcard(tol)
}

# A custom resource's tolerations the operator copies into its pods.
deny contains {"msg": message(object.get(tol, "effect", "")), "path": sprintf("%s.tolerations[%d]", [p.path, i])} if {
	some p in input.placements
	some i, tol in p.value.tolerations
	wildcard(tol)
}

wildcard(tol) if {
	object.get(tol, "key", "") in {"", null}
	tol.operator == "Exists"
	object.get(tol, "effect", "") in {"", null, "NoExecute"}
	object.get(tol, "tolerationSeconds", null) == null
	lib.valid_toleration(tol)
}

message(effect) := "toleration {operator: Exists} tolerates every taint: pods land on control-plane and dedicated nodes, and are never evicted from a NotReady or unreachable node (DefaultTolerationSeconds adds nothing after a wildcard); tolerate only the taint keys you mean" if {
	effect in {"", null}
}

message("NoExecute") := "toleration {operator: Exists, effect: NoExecute} tolerates every NoExecute taint forever: pods are never evicted from a NotReady or unreachable node (DefaultTolerationSeconds adds nothing after it) nor from a node drained with a NoExecute taint; tolerate only the taint keys you mean, or set tolerationSeconds"
