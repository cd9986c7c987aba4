package taintlint.rules.toleration_eviction_loop_test

import data.taintlint.rules.toleration_eviction_loop as rule

maint := {"key": "maintenance", "value": "true", "effect": "NoExecute"}

tols := [{"key": "maintenance", "operator": "Exists", "value": "", "effect": "NoExecute", "tolerationSeconds": 60, "source": "manifest", "path": "spec.tolerations[0]"}]

group(fits, uses) := {
	"nodes": ["m1"], "count": 1, "selected": fits, "untolerated": [], "cordonTolerated": true,
	"daemonSet": null, "eviction": {"seconds": 60, "uses": uses},
}

pod(groups) := {"kind": "Pod", "podSpecPath": "spec", "podSpec": {}, "facts": {"daemonSet": false, "tolerations": tols, "nodeGroups": groups}}

test_loop if {
	some f in rule.deny with input as pod([group(true, [{"toleration": 0, "taint": maint}])])
	f.path == "spec.tolerations[0].tolerationSeconds"
	contains(f.msg, "pods fit 1 node (m1) only by tolerating maintenance=true:NoExecute for 60s")
}

test_not_selected if {
	count(rule.deny) == 0 with input as pod([group(false, [{"toleration": 0, "taint": maint}])])
}

test_transient_taints if {
	count(rule.deny) == 0 with input as pod([group(true, [{"toleration": 0, "taint": {"key": "node.kubernetes.io/unreachable", "value": "", "effect": "NoExecute"}}])])
}
