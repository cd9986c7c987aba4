package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrors: every mistake in .taintlint.yaml is one line on
// standard error naming file:line:column and, where there is one, the
// nearest valid spelling; mistyped flags get theirs too.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "nodes.yaml"), "")
	tests := []struct{ name, config, want string }{
		{"unknown key", "nodes: [nodes.yaml]\nfailon: warning\n", `:2:1: unknown key "failon" (did you mean failOn?)`},
		{"nested key", "suppress:\n- rules: [toleration-wildcard]\n  objets: [Pod/*]\n  reason: x\n", `:3:3: suppress[0]: unknown key "objets" (did you mean objects?)`},
		{"wrong kind", "disable: toleration-wildcard\n", `:1:10: disable: want a list, got "toleration-wildcard"`},
		{"enable rule", "enable:\n- toleration-wildcard\n- toleration-widlcard\n", `:3:3: enable[1]: unknown rule "toleration-widlcard" (did you mean toleration-wildcard?)`},
		{"disable rule", "disable: [pod-unschedulabel]\n", `:1:11: disable[0]: unknown rule "pod-unschedulabel" (did you mean pod-unschedulable?)`},
		{"severity rule", "severity:\n  toleration-wildcrd: error\n", `:2:3: severity: unknown rule "toleration-wildcrd" (did you mean toleration-wildcard?)`},
		{"severity value", "severity:\n  toleration-wildcard: eror\n", `:2:24: severity.toleration-wildcard: unknown severity "eror" (did you mean error?)`},
		{"suppress rule", "suppress:\n- rules: [toleration-unmached]\n  reason: x\n", `:2:11: suppress[0].rules[0]: unknown rule "toleration-unmached" (did you mean toleration-unmatched?)`},
		{"suppress reason", "suppress:\n- rules: [toleration-unmatched]\n", `:2:3: suppress[0]: a reason is required`},
		{"failOn value", "failOn: waring\n", `:1:9: failOn: unknown level "waring" (did you mean warning?)`},
		{"feature gate", "featureGates:\n  TaintTolerationComparisonOperator: true\n", `:2:3: featureGates: unknown feature gate "TaintTolerationComparisonOperator" (known: TaintTolerationComparisonOperators) (did you mean TaintTolerationComparisonOperators?)`},
		{"gate value", "featureGates:\n  TaintTolerationComparisonOperators: yes please\n", `:2:39: featureGates.TaintTolerationComparisonOperators: want true or false, got "yes please"`},
		{"nodes path", "nodes: [nodes.yaml, nodse.yaml]\n", `:1:21: nodes[1]: `},
		{"policy path", "policies: [policy/]\n", `:1:12: policies[0]: `},
		{"baseline path", "baseline: accepted.json\n", `:1:11: baseline: open `},
		{"admission selector", "admission:\n  podNodeSelector:\n    clusterDefaultNodeSelector: \"a b\"\n", `:3:33: admission.podNodeSelector.clusterDefaultNodeSelector: `},
		{"admission key", "admission:\n  podNodeSelectr: {}\n", `:2:3: admission: unknown key "podNodeSelectr" (did you mean podNodeSelector?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(dir, tt.name+".yaml")
			write(t, cfg, tt.config)
			code, _, stderr := run(t, "", "check", "--config", cfg, "testdata/clean")
			want := "taintlint: " + cfg + tt.want
			if code != 2 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr:\n%s\nwant a line starting %q", code, stderr, want)
			}
		})
	}
}

func TestFlagSuggestions(t *testing.T) {
	for args, want := range map[string]string{
		"check --node x":                                   "taintlint: unknown flag: --node (did you mean --nodes?)\n",
		"check --show-supressed":                           "taintlint: unknown flag: --show-supressed (did you mean --show-suppressed?)\n",
		"check --format jsn":                               "taintlint: --format: unknown format \"jsn\" (did you mean json?) (want text, json, sarif, github)\n",
		"check --fail-on warn":                             "taintlint: --fail-on: unknown level \"warn\" (did you mean warning?) (want error, warning, note or never)\n",
		"check --color alway":                              "taintlint: --color: unknown mode \"alway\" (did you mean always?) (want auto, always or never)\n",
		"check --enable toleration-wildcrd testdata/clean": "taintlint: --enable: unknown rule \"toleration-wildcrd\" (did you mean toleration-wildcard?) (taintlint rules lists them)\n",
		"explain --object x --nods n":                      "taintlint: unknown flag: --nods (did you mean --nodes?)\n",
	} {
		code, _, stderr := run(t, "", strings.Fields(args)...)
		if code != 2 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q, want %q", args, code, stderr, want)
		}
	}
}
