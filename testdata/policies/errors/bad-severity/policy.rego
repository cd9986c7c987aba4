# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-bad-severity
#   severity: critical
package acme.badsev

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
