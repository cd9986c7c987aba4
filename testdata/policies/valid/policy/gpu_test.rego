package acme.gpu_test

import data.acme.gpu

test_flags_gpu_toleration_without_selector if {
	{f.path | some f in gpu.deny} == {"spec.tolerations[0]"} with input as {
		"podSpecPath": "spec",
		"podSpec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]},
	}
}

test_selector_present if {
	count(gpu.deny) == 0 with input as {
		"podSpecPath": "spec",
		"podSpec": {
			"nodeSelector": {"nvidia.com/gpu.present": "true"},
			"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
		},
	}
}
