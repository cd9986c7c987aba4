# METADATA
# title: Node taint key outside the acme.com domain
# description: |-
#   Our node pools taint nodes with acme.com/ keys only, so that a toleration
#   can never match a taint it was not written for.
# related_resources:
#   - ref: https://wiki.example.com/platform/taints
# custom:
#   id: acme-taint-key-domain
#   severity: note
#   default: false
#   kinds: [Node]
package acme.nodes

deny contains {"msg": sprintf("taint key %q is not under acme.com/", [taint.key]), "path": sprintf("spec.taints[%d].key", [i])} if {
	some i, taint in input.object.spec.taints
	not startswith(taint.key, "acme.com/")
}
