# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-no-deny
#   severity: error
package acme.nodeny

allow if input.kind == "Pod"
