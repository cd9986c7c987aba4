# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-twice
#   severity: error
package acme.a

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
