package taintlint.rules.toleration_shadowed_test

import data.taintlint.rules.toleration_shadowed as rule

tol(i, t) := object.union({"key": "", "operator": "", "value": "", "effect": "", "tolerationSeconds": null, "source": "manifest", "index": i, "path": sprintf("spec.tolerations[%d]", [i]), "shadows": []}, t)

pod(tols) := {"kind": "Pod", "podSpecPath": "spec", "podSpec": {}, "facts": {"daemonSet": false, "tolerations": tols, "builtinTaints": []}}

test_shadowed if {
	some f in rule.deny with input as pod([
		tol(0, {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60, "shadows": [1]}),
		tol(1, {"operator": "Exists"}),
	])
	f.path == "spec.tolerations[0].tolerationSeconds"
	contains(f.msg, "comes before {operator: Exists} (tolerations[1]), which tolerates the same NoExecute taints forever")
}

test_shadowing_controller_toleration_ignored if {
	count(rule.deny) == 0 with input as pod([
		tol(0, {"key": "a", "effect": "NoExecute", "tolerationSeconds": 60, "shadows": [1]}),
		tol(1, {"key": "a", "operator": "Exists", "effect": "NoExecute", "source": "daemonset-controller", "index": null, "path": null}),
	])
}

test_non_positive if {
	{f.path | some f in rule.deny} == {"spec.tolerations[0].tolerationSeconds"} with input as pod([
		tol(0, {"key": "a", "effect": "NoExecute", "tolerationSeconds": 0}),
		tol(1, {"key": "b", "effect": "NoExecute"}),
	])
}
