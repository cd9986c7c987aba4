package scheduling

import (
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// object reads a manifest whose spec (of the pod template, or of a Pod or
// Node itself) is written as YAML, and returns the object the loader makes
// of it: the tests here judge specs, not where fields are written.
func object(t *testing.T, apiVersion, kind, spec string) *loader.Object {
	t.Helper()
	var s map[string]any
	if err := yaml.Unmarshal([]byte(spec), &s); err != nil {
		t.Fatalf("spec: %v", err)
	}
	if kind != "Pod" && kind != "Node" {
		s = map[string]any{"template": map[string]any{"spec": s}}
	}
	src, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "w"}, "spec": s})
	if err != nil {
		t.Fatal(err)
	}
	r := loader.Parse("w.json", src)
	if len(r.Objects) != 1 {
		t.Fatalf("parse: %v", r.Errors)
	}
	return r.Objects[0]
}

func workload(t *testing.T, kind, spec string) *k8s.Workload {
	t.Helper()
	apiVersion := "apps/v1"
	if kind == "Pod" {
		apiVersion = "v1"
	}
	w, issue := k8s.NewWorkload(object(t, apiVersion, kind, spec))
	if issue != nil {
		t.Fatalf("decode: %s: %s", issue[0].Path, issue[0].Msg)
	}
	return w
}
