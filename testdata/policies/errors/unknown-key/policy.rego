# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-typo
#   severity: error
#   defualt: false
package acme.typo

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
