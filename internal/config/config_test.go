package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{name: "empty", in: ""},
		{name: "full", in: `enable: [a-rule]
disable: [b-rule]
severity: {c-rule: warning}
ignore: ["charts/**"]
suppress:
- rules: [toleration-unmatched]
  paths: ["legacy/**"]
  objects: ["Deployment/prod/*"]
  reason: migrating in Q3
nodes: [inventory/nodes.yaml]
featureGates: {TaintTolerationComparisonOperators: true}
failOn: warning
policies: [policy/]
runtimeTaints: [example.com/drain, "karpenter.example.com/*"]
kustomize: false
customKinds:
- group: example.com
  kind: Runner
  podTemplate: spec.runner.template.spec
  placements:
  - spec.sidecars[*].placement
  - spec.pools.*
`},
		{name: "custom kind misspelled key", in: "customKinds:\n- group: example.com\n  kind: Runner\n  placement: [spec]\n", err: `x.yaml:4:3: customKinds[0]: unknown key "placement" (did you mean placements?)`},
		{name: "custom kind of a built-in group", in: "customKinds:\n- group: apps\n  kind: Deployment\n  podTemplate: spec.template.spec\n", err: `x.yaml:2:10: customKinds[0].group: "apps" is not a custom resource's group`},
		{name: "custom kind without kind", in: "customKinds:\n- group: example.com\n  placements: [spec]\n", err: "x.yaml:2:3: customKinds[0]: kind is required"},
		{name: "custom kind without paths", in: "customKinds:\n- group: example.com\n  kind: Runner\n", err: "x.yaml:2:3: customKinds[0]: give podTemplate"},
		{name: "custom kind twice", in: "customKinds:\n- {group: example.com, kind: R, placements: [spec]}\n- {group: example.com, kind: R, placements: [spec.x]}\n", err: "x.yaml:3:3: customKinds[1]: example.com/R is customKinds[0] too (x.yaml:2:3)"},
		{name: "custom kind pod template with a wildcard", in: "customKinds:\n- group: example.com\n  kind: R\n  podTemplate: spec.templates[*].spec\n", err: `x.yaml:4:16: customKinds[0].podTemplate "spec.templates[*].spec": a pod template path names one pod spec`},
		{name: "custom kind pod template not a spec", in: "customKinds:\n- group: example.com\n  kind: R\n  podTemplate: spec.template\n", err: `x.yaml:4:16: customKinds[0].podTemplate "spec.template": the path of a pod template's spec ends in .spec`},
		{name: "custom kind placement index", in: "customKinds:\n- group: example.com\n  kind: R\n  placements: [spec, \"spec.pools[0]\"]\n", err: `x.yaml:4:22: customKinds[0].placements[1]: path "spec.pools[0]": "pools[0]": the only index a path takes is [*]`},
		{name: "unknown key", in: "enable: [a]\ndisabel: [b]\n", err: `x.yaml:2:1: unknown key "disabel" (did you mean disable?)`},
		{name: "unknown key far from all", in: "zzzzzzzz: 1\n", err: `x.yaml:1:1: unknown key "zzzzzzzz" (known: admission, baseline,`},
		{name: "unknown nested key", in: "suppress:\n- rules: [a]\n  reasn: x\n", err: `x.yaml:3:3: suppress[0]: unknown key "reasn" (did you mean reason?)`},
		{name: "wrong type", in: "enable: a-rule\n", err: `x.yaml:1:9: enable: want a list, got "a-rule"`},
		{name: "wrong bool", in: "kustomize: maybe\n", err: `x.yaml:1:12: kustomize: want true or false, got "maybe"`},
		{name: "wrong gate value", in: "featureGates:\n  X: on\n", err: `x.yaml:2:6: featureGates.X: want true or false, got "on"`},
		{name: "suppress without reason", in: "enable: []\nsuppress:\n- rules: [a]\n", err: "x.yaml:3:3: suppress[0]: a reason is required"},
		{name: "failOn enum", in: "failOn: warnings\n", err: `x.yaml:1:9: failOn: unknown level "warnings" (did you mean warning?) (want error, warning, note or never)`},
		{name: "severity enum", in: "severity:\n  a-rule: eror\n", err: `x.yaml:2:11: severity.a-rule: unknown severity "eror" (did you mean error?)`},
		{name: "bad yaml", in: "enable: [\n", err: "x.yaml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tt.in))
			if tt.err == "" && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestFindUpward(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, FileName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	got := Find(deep)
	if want := filepath.Join(root, FileName); got != want {
		t.Errorf("Find = %q, want %q", got, want)
	}
}

func TestWhere(t *testing.T) {
	f, err := Parse("x.yaml", []byte("enable: [a, b]\nseverity:\n  r: note\nsuppress:\n- rules: [c]\n  reason: r\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		keys []any
		want string
	}{
		{[]any{"enable", 1}, "x.yaml:1:13"},
		{[]any{"severity", "r"}, "x.yaml:3:3"},
		{[]any{"suppress", 0, "rules", 0}, "x.yaml:5:11"},
		{[]any{"nodes"}, "x.yaml"},
		{[]any{"enable", 5}, "x.yaml"},
	} {
		if got := f.Where(tc.keys...); got != tc.want {
			t.Errorf("Where(%v) = %q, want %q", tc.keys, got, tc.want)
		}
	}
}
