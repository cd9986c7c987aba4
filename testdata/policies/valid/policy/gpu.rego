# METADATA
# title: GPU toleration without a GPU node selector
# description: |-
#   Tolerating the nvidia.com/gpu taint lets a pod onto GPU nodes; it does
#   not keep it off the others. A pod that needs a GPU must also select GPU
#   nodes, or it may land on a node without one and wait there forever.
#   Add nodeSelector nvidia.com/gpu.present: "true".
# related_resources:
#   - ref: https://wiki.example.com/platform/gpu-scheduling
# custom:
#   id: acme-gpu-toleration-needs-selector
#   severity: warning
#   kinds: [PodSpec]
#   tags: [cost, scheduling]
#   bad: |-
#     tolerations:
#     - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
#   good: |-
#     nodeSelector: {nvidia.com/gpu.present: "true"}
#     tolerations:
#     - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
package acme.gpu

import data.acme.lib.k8s

deny contains {
	"msg": sprintf("pod tolerates %s but does not select GPU nodes: add nodeSelector %s: \"true\"", [tol.key, label]),
	"path": sprintf("%s.tolerations[%d]", [input.podSpecPath, i]),
	"related": [{"path": concat(".", [input.podSpecPath, "nodeSelector"]), "msg": "node selector without the GPU label"}],
} if {
	label := "nvidia.com/gpu.present"
	some i, tol in k8s.tolerations
	tol.key == "nvidia.com/gpu"
	not k8s.selects(label, "true")
}
