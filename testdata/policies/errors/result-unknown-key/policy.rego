# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-message-key
#   severity: error
package acme.messagekey

deny contains {"message": "bad", "path": "spec"} if input.kind == "Pod"
