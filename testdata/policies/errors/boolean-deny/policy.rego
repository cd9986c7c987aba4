# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-boolean
#   severity: error
package acme.boolean

deny if input.kind == "Pod"
