// Package testinput builds a rules.Input from manifests on disk for the
// tests of packages that sit below internal/lint (whose BuildInput needs
// the whole driver): the Rego engine's and the Go rules'.
package testinput

import (
	"context"
	"testing"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// Load loads paths into an input: the workloads, and the Nodes among the
// objects as the inventory.
func Load(t testing.TB, paths ...string) *rules.Input {
	t.Helper()
	r, err := loader.Load(context.Background(), paths, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := &rules.Input{Objects: r.Objects}
	for _, obj := range r.Objects {
		if k8s.IsNode(obj) {
			n, _ := k8s.NewNode(obj)
			in.Nodes = append(in.Nodes, n)
		} else if w, _ := k8s.NewWorkload(obj); w != nil {
			in.Workloads = append(in.Workloads, w)
		}
	}
	return in
}
