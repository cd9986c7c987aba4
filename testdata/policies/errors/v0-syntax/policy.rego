# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-v0
#   severity: error
package acme.v0

deny[msg] {
	msg := "old syntax"
}
