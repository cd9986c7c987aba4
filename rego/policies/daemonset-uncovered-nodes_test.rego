package taintlint.rules.daemonset_uncovered_nodes_test

import data.taintlint.rules.daemonset_uncovered_nodes as rule

gpu := {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}

cp := {"key": "node-role.kubernetes.io/control-plane", "value": "", "effect": "NoSchedule"}

fix(t) := {"key": t.key, "operator": "Exists", "effect": t.effect}

group(nodes, untolerated, reason) := {
	"nodes": nodes,
	"count": count(nodes),
	"untolerated": untolerated,
	"fixes": [fix(t) | some t in untolerated],
	"daemonSet": {"shouldRun": reason == "", "reason": reason},
}

ds(groups) := {
	"kind": "DaemonSet",
	"podSpecPath": "spec.template.spec",
	"podSpec": {"containers": [{"name": "a"}]},
	"facts": {"daemonSet": true, "nodeGroups": groups},
}

test_grouped_by_taint if {
	findings := rule.deny with input as ds([
		group(["gpu-2", "gpu-1"], [gpu], "taint"),
		group(["gpu-3"], [gpu], "taint"),
		group(["general-1"], [], ""),
		group(["cp-1"], [cp], "taint"),
	])
	count(findings) == 1
	some f in findings
	f.msg == concat("\n", [
		"DaemonSet does not run on 4 nodes that its nodeSelector and affinity select (cp-1, gpu-1, gpu-2, gpu-3), because of taints it does not tolerate:",
		"node-role.kubernetes.io/control-plane:NoSchedule on 1 node (cp-1): add the toleration {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}",
		"nvidia.com/gpu=present:NoSchedule on 3 nodes (gpu-1, gpu-2, gpu-3): add the toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
	])
	f.path == "spec.template.spec"
}

# Nodes the selector excludes are not the DaemonSet's business.
test_affinity_excluded_nodes_ignored if {
	count(rule.deny) == 0 with input as ds([group(["gpu-1"], [gpu], "affinity")])
}

test_truncated_node_list if {
	g := object.union(group(["a", "b"], [gpu], "taint"), {"count": 30})
	some f in rule.deny with input as ds([g, group(["general-1"], [], "")])
	contains(f.msg, "on 30 nodes that its nodeSelector and affinity select (a, b and 28 more)")
}

test_two_taints_on_one_node if {
	findings := rule.deny with input as ds([group(["x"], [gpu, cp], "taint"), group(["general-1"], [], "")])
	count(findings) == 1
	some f in findings
	startswith(f.msg, "DaemonSet does not run on 1 node that its nodeSelector and affinity select (x), because of taints it does not tolerate:\n")
	contains(f.msg, "\nnode-role.kubernetes.io/control-plane:NoSchedule on 1 node (x): add")
	contains(f.msg, "\nnvidia.com/gpu=present:NoSchedule on 1 node (x): add")
}

# A DaemonSet that runs on no node is daemonset-no-nodes' finding, with
# the same taints: this rule yields.
test_runs_nowhere_yields if {
	count(rule.deny) == 0 with input as ds([group(["gpu-1"], [gpu], "taint"), group(["general-1"], [], "affinity")])
}

# A node skipped for a node condition alone (NotReady) is not listed: the
# controller creates the pod once the node recovers.
test_condition_taints_left_out if {
	notready := {"key": "node.kubernetes.io/not-ready", "value": "", "effect": "NoSchedule"}
	inp := object.union(ds([group(["booting-1"], [notready], "taint"), group(["general-1"], [], "")]), {"facts": {"builtinTaints": [notready]}})
	count(rule.deny) == 0 with input as inp
}
