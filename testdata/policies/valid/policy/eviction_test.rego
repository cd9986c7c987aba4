package acme.eviction_test

import data.acme.eviction

# input.facts as taintlint computes it for a Deployment without tolerations:
# DefaultTolerationSeconds added 300 s.
default_facts := {
	"daemonSet": false,
	"tolerations": [
		{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "value": "", "effect": "NoExecute", "tolerationSeconds": 300, "source": "DefaultTolerationSeconds", "index": null, "path": null},
		{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "value": "", "effect": "NoExecute", "tolerationSeconds": 300, "source": "DefaultTolerationSeconds", "index": null, "path": null},
	],
	"builtinTaints": [{"key": "node.kubernetes.io/not-ready", "value": "", "effect": "NoExecute", "tolerated": true, "toleration": 0}],
}

test_default_seconds_too_long if {
	some f in eviction.deny with input as {"podSpecPath": "spec.template.spec", "facts": default_facts}
	f.path == "spec.template.spec.tolerations"
	startswith(f.msg, "pods stay on a NotReady node for 300 s (added by DefaultTolerationSeconds)")
}

test_manifest_forever if {
	facts := object.union(default_facts, {"tolerations": [{"operator": "Exists", "tolerationSeconds": null, "source": "manifest", "path": "spec.tolerations[0]"}]})
	{f.path | some f in eviction.deny} == {"spec.tolerations[0]"} with input as {"podSpecPath": "spec", "facts": facts}
}

test_daemonset_exempt if {
	count(eviction.deny) == 0 with input as {"podSpecPath": "spec.template.spec", "facts": object.union(default_facts, {"daemonSet": true})}
}
