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
#   DaemonSets are exempt: running on every node is their purpose.
#
#   Known false positives: node-level agents deployed as a Deployment or a
#   static Pod that must run beside the control plane, and operators that
#   schedule their own per-node pods. Suppress with
#   `ignore-check.taintlint.io/toleration-wildcard: "<reason>"`.
# custom:
#   id: toleration-wildcard
#   severity: warning
#   kinds: [PodSpec]
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

# daemon: a DaemonSet, or a Pod a DaemonSet made (kubectl get pods -o yaml).
daemon if input.kind == "DaemonSet"

daemon if {
	input.kind == "Pod"
	some owner in input.object.metadata.ownerReferences
	owner.kind == "DaemonSet"
}

deny contains {"msg": msg, "path": sprintf("%s.tolerations[%d]", [input.podSpecPath, i])} if {
	not daemon
	some i, tol in input.podSpec.tolerations
	object.get(tol, "key", "") in {"", null}
	tol.operator == "Exists"
	effect := object.get(tol, "effect", "")
	effect in {"", null, "NoExecute"}
	object.get(tol, "tolerationSeconds", null) == null
	lib.valid_toleration(tol)
	msg := message(effect)
}

message(effect) := "toleration {operator: Exists} tolerates every taint: pods land on control-plane and dedicated nodes, and are never evicted from a NotReady or unreachable node (DefaultTolerationSeconds adds nothing after a wildcard); tolerate only the taint keys you mean" if {
	effect in {"", null}
}

message("NoExecute") := "toleration {operator: Exists, effect: NoExecute} tolerates every NoExecute taint forever: pods are never evicted from a NotReady or unreachable node (DefaultTolerationSeconds adds nothing after it) nor from a node drained with a NoExecute taint; tolerate only the taint keys you mean, or set tolerationSeconds"
