# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-clock
#   severity: error
package acme.clock

deny contains {"msg": "too late", "path": ""} if time.now_ns() > 0
