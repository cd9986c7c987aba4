# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-bad-path
#   severity: error
package acme.badpath

deny contains {"msg": "bad", "path": "spec..containers["} if input.kind == "Pod"
