# A library package: no METADATA id and no deny, so it is not a rule;
# rules import it.
package acme.lib.k8s

tolerations := input.podSpec.tolerations if is_array(input.podSpec.tolerations)

selects(key, value) if input.podSpec.nodeSelector[key] == value
