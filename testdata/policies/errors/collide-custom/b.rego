# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-twice
#   severity: warning
package acme.b

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
