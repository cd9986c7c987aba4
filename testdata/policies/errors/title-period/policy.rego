# METADATA
# title: Ends with a period.
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-period
#   severity: error
package acme.period

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
