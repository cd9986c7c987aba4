# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-conflict
#   severity: error
package acme.conflict

name := input.kind

name := "other" if input.kind == "Pod"

deny contains {"msg": name, "path": ""} if input.kind == "Pod"
