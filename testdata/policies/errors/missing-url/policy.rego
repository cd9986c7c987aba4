# METADATA
# title: Example rule
# description: An example.
# custom:
#   id: acme-no-url
#   severity: error
package acme.nourl

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
