package taintlint.rules.toleration_without_affinity_test

import data.taintlint.rules.toleration_without_affinity as rule

tol(i, t) := object.union({"key": "", "operator": "", "value": "", "effect": "", "tolerationSeconds": null, "source": "manifest", "index": i, "path": sprintf("spec.tolerations[%d]", [i]), "runtimeTaint": false, "requested": false}, t)

pod(spec, tols) := {"kind": "Pod", "podSpecPath": "spec", "podSpec": spec, "facts": {"daemonSet": false, "tolerations": tols}}

test_dedicated_without_selector if {
	findings := rule.deny with input as pod({}, [
		tol(0, {"key": "example.com/x", "effect": "NoExecute", "operator": "Exists"}),
		tol(1, {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}),
		tol(2, {"key": "team", "operator": "Exists"}),
	])
	{f.path | some f in findings} == {"spec.tolerations[1]"}
	some f in findings
	contains(f.msg, "dedicated with the dedicated, team taints")
}

test_drawn if {
	tols := [tol(0, {"key": "dedicated", "value": "batch", "effect": "NoSchedule"})]
	count(rule.deny) == 0 with input as pod({"nodeSelector": {"a": "b"}}, tols)
	count(rule.deny) == 0 with input as pod({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}}}}, tols)
	count(rule.deny) == 0 with input as pod({"nodeName": "n"}, tols)
}

test_requested_resource if {
	count(rule.deny) == 0 with input as pod(
		{"containers": [{"resources": {"limits": {"nvidia.com/gpu": 1}}}]},
		[tol(0, {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule", "requested": true})],
	)
}

test_runtime_keys_exempt if {
	count(rule.deny) == 0 with input as pod({}, [tol(0, {"key": "CriticalAddonsOnly", "operator": "Exists", "runtimeTaint": true})])
}

# A toleration that tolerates no inventory taint is toleration-unmatched's.
test_yields_to_unmatched if {
	tol := {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule", "tolerationSeconds": null, "source": "manifest", "index": 0, "runtimeTaint": false, "requested": false, "toleratesInventory": false}
	count(rule.deny) == 0 with input as {"kind": "Deployment", "podSpec": {}, "facts": {"daemonSet": false, "tolerations": [tol]}}
}

cr(placements) := {"kind": "CephCluster", "podSpecPath": null, "podSpec": null, "facts": null, "placements": placements}

placement(path, tols, facts, extra) := object.union({"path": path, "value": object.union({"tolerations": tols}, extra), "facts": {"tolerations": facts}}, {})

test_placements if {
	findings := rule.deny with input as cr([
		placement("spec.placement.osd", [
			{"key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
			{"key": "storage", "operator": "Exists", "effect": "NoSchedule"},
			{"key": "storage-b", "operator": "Exists"},
		], [{"runtimeTaint": true}, {"runtimeTaint": false, "toleratesInventory": true}, {"runtimeTaint": false}], {}),
		placement("spec.placement.mon", [{"key": "gone", "operator": "Exists"}], [{"runtimeTaint": false, "toleratesInventory": false}], {}),
	])
	{f.path | some f in findings} == {"spec.placement.osd.tolerations[1]"}
	some f in findings
	contains(f.msg, "dedicated with the storage, storage-b taints")
}

test_placements_drawn_by_another if {
	count(rule.deny) == 0 with input as cr([
		placement("spec.placement.all", [], [], {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}}}),
		placement("spec.placement.osd", [{"key": "storage", "operator": "Exists"}], [{"runtimeTaint": false}], {}),
	])
	count(rule.deny) == 0 with input as cr([
		placement("spec.template.pod", [{"key": "storage", "operator": "Exists"}], [{"runtimeTaint": false}], {"nodeSelector": {"a": "b"}}),
	])
}
