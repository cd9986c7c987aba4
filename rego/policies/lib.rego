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

# node_list names the first max_listed of the nodes that group facts list,
# with how many more: a finding about a thousand nodes names a few, not
# every node of every group.
max_listed := 5

node_list(names, total) := concat(", ", names) if {
	count(names) <= max_listed
	total <= count(names)
}

node_list(names, total) := sprintf("%s and %d more", [concat(", ", shown), total - count(shown)]) if {
	shown := array.slice(names, 0, max_listed)
	total > count(shown)
}

plural(n, one, _) := one if n == 1

plural(n, _, many) := many if n != 1

# valid_toleration holds for a toleration the API server accepts as far as
# these rules care (the error rules report the others; one finding per
# problem): a known operator, no value under Exists, an empty key only with
# Exists, a known effect or none, and no key or value input.facts marks
# invalid.
valid_toleration(t) if {
	not object.get(t, "invalid", false)
	operator := object.get(t, "operator", "")
	operator in {"", null, "Equal", "Exists"}
	not value_with_exists(t)
	not empty_key_without_exists(t)
	object.get(t, "effect", "") in {"", null, "NoSchedule", "PreferNoSchedule", "NoExecute"}
}

value_with_exists(t) if {
	t.operator == "Exists"
	not object.get(t, "value", "") in {"", null}
}

empty_key_without_exists(t) if {
	object.get(t, "key", "") in {"", null}
	t.operator != "Exists"
}

empty_key_without_exists(t) if {
	object.get(t, "key", "") in {"", null}
	object.get(t, "operator", "") in {"", null}
}
