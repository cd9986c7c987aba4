# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-reserved
#   severity: error
package taintlint.rules.toleration_exists_with_value

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
