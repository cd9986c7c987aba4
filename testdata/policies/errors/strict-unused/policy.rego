# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-strict
#   severity: error
package acme.strict

deny contains {"msg": "x", "path": ""} if {
	unused := input.kind
	input.kind == "Pod"
}
