# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: taint-effect-invalid
#   severity: error
package acme.collide

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
