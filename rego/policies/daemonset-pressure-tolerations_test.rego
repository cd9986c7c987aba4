package taintlint.rules.daemonset_pressure_tolerations_test

import data.taintlint.rules.daemonset_pressure_tolerations as rule

# builtin gives input.facts.builtinTaints; tolerated maps "key:effect" to
# the index of the toleration used for it.
builtin(tolerated) := [{"key": k, "value": v, "effect": e, "tolerated": (concat(":", [k, e]) in object.keys(tolerated)), "toleration": idx(concat(":", [k, e]), tolerated)} |
	some [k, v, e] in [
		["node.kubernetes.io/not-ready", "", "NoSchedule"],
		["node.kubernetes.io/not-ready", "", "NoExecute"],
		["node.kubernetes.io/unreachable", "", "NoExecute"],
		["node.kubernetes.io/network-unavailable", "", "NoSchedule"],
		["node.cloudprovider.kubernetes.io/uninitialized", "true", "NoSchedule"],
	]
]

idx(k, tolerated) := tolerated[k] if tolerated[k]

idx(k, tolerated) := null if not tolerated[k]

ds(spec, tolerations, tolerated) := {
	"kind": "DaemonSet",
	"podSpecPath": "spec.template.spec",
	"podSpec": spec,
	"facts": {"daemonSet": true, "tolerations": tolerations, "builtinTaints": builtin(tolerated)},
}

# The controller's own tolerations (all tolerated by facts) and nothing else.
test_ordinary_daemonset_is_fine if {
	count(rule.deny) == 0 with input as ds({}, [], {"node.kubernetes.io/not-ready:NoExecute": 0, "node.kubernetes.io/unreachable:NoExecute": 1})
}

# D4: the manifest's finite toleration is first for not-ready NoExecute.
test_d4_finite_first if {
	tols := [{"key": "node.kubernetes.io/not-ready", "operator": "", "value": "", "effect": "NoExecute", "tolerationSeconds": 300, "source": "manifest", "path": "spec.template.spec.tolerations[0]"}]
	findings := rule.deny with input as ds({"tolerations": [{}]}, tols, {"node.kubernetes.io/not-ready:NoExecute": 0, "node.kubernetes.io/unreachable:NoExecute": 1})
	some f in findings
	f.path == "spec.template.spec.tolerations[0].tolerationSeconds"
	contains(f.msg, "leave a NotReady node after 300s")
}

cni_volumes := [{"name": "cni", "hostPath": {"path": "/etc/cni/net.d/"}}, {"name": "bin", "hostPath": {"path": "/opt/cni/bin"}}]

test_network_plugin_missing_not_ready if {
	findings := rule.deny with input as ds({"hostNetwork": true, "volumes": cni_volumes}, [], {"node.kubernetes.io/not-ready:NoExecute": 0, "node.kubernetes.io/unreachable:NoExecute": 1, "node.kubernetes.io/network-unavailable:NoSchedule": 2})
	count(findings) == 1
	some f in findings
	f.path == "spec.template.spec"
	contains(f.msg, "(hostNetwork, and it mounts the host's /etc/cni/net.d, /opt/cni/bin) but does not tolerate node.kubernetes.io/not-ready:NoSchedule,")
	not contains(f.msg, "network-unavailable")
	not contains(f.msg, "operator: Exists}")
}

test_kube_proxy_missing_not_ready if {
	some f in rule.deny with input as ds({"hostNetwork": true, "volumes": [{"name": "xtables-lock", "hostPath": {"path": "/run/xtables.lock", "type": "FileOrCreate"}}]}, [], {})
	contains(f.msg, "mounts the host's /run/xtables.lock")
}

# hostNetwork alone (node-exporter, an ingress controller) is not plumbing.
test_host_network_alone_is_fine if {
	count(rule.deny) == 0 with input as ds({"hostNetwork": true, "volumes": [{"name": "proc", "hostPath": {"path": "/proc"}}]}, [], {})
}

# A priority class alone (a device plugin, DNS) is not plumbing, and a pod
# without hostNetwork is never told about network-unavailable.
test_priority_class_alone_is_fine if {
	count(rule.deny) == 0 with input as ds({"priorityClassName": "system-node-critical", "volumes": cni_volumes}, [], {})
}

# /etc/cnix is not /etc/cni.
test_path_prefix_is_a_directory if {
	count(rule.deny) == 0 with input as ds({"hostNetwork": true, "volumes": [{"name": "x", "hostPath": {"path": "/etc/cnix"}}]}, [], {})
}

test_wildcard_plumbing_is_fine if {
	all := {k: 0 | some k in ["node.kubernetes.io/not-ready:NoSchedule", "node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/network-unavailable:NoSchedule", "node.cloudprovider.kubernetes.io/uninitialized:NoSchedule"]}
	count(rule.deny) == 0 with input as ds({"hostNetwork": true, "tolerations": [{"operator": "Exists"}]}, [{"source": "manifest"}], all)
}

test_condition_effect_never_carried if {
	findings := rule.deny with input as ds(
		{"tolerations": [{"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoExecute"}]},
		[], {"node.kubernetes.io/not-ready:NoExecute": 0, "node.kubernetes.io/unreachable:NoExecute": 1},
	)
	{f.path | some f in findings} == {"spec.template.spec.tolerations[0].effect"}
}

test_not_a_daemonset if {
	count(rule.deny) == 0 with input as {
		"kind": "Deployment",
		"podSpecPath": "spec.template.spec",
		"podSpec": {"hostNetwork": true, "tolerations": [{"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoExecute"}]},
		"facts": {"daemonSet": false, "tolerations": [], "builtinTaints": builtin({})},
	}
}
