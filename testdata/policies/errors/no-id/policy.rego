# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   severity: error
package acme.noid

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
