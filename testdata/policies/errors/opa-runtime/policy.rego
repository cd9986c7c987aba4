# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-env
#   severity: error
package acme.env

deny contains {"msg": opa.runtime().env.HOME, "path": ""} if input.kind == "Pod"
