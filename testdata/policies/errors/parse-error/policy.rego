# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-parse
#   severity: error
package acme.parse

deny contains {"msg": "x", "path": ""} if {
	input.kind ==
}
