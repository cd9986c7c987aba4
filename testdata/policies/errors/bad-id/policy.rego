# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: NoKebab
#   severity: error
package acme.badid

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
