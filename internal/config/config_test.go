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
`},
		{name: "unknown key", in: "enable: [a]\ndisabel: [b]\n", err: "x.yaml:2: field disabel not found in taintlint configuration"},
		{name: "wrong type", in: "enable: a-rule\n", err: "x.yaml:1:"},
		{name: "suppress without reason", in: "suppress:\n- rules: [a]\n", err: "a reason is required"},
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
