# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-unsafe
#   severity: error
package acme.unsafe

deny contains {"msg": msg, "path": ""} if {
	input.kind == "Pod"
}
