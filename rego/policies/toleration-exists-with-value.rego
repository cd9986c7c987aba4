# METADATA
# title: Toleration with operator Exists also sets a value
# description: |-
#   A toleration with `operator: Exists` matches every value of its key, so a
#   `value` beside it would never be used for matching, and the API server
#   rejects the object: "value must be empty when `operator` is 'Exists'" (it
#   reports the error at `.operator`; taintlint points at the `value` line,
#   the one to delete). This holds for pods, pod templates, every workload
#   controller, the tolerations of operators' custom resources (which the
#   operator copies into its pods) and a RuntimeClass's
#   `scheduling.tolerations`.
#
#   Usually the toleration was meant as `operator: Equal`, or its operator was
#   copied from a neighbouring entry. Remove `value` to tolerate every value
#   of the key, or use `operator: Equal` to tolerate only that value.
#
#   Known false positives: none: the API server rejects every such toleration.
#   Suppress with `ignore-check.taintlint.io/toleration-exists-with-value:
#   "<reason>"` only for files that are never applied.
# custom:
#   id: toleration-exists-with-value
#   severity: error
#   kinds: [PodSpec, Placements, RuntimeClass]
#   bad: |-
#     tolerations:
#     - key: nvidia.com/gpu
#       operator: Exists
#       value: "true"
#       effect: NoSchedule
#   good: |-
#     tolerations:
#     - key: nvidia.com/gpu
#       operator: Exists
#       effect: NoSchedule
package taintlint.rules.toleration_exists_with_value

# toleration_lists are the lists ValidateTolerations checks: the pod spec's
# (input.podSpecPath is set for every kind that carries one), an operator's
# custom resource's placement fields (input.placements), which the
# operator copies into its pods, and a RuntimeClass's scheduling.tolerations.
toleration_lists contains {"path": concat(".", [input.podSpecPath, "tolerations"]), "items": input.podSpec.tolerations} if {
	is_string(input.podSpecPath)
	is_array(input.podSpec.tolerations)
}

toleration_lists contains {"path": concat(".", [p.path, "tolerations"]), "items": p.value.tolerations} if {
	some p in input.placements
	is_array(p.value.tolerations)
}

toleration_lists contains {"path": "scheduling.tolerations", "items": input.object.scheduling.tolerations} if {
	input.kind == "RuntimeClass"
	startswith(input.apiVersion, "node.k8s.io/")
	is_array(input.object.scheduling.tolerations)
}

# A value that is not a string (value: 5, value: yes) fails decoding first;
# parse-error reports it, and the API server never gets this far.
deny contains {"msg": msg, "path": sprintf("%s[%d].value", [list.path, i])} if {
	some list in toleration_lists
	some i, tol in list.items
	tol.operator == "Exists"
	is_string(tol.value)
	tol.value != ""
	msg := sprintf(
		"toleration operator is Exists, so value %q is ignored by matching and rejected by the API server: remove value, or use operator Equal (API server: %s[%d].operator: Invalid value: %q: value must be empty when `operator` is 'Exists')",
		[tol.value, list.path, i, tol.value],
	)
}
