package taintlint.lib

# Helpers shared by taintlint's embedded rules: a library package, with
# neither a metadata block nor a deny rule.

# tolerations_path is where the pod spec's tolerations are, or the pod
# spec itself when it has none (a finding about a missing toleration).
tolerations_path := concat(".", [input.podSpecPath, "tolerations"]) if {
	is_array(input.podSpec.tolerations)
	count(input.podSpec.tolerations) > 0
} else := input.podSpecPath

# taint_string is key=value:effect, as kubectl and the scheduler print a taint.
taint_string(t) := sprintf("%s=%s:%s", [t.key, t.value, t.effect]) if t.value != ""

taint_string(t) := sprintf("%s:%s", [t.key, t.effect]) if t.value == ""

# toleration_string is a toleration in YAML flow style, fields that are set only.
toleration_string(t) := sprintf("{%s}", [concat(", ", fields)]) if {
	fields := [f |
		some name in ["key", "operator", "value", "effect", "tolerationSeconds"]
		v := object.get(t, name, null)
		v != null
		v != ""
		f := sprintf("%s: %v", [name, v])
	]
}

# node_list names at most the nodes a group fact lists, with how many more.
node_list(names, total) := concat(", ", names) if total <= count(names)

node_list(names, total) := sprintf("%s and %d more", [concat(", ", names), total - count(names)]) if total > count(names)

plural(n, one, _) := one if n == 1

plural(n, _, many) := many if n != 1
