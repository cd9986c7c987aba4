# METADATA
# title: DaemonSet leaves NotReady nodes, network plugin cannot start on new nodes, or tolerates a condition taint with an effect it never has
# description: |-
#   The DaemonSet controller adds tolerations to every daemon pod: forever for
#   `node.kubernetes.io/not-ready` and `unreachable` (NoExecute), and for
#   `disk-pressure`, `memory-pressure`, `pid-pressure` and `unschedulable`
#   (NoSchedule), plus `network-unavailable` with `hostNetwork`. An ordinary
#   DaemonSet needs nothing more: it gets its pod once a new node is Ready.
#   This rule takes those additions into account and fires in three cases:
#
#   - A toleration of its own makes daemon pods leave a NotReady or unreachable
#     node after `tolerationSeconds`. The controller replaces a toleration's
#     seconds only when key, operator, value and effect all equal its own
#     (`operator: Exists`, `effect: NoExecute`); otherwise it appends its
#     forever toleration after yours, and eviction uses the first toleration
#     that matches: yours.
#   - It carries the node's networking and does not tolerate
#     `node.kubernetes.io/not-ready:NoSchedule`, which every new node carries
#     until the kubelet reports it Ready, and the kubelet does so only once the
#     network plugin has written its configuration: the node waits for the
#     pod, the pod waits for the node. A DaemonSet counts as node networking
#     when it uses the host network (`hostNetwork: true`) and mounts from the
#     host the CNI configuration or plugin directory (`/etc/cni`, `/opt/cni`,
#     `/var/lib/cni`) or the iptables lock (`/run/xtables.lock`), as CNI agents
#     (Calico, Cilium, Flannel, ...) and kube-proxy do (the network plugin
#     reaches the API server through the `kubernetes` Service, which
#     kube-proxy programs). Nothing else qualifies: not a priority class
#     (`system-node-critical` device plugins, CSI node plugins and DNS wait for
#     a Ready node like any pod), not `hostNetwork` alone (node-exporter,
#     ingress controllers). The fix is the toleration
#     `{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}`;
#     `network-unavailable` needs nothing, since the controller tolerates it
#     for host-network pods. The cloud provider's `uninitialized` taint is not
#     required: the cloud controller initialises the node without the network
#     plugin, which then starts.
#   - It tolerates a node-condition taint key with an effect that taint never
#     has (`memory-pressure` is only ever NoSchedule), so the toleration does
#     nothing.
#
#   Fix: drop `tolerationSeconds` from not-ready/unreachable tolerations (or
#   write them exactly as the controller does), add the not-ready NoSchedule
#   toleration to network plugins, and use the effect the node lifecycle
#   controller really sets.
#
#   Known false positives: a network agent that deliberately waits for nodes
#   made Ready by another plugin (a second, chained CNI such as a bandwidth or
#   policy add-on that mounts `/etc/cni/net.d`), a host-network agent that
#   programs iptables without carrying the node's networking (node-local-dns
#   mounts `/run/xtables.lock`; it ships the not-ready toleration, so it is not
#   reported), and a DaemonSet that wants its
#   pods gone from unreachable nodes after a while (case one). Suppress with
#   `ignore-check.taintlint.io/daemonset-pressure-tolerations: "<reason>"`.
#   docs/daemonsets-in-the-wild.md shows the rule on public DaemonSets.
# custom:
#   id: daemonset-pressure-tolerations
#   severity: warning
#   kinds: [DaemonSet]
#   bad: |-
#     kind: DaemonSet
#     spec:
#       template:
#         spec:
#           hostNetwork: true
#           tolerations:
#           - key: node.kubernetes.io/not-ready
#             effect: NoExecute
#             tolerationSeconds: 300
#   good: |-
#     kind: DaemonSet
#     spec:
#       template:
#         spec:
#           hostNetwork: true
#           tolerations:
#           - key: node.kubernetes.io/not-ready
#             operator: Exists
#             effect: NoSchedule
package taintlint.rules.daemonset_pressure_tolerations

import data.taintlint.lib

eviction_keys := {"node.kubernetes.io/not-ready": "NotReady", "node.kubernetes.io/unreachable": "unreachable"}

# (a) A manifest toleration is the first match for not-ready or unreachable
# NoExecute, and it has seconds: the controller's forever one comes after.
deny contains {"msg": msg, "path": concat(".", [tol.path, "tolerationSeconds"])} if {
	input.facts.daemonSet
	some i, tol in input.facts.tolerations
	tol.source == "manifest"
	is_number(tol.tolerationSeconds)
	conditions := sort([eviction_keys[b.key] |
		some b in input.facts.builtinTaints
		b.effect == "NoExecute"
		eviction_keys[b.key]
		b.toleration == i
	])
	count(conditions) > 0
	msg := sprintf(
		"toleration %s is the one eviction uses for the %s %s (NoExecute), so daemon pods leave a %s node %s; the DaemonSet controller's own forever toleration is appended after it, because it replaces only a toleration with the same key, operator, value and effect: remove tolerationSeconds (or the whole toleration) to keep daemon pods on such nodes",
		[lib.toleration_string(tol), concat(" and ", conditions), lib.plural(count(conditions), "taint", "taints"), concat(" or ", conditions), when(tol.tolerationSeconds)],
	)
}

when(s) := "at once" if s <= 0

when(s) := sprintf("after %ds", [s]) if s > 0

# cni_dirs are the host paths a pod that carries the node's networking
# mounts: the CNI configuration and plugin directories, and the iptables
# lock kube-proxy and CNI agents share.
cni_dirs := ["/etc/cni", "/opt/cni", "/var/lib/cni", "/run/xtables.lock", "/var/run/xtables.lock"]

# network_mounts are the host paths of such mounts, sorted.
network_mounts := sort({path |
	some v in input.podSpec.volumes
	path := trim_right(v.hostPath.path, "/")
	some dir in cni_dirs
	under(path, dir)
})

under(path, dir) if path == dir

under(path, dir) if startswith(path, concat("", [dir, "/"]))

# (b) The node's network plugin, which cannot start on a node that is not
# yet Ready, while the node waits for it to become Ready.
deny contains {"msg": msg, "path": lib.tolerations_path} if {
	input.facts.daemonSet
	input.podSpec.hostNetwork == true
	count(network_mounts) > 0
	some b in input.facts.builtinTaints
	b.key == "node.kubernetes.io/not-ready"
	b.effect == "NoSchedule"
	not b.tolerated
	msg := sprintf(
		"DaemonSet carries the node's networking (hostNetwork, and it mounts the host's %s) but does not tolerate node.kubernetes.io/not-ready:NoSchedule, which a new node carries until its network plugin is ready, and the DaemonSet controller does not add it: its pods cannot start on a new node, which then never becomes Ready; add {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}",
		[concat(", ", network_mounts)],
	)
}

# Effects the node lifecycle controller and cloud controllers give each
# node-condition taint (SEMANTICS.md §7).
condition_effects := {
	"node.kubernetes.io/not-ready": {"NoSchedule", "NoExecute"},
	"node.kubernetes.io/unreachable": {"NoSchedule", "NoExecute"},
	"node.kubernetes.io/memory-pressure": {"NoSchedule"},
	"node.kubernetes.io/disk-pressure": {"NoSchedule"},
	"node.kubernetes.io/pid-pressure": {"NoSchedule"},
	"node.kubernetes.io/network-unavailable": {"NoSchedule"},
	"node.kubernetes.io/unschedulable": {"NoSchedule"},
	"node.cloudprovider.kubernetes.io/uninitialized": {"NoSchedule"},
	"node.cloudprovider.kubernetes.io/shutdown": {"NoSchedule"},
}

# (c) A condition key with an effect that taint never carries.
deny contains {"msg": msg, "path": sprintf("%s.tolerations[%d].effect", [input.podSpecPath, i])} if {
	input.facts.daemonSet
	some i, tol in input.podSpec.tolerations
	effects := condition_effects[tol.key]
	tol.effect in {"NoSchedule", "PreferNoSchedule", "NoExecute"}
	not tol.effect in effects
	msg := sprintf(
		"%s is only ever a %s taint, so this %s toleration tolerates nothing: use effect %s, or leave effect out",
		[tol.key, concat(" and ", sort(effects)), tol.effect, concat(" or ", sort(effects))],
	)
}
