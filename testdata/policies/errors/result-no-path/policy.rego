# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-no-path
#   severity: error
package acme.nopath

deny contains {"msg": "pods are not allowed"} if input.kind == "Pod"
