package checker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/k8s"
)

// fuzzNodes is a small inventory covering every taint effect, a cordon,
// labels, allocatable with an extended resource, and a node without status.
const fuzzNodes = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: plain, labels: {pool: general, zone: a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: gpu, labels: {pool: gpu}}
  spec:
    taints:
    - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
    - {key: sla, value: "950", effect: NoExecute}
    - {key: spot, effect: PreferNoSchedule}
  status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "4"}}
- apiVersion: v1
  kind: Node
  metadata: {name: cordoned}
  spec: {unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]}
- apiVersion: v1
  kind: Node
  metadata: {name: nostatus, labels: {pool: general}}
`

// FuzzRules runs every rule, Go and Rego, on arbitrary manifests against a
// fixed inventory: no rule may panic or fail, whatever the input.
func FuzzRules(f *testing.F) {
	root := filepath.Join("..", "..", "testdata", "rules")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") && !strings.Contains(p, "kustom") {
			if data, err := os.ReadFile(p); err == nil && len(data) < 32<<10 {
				f.Add(data)
			}
		}
		return nil
	})
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	nodes := filepath.Join(dir, "nodes.yaml")
	if err := os.WriteFile(nodes, []byte(fuzzNodes), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "m.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, gates := range []k8s.FeatureGates{{}, {TaintTolerationComparisonOperators: true}} {
			res, err := checker.Run(context.Background(), checker.Options{Paths: []string{path}, Nodes: []string{nodes}, Rules: all, Enable: []string{"all"}, Gates: gates})
			if err != nil {
				t.Fatalf("run failed: %v", err)
			}
			for _, f := range res.Findings {
				if f.Pos.Line < 1 || f.Pos.Column < 1 {
					t.Fatalf("finding without a position: %+v", f)
				}
			}
		}
	})
}
