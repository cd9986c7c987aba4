# METADATA
# title: Toleration matches no taint of any inventory node
# description: |-
#   A toleration that tolerates no taint of any node in the inventory does
#   nothing today: usually its key is misspelt (`nvidia.com/gpus`), its value
#   or effect differs from the node's taint, or the taint it was written for is
#   gone. taintlint matches each toleration against every distinct taint of
#   the inventory with Kubernetes' own matching and suggests the nearest taint.
#
#   Tolerations of taints that nodes carry only at run time are exempt:
#   `node.kubernetes.io/*`, `node.cloudprovider.kubernetes.io/*`, the cluster
#   autoscaler's and Karpenter's taints, the control-plane taint,
#   `CriticalAddonsOnly`, and the keys listed under `runtimeTaints:` in
#   `.taintlint.yaml` (a trailing `*` matches a prefix). Wildcards (an empty
#   key) are toleration-wildcard's business.
#
#   One cause, one finding: when the toleration nearly matches a taint the
#   workload needs, so that its pods fit no node (`pod-unschedulable`) or the
#   DaemonSet runs on no node (`daemonset-no-nodes`), that rule reports it with
#   the fix and this one says nothing (while that rule is enabled; suppressing
#   its finding does not bring this one back). `toleration-without-affinity`
#   says nothing about a toleration this rule reports. A nearest taint that is
#   a node condition (`node.kubernetes.io/not-ready`, ...) is suggested to a
#   DaemonSet only.
#
#   Known false positives: a toleration for a pool the inventory does not
#   have (scaled to zero, another cluster's inventory), or for a taint a
#   controller adds at run time that is not in the exempt list. List the key
#   under `runtimeTaints:`, or suppress with
#   `ignore-check.taintlint.io/toleration-unmatched: "<reason>"`.
# custom:
#   id: toleration-unmatched
#   severity: warning
#   kinds: [PodSpec]
#   needs_inventory: true
#   bad: |-
#     # nodes are tainted nvidia.com/gpu=present:NoSchedule
#     tolerations:
#     - key: nvidia.com/gpus
#       operator: Exists
#       effect: NoSchedule
#   good: |-
#     tolerations:
#     - key: nvidia.com/gpu
#       operator: Exists
#       effect: NoSchedule
package taintlint.rules.toleration_unmatched

import data.taintlint.lib

deny contains {"msg": msg, "path": tol.path} if {
	some tol in input.facts.tolerations
	tol.source == "manifest"
	tol.key != ""
	lib.valid_toleration(tol)
	not tol.runtimeTaint
	tol.toleratesInventory == false
	object.get(tol, "explainedBy", null) == null
	n := input.facts.inventory.nodes
	msg := sprintf(
		"toleration %s matches no taint of the %d inventory %s%s: fix it, or, if the taint appears only at run time, list its key under runtimeTaints in .taintlint.yaml",
		[lib.toleration_string(tol), n, lib.plural(n, "node", "nodes"), suggestion(tol)],
	)
}

suggestion(tol) := sprintf(" (the nearest is %s: a misspelt key?)", [lib.taint_string(t)]) if {
	t := tol.nearestTaint
	t.key != tol.key
}

suggestion(tol) := sprintf(" (nodes carry %s: check value and effect)", [lib.taint_string(t)]) if {
	t := tol.nearestTaint
	t.key == tol.key
}

suggestion(tol) := "" if tol.nearestTaint == null
