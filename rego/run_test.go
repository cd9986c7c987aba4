package rego_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
)

// slowPolicy iterates 10^8 times for every object: only cancellation
// ends it quickly.
const slowPolicy = `# METADATA
# title: Slow rule
# description: Takes long.
# related_resources:
#   - ref: https://example.com/slow
# custom:
#   id: acme-slow
#   severity: note
package acme.slow

deny contains {"msg": "never", "path": ""} if {
	some i in numbers.range(1, 10000)
	some j in numbers.range(1, 10000)
	i + j < 0
}
`

// TestRunHonoursContext: a rule from Load stops when the context given to
// Load ends, instead of running a slow policy to completion.
func TestRunHonoursContext(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slow.rego"), []byte(slowPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	all, err := rego.Load(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var slow *rules.Rule
	for _, r := range all {
		if r.ID == "acme-slow" {
			slow = r
		}
	}
	objs, err := loader.Load(context.Background(), []string{filepath.Join(errorsDir, "pod.yaml")}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := &rules.Input{Objects: objs.Objects}
	start := time.Now()
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = runRules(ctx, []*rules.Rule{slow}, in)
	if err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestInventoryNodesEvaluated: Node objects that come only from the
// inventory (--nodes) are evaluated too, as Go rules check their taints.
func TestInventoryNodesEvaluated(t *testing.T) {
	code, stdout, stderr := run(t, "check", "--format", "json", "--fail-on", "never",
		"--policy", validPolicy, "--enable", "acme-taint-key-domain",
		"--nodes", "../testdata/policies/valid/manifests/acme-taint-key-domain",
		filepath.Join(errorsDir, "pod.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"rule": "acme-taint-key-domain"`) || !strings.Contains(stdout, `nodes.yaml"`) {
		t.Errorf("no finding on the inventory node:\n%s", stdout)
	}
}

// TestBatchMatchesSingleRuns: with the selected rules named in the input,
// the engine evaluates them all in one pass over the objects; the findings
// are the same, in the same order, as running each rule on its own.
func TestBatchMatchesSingleRuns(t *testing.T) {
	all, err := rego.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"../testdata/rules/daemonset-uncovered-nodes", "../testdata/rules/toleration-shadowed", "../testdata/rules/daemonset-pressure-tolerations"}
	objs, err := loader.Load(context.Background(), paths, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	input := func() *rules.Input {
		in := &rules.Input{Objects: objs.Objects}
		for _, obj := range objs.Objects {
			switch {
			case k8s.IsNode(obj):
				n, _ := k8s.NewNode(obj)
				in.Nodes = append(in.Nodes, n)
			default:
				if w, _ := k8s.NewWorkload(obj); w != nil {
					in.Workloads = append(in.Workloads, w)
				}
			}
		}
		return in
	}
	collect := func(in *rules.Input, batched bool) map[string][]string {
		out := map[string][]string{}
		add := func(rs []*rules.Rule) {
			found, err := runRules(context.Background(), rs, in)
			if err != nil {
				t.Fatal(err)
			}
			for id, fs := range found {
				for _, f := range fs {
					out[id] = append(out[id], fmt.Sprintf("%s:%d:%d %s", f.Pos.File, f.Pos.Line, f.Pos.Column, f.Message))
				}
			}
		}
		if batched {
			add(all)
			return out
		}
		for _, r := range all {
			add([]*rules.Rule{r})
		}
		return out
	}
	single := collect(input(), false)
	got := collect(input(), true)
	if len(single["daemonset-pressure-tolerations"]) == 0 || len(single["toleration-wildcard"]) == 0 {
		t.Fatalf("fixtures gave no findings: %v", single)
	}
	if !reflect.DeepEqual(single, got) {
		t.Errorf("batched findings differ:\nsingle  %v\nbatched %v", single, got)
	}
}

// TestEvaluationRetainsNoInputs: once a rule has run, nothing of the
// objects' input documents is kept (the engine used to cache them for the
// whole run: about 7 KB per document).
func TestEvaluationRetainsNoInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates")
	}
	var doc strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&doc, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-%d, labels: {app: web, team: t%d}}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx, env: [{name: A, value: a}, {name: B, value: b}], resources: {requests: {cpu: 100m, memory: 64Mi}}}]\n      tolerations: [{key: gpu, operator: Exists, value: x}, {key: dedicated, value: web, effect: NoSchedule}]\n", i, i)
	}
	objs := loader.Parse("many.yaml", []byte(doc.String()))
	in := &rules.Input{Objects: objs.Objects}
	for _, obj := range objs.Objects {
		if w, _ := k8s.NewWorkload(obj); w != nil {
			in.Workloads = append(in.Workloads, w)
		}
	}
	all, err := rego.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// Positions of findings come from each document's tree, which the
	// loader parses again on first use and keeps: parse them now, so the
	// measure is of what the engine keeps.
	for _, obj := range objs.Objects {
		obj.Tree()
	}
	before := heap()
	n := 0
	found, err := runRules(context.Background(), all, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, fs := range found {
		n += len(fs)
	}
	found = nil
	grown := int64(heap()) - int64(before)
	runtime.KeepAlive(in)
	runtime.KeepAlive(all)
	if n < 3000 {
		t.Fatalf("%d findings, want at least 3000", n)
	}
	if grown > 4<<20 {
		t.Errorf("heap grew by %d KB over %d objects: input documents are kept", grown>>10, len(objs.Objects))
	}
}

// TestMemoizedFindingsPerObject: findings are reused only between objects
// that agree on everything a rule reads. Thousands of Deployments differ
// in their name alone: a rule that reads the name finds each its own (and
// its memo, never hit, turns itself off), a rule that reads only the
// tolerations gives each the same finding at its own position.
func TestMemoizedFindingsPerObject(t *testing.T) {
	const policy = `# METADATA
# title: Test rule %[1]s
# description: Test.
# related_resources:
#   - ref: https://example.com/%[1]s
# custom:
#   id: acme-%[1]s
#   severity: note
#   kinds: [Deployment]
package acme.%[1]s

deny contains {"msg": msg, "path": input.podSpecPath} if {
	n := count(input.podSpec.tolerations)
	msg := sprintf("%%s %%d", [%[2]s, n])
}
`
	dir := t.TempDir()
	for name, what := range map[string]string{"named": "input.name", "shared": `"tolerations"`} {
		if err := os.WriteFile(filepath.Join(dir, name+".rego"), []byte(fmt.Sprintf(policy, name, what)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, err := rego.Load(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	const n = 3000
	for i := range n {
		fmt.Fprintf(&src, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n      tolerations: [{key: a, operator: Exists}]\n", i)
	}
	objs := loader.Parse("d.yaml", []byte(src.String()))
	in := &rules.Input{Objects: objs.Objects}
	for _, obj := range objs.Objects {
		w, _ := k8s.NewWorkload(obj)
		in.Workloads = append(in.Workloads, w)
	}
	got, err := runRules(context.Background(), all, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"acme-named", "acme-shared"} {
		if len(got[id]) != n {
			t.Fatalf("%s: %d findings, want %d", id, len(got[id]), n)
		}
	}
	for i := range n {
		named, shared := got["acme-named"][i], got["acme-shared"][i]
		if want := fmt.Sprintf("d%d 1", i); named.Message != want || named.Object.Name != fmt.Sprintf("d%d", i) {
			t.Fatalf("acme-named finding %d: %q on %v, want %q", i, named.Message, named.Object, want)
		}
		if shared.Message != "tolerations 1" || shared.Object.Name != named.Object.Name || shared.Pos != named.Pos {
			t.Fatalf("acme-shared finding %d: %q at %v on %v, want the named finding's place", i, shared.Message, shared.Pos, shared.Object)
		}
	}
}

// TestMemoSkipsObjectsWithoutJSON: an object whose document uses YAML
// aliases keeps no JSON, so what its rules read cannot be keyed: it is
// evaluated, never given the findings of objects that lack what it has
// (here, tolerations), whichever rule reads its pod spec first.
func TestMemoSkipsObjectsWithoutJSON(t *testing.T) {
	const policy = `# METADATA
# title: Test rule %[1]s
# description: Test.
# related_resources:
#   - ref: https://example.com/%[1]s
# custom:
#   id: acme-%[1]s
#   severity: note
#   kinds: [Deployment]
package acme.%[3]s

deny contains {"msg": "%[1]s", "path": input.podSpecPath} if {
	%[2]s
}
`
	dir := t.TempDir()
	for name, cond := range map[string]string{"a-selector": "input.podSpec.nodeSelector", "b-no-tolerations": "not input.podSpec.tolerations"} {
		if err := os.WriteFile(filepath.Join(dir, name+".rego"), []byte(fmt.Sprintf(policy, name, cond, strings.ReplaceAll(name, "-", "_"))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, err := rego.Load(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for i := range 40 {
		fmt.Fprintf(&src, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: plain%d}\nspec:\n  template:\n    spec:\n      nodeSelector: {a: b}\n      containers: [{name: c, image: i}]\n", i)
	}
	src.WriteString("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: aliased}\nspec:\n  template:\n    spec:\n      nodeSelector: &sel {a: b}\n      tolerations: [{key: x, operator: Exists}]\n      containers: [{name: c, image: i}]\n      x: *sel\n")
	objs := loader.Parse("d.yaml", []byte(src.String()))
	in := &rules.Input{Objects: objs.Objects}
	for _, obj := range objs.Objects {
		w, _ := k8s.NewWorkload(obj)
		in.Workloads = append(in.Workloads, w)
	}
	found, err := runRules(context.Background(), all, in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for id, fs := range found {
		for _, f := range fs {
			got[id]++
			if id == "acme-b-no-tolerations" && f.Object.Name == "aliased" {
				t.Errorf("%s reported on the object with tolerations", id)
			}
		}
	}
	if got["acme-a-selector"] != 41 || got["acme-b-no-tolerations"] != 40 {
		t.Errorf("findings per rule %v, want 41 and 40", got)
	}
}
