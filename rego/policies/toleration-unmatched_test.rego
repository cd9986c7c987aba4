package taintlint.rules.toleration_unmatched_test

import data.taintlint.rules.toleration_unmatched as rule

tol(t) := object.union({"key": "", "operator": "", "value": "", "effect": "", "tolerationSeconds": null, "source": "manifest", "path": "spec.tolerations[0]", "runtimeTaint": false, "toleratesInventory": false, "nearestTaint": null}, t)

pod(tols) := {"kind": "Pod", "podSpecPath": "spec", "podSpec": {}, "facts": {"tolerations": tols, "inventory": {"nodes": 2}}}

test_misspelt_key if {
	some f in rule.deny with input as pod([tol({"key": "nvidia.com/gpus", "operator": "Exists", "nearestTaint": {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}})])
	f.path == "spec.tolerations[0]"
	contains(f.msg, "matches no taint of the 2 inventory nodes (the nearest is nvidia.com/gpu=present:NoSchedule: a misspelt key?): fix it")
}

test_same_key_other_value if {
	some f in rule.deny with input as pod([tol({"key": "dedicated", "value": "web", "nearestTaint": {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}})])
	contains(f.msg, " (nodes carry dedicated=batch:NoSchedule: check value and effect): fix it")
}

test_exempt if {
	count(rule.deny) == 0 with input as pod([
		tol({"key": "a", "toleratesInventory": true}),
		tol({"key": "node.kubernetes.io/not-ready", "runtimeTaint": true}),
		tol({"key": "", "operator": "Exists"}),
		tol({"key": "a", "source": "DefaultTolerationSeconds"}),
		tol({"key": "a", "operator": "Gt", "value": "5"}),
		tol({"key": "a", "operator": "Exists", "value": "5"}),
		tol({"key": "a", "effect": "noschedule"}),
	])
}

test_no_inventory_facts if {
	count(rule.deny) == 0 with input as {"kind": "Pod", "podSpecPath": "spec", "podSpec": {}, "facts": {"tolerations": [tol({"key": "a", "toleratesInventory": null})], "inventory": null}}
}

# A toleration a scheduling rule explains with its fix is that rule's.
test_explained_by_scheduling_rule if {
	tol := {"key": "nvidia.com/gpus", "operator": "Exists", "value": "", "effect": "NoSchedule", "source": "manifest", "path": "spec.tolerations[0]", "runtimeTaint": false, "toleratesInventory": false, "nearestTaint": null, "explainedBy": "pod-unschedulable"}
	count(rule.deny) == 0 with input as {"facts": {"tolerations": [tol], "inventory": {"nodes": 3}}}
}
