package taintlint.lib_test

import data.taintlint.lib

test_valid_toleration if {
	lib.valid_toleration({"key": "a", "operator": "Exists"})
	lib.valid_toleration({"key": "a", "value": "b", "effect": "NoSchedule"})
	lib.valid_toleration({"operator": "Exists"})
	lib.valid_toleration({"key": "a", "operator": "Exists", "value": "", "effect": "", "tolerationSeconds": null})
	not lib.valid_toleration({"key": "a", "operator": "Exists", "value": "b"})
	not lib.valid_toleration({"key": "a", "operator": "exists"})
	not lib.valid_toleration({"key": "a", "operator": "Gt", "value": "5"})
	not lib.valid_toleration({"operator": "Equal"})
	not lib.valid_toleration({})
	not lib.valid_toleration({"key": "a", "effect": "noschedule"})
}

test_strings if {
	lib.taint_string({"key": "a", "value": "b", "effect": "NoSchedule"}) == "a=b:NoSchedule"
	lib.taint_string({"key": "a", "value": "", "effect": "NoExecute"}) == "a:NoExecute"
	lib.toleration_string({"key": "a", "operator": "Exists", "value": "", "effect": "NoExecute", "tolerationSeconds": 60}) == "{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 60}"
	lib.node_list(["a", "b"], 2) == "a, b"
	lib.node_list(["a", "b"], 5) == "a, b and 3 more"
	lib.node_list(["a", "b", "c", "d", "e"], 5) == "a, b, c, d, e"
	lib.node_list(["a", "b", "c", "d", "e", "f", "g"], 7) == "a, b, c, d, e and 2 more"
	lib.node_list(["a", "b", "c", "d", "e", "f", "g"], 40) == "a, b, c, d, e and 35 more"
}
