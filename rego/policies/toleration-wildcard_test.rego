package taintlint.rules.toleration_wildcard_test

import data.taintlint.rules.toleration_wildcard as rule

w(kind, tols) := {"kind": kind, "podSpecPath": "spec.template.spec", "podSpec": {"tolerations": tols}, "facts": {"daemonSet": kind == "DaemonSet"}}

test_wildcard if {
	{f.path | some f in rule.deny} == {"spec.template.spec.tolerations[0]", "spec.template.spec.tolerations[2]"} with input as w("Deployment", [
		{"operator": "Exists"},
		{"operator": "Exists", "effect": "NoSchedule"},
		{"key": "", "operator": "Exists", "effect": "NoExecute"},
		{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
		{"key": "a", "operator": "Exists"},
	])
}

test_daemonset_exempt if {
	count(rule.deny) == 0 with input as w("DaemonSet", [{"operator": "Exists"}])
}

test_operator_daemonset_exempt if {
	count(rule.deny) == 0 with input as object.union(w("Beat", [{"operator": "Exists"}]), {"daemonSet": true})
}

test_placements if {
	{f.path | some f in rule.deny} == {"spec.placement.all.tolerations[1]"} with input as {
		"kind": "CephCluster",
		"podSpecPath": null,
		"podSpec": null,
		"placements": [
			{"path": "spec.placement.all", "value": {"tolerations": [{"key": "storage", "operator": "Exists"}, {"operator": "Exists"}]}},
			{"path": "spec.placement.mon", "value": {"tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}},
		],
	}
}
