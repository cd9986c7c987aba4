# METADATA
# title: Pods leave a NotReady node within two minutes
# description: |-
#   Our SLO needs replicas on a dead node replaced within two minutes. The
#   DefaultTolerationSeconds admission plugin gives every pod 300 s on a
#   NotReady node; tolerate node.kubernetes.io/not-ready (NoExecute) for at
#   most 120 s. DaemonSets are exempt: their pods belong to the node.
# related_resources:
#   - ref: https://wiki.example.com/platform/eviction-slo
# custom:
#   id: acme-fast-eviction
#   severity: warning
#   default: false
#   kinds: [PodSpec]
package acme.eviction

limit := 120

# The toleration eviction uses for the not-ready NoExecute taint: taintlint
# computed it (the first toleration that tolerates the taint, after the
# DaemonSet controller's and the admission plugins' additions).
used := input.facts.tolerations[b.toleration] if {
	some b in input.facts.builtinTaints
	b.key == "node.kubernetes.io/not-ready"
	b.effect == "NoExecute"
	b.tolerated
}

too_long(tol) if tol.tolerationSeconds == null

too_long(tol) if tol.tolerationSeconds > limit

# Written in the manifest: point at it.
deny contains {
	"msg": sprintf("pods stay on a NotReady node for %s: set tolerationSeconds to at most %d", [seconds(used), limit]),
	"path": used.path,
} if {
	not input.facts.daemonSet
	used.source == "manifest"
	too_long(used)
}

# Added by an admission plugin: point at the tolerations and say what to add.
deny contains {
	"msg": sprintf("pods stay on a NotReady node for %s (added by %s): add the toleration {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: %d}", [seconds(used), used.source, limit]),
	"path": concat(".", [input.podSpecPath, "tolerations"]),
} if {
	not input.facts.daemonSet
	used.source != "manifest"
	too_long(used)
}

seconds(tol) := "ever" if tol.tolerationSeconds == null

seconds(tol) := sprintf("%d s", [tol.tolerationSeconds]) if tol.tolerationSeconds != null
