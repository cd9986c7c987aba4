# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: toleration-exists-with-value
#   severity: error
package acme.collide

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
