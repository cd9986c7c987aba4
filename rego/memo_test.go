package rego_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/taintlint/taintlint/rules/rulestest"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules/builtin"
)

// TestMemoizedFactsSameFindings: evaluating all rules of an object in one
// query, sharing input.facts between workloads with the same facts key,
// and reusing a rule's findings between objects that agree on what it
// reads, changes no finding, byte for byte, on generated corpora (many workloads,
// a quarter of them wrong) and on every rule fixture, with and without
// admission plugins turned on.
func TestMemoizedFactsSameFindings(t *testing.T) {
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	plainRego, err := rego.LoadWithoutShortcuts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	plain := append(builtin.Rules(), plainRego...)
	type run struct {
		name         string
		paths, nodes []string
	}
	var runs []run
	for i, spec := range []benchgen.Spec{
		{Docs: 300, Files: 30, Nodes: 40, Pools: 6, Seed: 7, BadPercent: 25},
		{Docs: 200, Files: 10, Nodes: 12, Pools: 3, Seed: 11, BadPercent: 60},
	} {
		dir := t.TempDir()
		if err := benchgen.Write(dir, spec); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{name: "benchgen" + string(rune('0'+i)), paths: []string{filepath.Join(dir, "apps")}, nodes: []string{filepath.Join(dir, "cluster")}})
	}
	dirs, err := filepath.Glob("../testdata/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			nodes, err := rulestest.InventoryFiles([]string{d})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, run{name: filepath.Base(d), paths: []string{d}, nodes: nodes})
		}
	}
	admissions := map[string]k8s.Admission{
		"defaults": {},
		"plugins": {
			PodTolerationRestriction:   true,
			DefaultTolerations:         []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
			ExtendedResourceToleration: true,
			PodNodeSelector:            true,
			ClusterDefaultNodeSelector: map[string]string{"kubernetes.io/os": "linux"},
			DefaultNotReadySeconds:     60,
		},
	}
	check := func(t *testing.T, r run, adm k8s.Admission, memo bool) []byte {
		rs := plain
		if memo {
			rs = all
		}
		res, err := lint.Run(context.Background(), lint.Options{Options: checker.Options{Paths: r.paths, Nodes: r.nodes, Rules: rs, Enable: []string{"all"}, Admission: adm}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal([]any{res.Findings, res.Suppressed})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, r := range runs {
		for name, adm := range admissions {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				want := check(t, r, adm, false)
				got := check(t, r, adm, true)
				if string(got) != string(want) {
					t.Errorf("memoized findings differ:\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}

// TestFactsFollowAdmission: input.facts.tolerations hold what enabled
// admission plugins add, marked with their source (issue 5), and nothing
// from plugins that are off.
func TestFactsFollowAdmission(t *testing.T) {
	dir := t.TempDir()
	policy := `# METADATA
# title: Admission tolerations
# description: Reports tolerations an admission plugin added.
# related_resources:
#   - ref: https://example.com/adm
# custom:
#   id: acme-admission-tolerations
#   severity: note
package acme.admission

deny contains {"msg": sprintf("%s from %s", [tol.key, tol.source]), "path": input.podSpecPath} if {
	some tol in input.facts.tolerations
	tol.source in {"ExtendedResourceToleration", "PodTolerationRestriction"}
}
`
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata: {name: w, namespace: gpu}
spec:
  template:
    spec:
      containers: [{name: c, image: c, resources: {limits: {example.com/gpu: 1, cpu: 1}}}]
`
	if err := os.WriteFile(filepath.Join(dir, "adm.rego"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := checker.Rules(context.Background(), []string{filepath.Join(dir, "adm.rego")})
	if err != nil {
		t.Fatal(err)
	}
	msgs := func(adm k8s.Admission) []string {
		res, err := lint.Run(context.Background(), lint.Options{Options: checker.Options{Paths: []string{filepath.Join(dir, "w.yaml")}, Rules: all, Enable: []string{"acme-admission-tolerations"}, Admission: adm}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range res.Findings {
			if f.Rule == "acme-admission-tolerations" {
				out = append(out, f.Message)
			}
		}
		return out
	}
	if got := msgs(k8s.Admission{}); len(got) != 0 {
		t.Errorf("plugins off: %q", got)
	}
	got := msgs(k8s.Admission{ExtendedResourceToleration: true, PodTolerationRestriction: true})
	want := []string{"example.com/gpu from ExtendedResourceToleration", "node.kubernetes.io/memory-pressure from PodTolerationRestriction"}
	if len(got) != 2 || !reflect.DeepEqual(sorted(got), want) {
		t.Errorf("plugins on: %q, want %q", got, want)
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}
