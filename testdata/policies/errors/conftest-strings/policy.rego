# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-strings
#   severity: error
package acme.strings

deny contains msg if {
	input.kind == "Pod"
	msg := "pods are not allowed"
}
