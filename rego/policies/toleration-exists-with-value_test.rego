package taintlint.rules.toleration_exists_with_value_test

import data.taintlint.rules.toleration_exists_with_value as rule

pod(tolerations) := {
	"apiVersion": "v1",
	"kind": "Pod",
	"podSpecPath": "spec",
	"podSpec": {"containers": [{"name": "a"}], "tolerations": tolerations},
	"object": {},
}

# SEMANTICS.md §9.4 V3, message word for word.
test_v3_exists_with_value if {
	rule.deny == {{
		"msg": "toleration operator is Exists, so value \"bar\" is ignored by matching and rejected by the API server: remove value, or use operator Equal (API server: spec.tolerations[0].operator: Invalid value: \"bar\": value must be empty when `operator` is 'Exists')",
		"path": "spec.tolerations[0].value",
	}} with input as pod([{"key": "foo", "operator": "Exists", "value": "bar"}])
}

test_clean_tolerations if {
	count(rule.deny) == 0 with input as pod([
		{"key": "foo", "operator": "Exists"},
		{"key": "foo", "operator": "Exists", "value": ""},
		{"key": "foo", "operator": "Exists", "value": null},
		{"key": "foo", "operator": "Equal", "value": "bar"},
		{"key": "foo", "value": "bar"},
		{"operator": "Exists"},
	])
}

# Lower-case exists is toleration-operator-invalid's business.
test_operator_is_case_sensitive if {
	count(rule.deny) == 0 with input as pod([{"key": "foo", "operator": "exists", "value": "bar"}])
}

# Non-string values are parse errors, reported by parse-error.
test_non_string_value_ignored if {
	count(rule.deny) == 0 with input as pod([
		{"key": "foo", "operator": "Exists", "value": 5},
		{"key": "foo", "operator": "Exists", "value": true},
	])
}

# The empty-key check (V1/V2) and this one are independent: both fire.
test_empty_key_with_value if {
	paths := {f.path | some f in rule.deny} with input as pod([{"operator": "Exists", "value": "x"}])
	paths == {"spec.tolerations[0].value"}
}

test_index_and_quoting if {
	findings := rule.deny with input as pod([
		{"key": "a", "operator": "Exists"},
		{"key": "b", "operator": "Exists", "value": "say \"hi\""},
	])
	some f in findings
	f.path == "spec.tolerations[1].value"
	contains(f.msg, `value "say \"hi\"" is ignored`)
	contains(f.msg, `spec.tolerations[1].operator: Invalid value: "say \"hi\""`)
}

test_deployment_path if {
	findings := rule.deny with input as {
		"apiVersion": "apps/v1",
		"kind": "Deployment",
		"podSpecPath": "spec.template.spec",
		"podSpec": {"tolerations": [{"key": "gpu", "operator": "Exists", "value": "gpu"}]},
		"object": {},
	}
	{f.path | some f in findings} == {"spec.template.spec.tolerations[0].value"}
}

test_runtime_class if {
	findings := rule.deny with input as {
		"apiVersion": "node.k8s.io/v1",
		"kind": "RuntimeClass",
		"podSpecPath": null,
		"podSpec": null,
		"object": {"scheduling": {"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}},
	}
	some f in findings
	f.path == "scheduling.tolerations[0].value"
	endswith(f.msg, "(API server: scheduling.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists')")
}

test_runtime_class_other_group_ignored if {
	count(rule.deny) == 0 with input as {
		"apiVersion": "example.com/v1",
		"kind": "RuntimeClass",
		"podSpecPath": null,
		"podSpec": null,
		"object": {"scheduling": {"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}},
	}
}

test_no_pod_spec if {
	count(rule.deny) == 0 with input as {"apiVersion": "v1", "kind": "ConfigMap", "podSpecPath": null, "podSpec": null, "object": {}}
}

test_tolerations_not_a_list if {
	count(rule.deny) == 0 with input as pod({"key": "foo", "operator": "Exists", "value": "bar"})
}

# An operator's custom resource: its placements' tolerations, at their paths.
test_placements if {
	rule.deny == {{
		"msg": "toleration operator is Exists, so value \"true\" is ignored by matching and rejected by the API server: remove value, or use operator Equal (API server: spec.placement.mon.tolerations[1].operator: Invalid value: \"true\": value must be empty when `operator` is 'Exists')",
		"path": "spec.placement.mon.tolerations[1].value",
	}} with input as {
		"apiVersion": "ceph.rook.io/v1",
		"kind": "CephCluster",
		"podSpecPath": null,
		"podSpec": null,
		"object": {},
		"placements": [
			{"path": "spec.placement.all", "value": {"nodeAffinity": {}}},
			{"path": "spec.placement.mon", "value": {"tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists", "value": "true"}]}},
		],
	}
}
