package rego_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
	"github.com/taintlint/taintlint/rules/builtin"
)

// TestPrunedInputHardReads: policies that read the input in ways a path
// list cannot name (walk, object.get with a computed path, input[x],
// json.marshal(input), functions taking the input, with-statements) or
// read whole values (count, ==, object.keys, some/every over members,
// helper rules) find exactly what they find on the whole document, each
// with messages that print what they saw.
func TestPrunedInputHardReads(t *testing.T) {
	policies := map[string]string{
		"walkall":    `deny contains {"msg": sprintf("walk %d", [count([p | walk(input, [p, _])])]), "path": input.podSpecPath} if { input.kind != "" }`,
		"walkobj":    `deny contains {"msg": sprintf("walk %v", [[p | walk(input.object.metadata, [p, _])]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"objget":     `deny contains {"msg": sprintf("get %v", [[object.get(input, ["object", "metadata", k], "none") | some k in ["name", "labels", "namespace", "annotations"]]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"objgetspec": `deny contains {"msg": sprintf("get %v", [[object.get(input.object.spec, p, "none") | some p in [["template", "spec", "tolerations"], ["template", "metadata"], ["containers"]]]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"var":        `deny contains {"msg": sprintf("keys %v", [[x | input[x]]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"marshal":    `deny contains {"msg": sprintf("len %d", [count(json.marshal(input))]), "path": input.podSpecPath} if { input.kind != "" }`,
		"count":      `deny contains {"msg": sprintf("spec %d meta %d obj %d", [count(input.podSpec), count(input.object.metadata), count(input.object)]), "path": input.podSpecPath} if { input.kind != "" }`,
		"equal": `deny contains {"msg": "equal", "path": input.podSpecPath} if { input.podSpec == {"containers": [{"name": "c", "image": "nginx"}], "nodeSelector": {"pool": "a"}} }
deny contains {"msg": "meta equal", "path": input.podSpecPath} if { input.object.metadata == {"name": "web2", "labels": {"tier": "front", "app": "web"}} }`,
		"keys": `deny contains {"msg": sprintf("keys %v %v", [object.keys(input.object.metadata), object.keys(input.podSpec)]), "path": input.podSpecPath} if { input.kind != "" }`,
		"with": `k := input.kind
deny contains {"msg": sprintf("with %v %v", [x, y]), "path": input.podSpecPath} if {
	x := k with input.kind as "Changed"
	y := k
}`,
		"withdata": `deny contains {"msg": sprintf("with %v", [x]), "path": input.podSpecPath} if {
	x := count(input.object.metadata) with input.object.metadata.extra as 1
}`,
		"func": `f(x) := count(x.object.metadata)
g(m) := object.keys(m)
deny contains {"msg": sprintf("f %d g %v", [f(input), g(input.object.metadata)]), "path": input.podSpecPath} if { input.kind != "" }`,
		"some": `deny contains {"msg": sprintf("member %s=%v", [k, v]), "path": input.podSpecPath} if { some k, v in input.object.metadata }`,
		"every": `deny contains {"msg": "every label is web or front", "path": input.podSpecPath} if {
	input.kind != ""
	every k, v in input.object.metadata { k != "namespace"; v != "x" }
}`,
		"helper": `names contains n if { n := input.podSpec.containers[_].name }
labels[k] := v if { some k, v in input.object.metadata.labels }
deny contains {"msg": sprintf("names %v labels %v app %v", [names, labels, object.get(labels, "app", "-")]), "path": input.podSpecPath} if { input.kind != "" }`,
		"filter": `deny contains {"msg": sprintf("filter %v union %d", [object.filter(input.object.metadata, ["name", "labels"]), count(object.union(input.object, {"x": 1}))]), "path": input.podSpecPath} if { input.kind != "" }`,
		"else": `v := input.object.metadata.namespace if { input.object.metadata.namespace } else := count(input.object.metadata)
deny contains {"msg": sprintf("else %v", [v]), "path": input.podSpecPath} if { input.kind != "" }`,
		"index": `deny contains {"msg": sprintf("first %v last %v", [input.podSpec.containers[0], input.podSpec.containers[count(input.podSpec.containers) - 1].name]), "path": input.podSpecPath} if { input.kind != "" }`,
		"lib": `found contains sprintf("lib %d", [count([p | walk(input, [p, _])])]) if { input.kind != "" }
deny contains {"msg": x, "path": input.podSpecPath} if { some x in found }`,
		"dynref": `deny contains {"msg": sprintf("dyn %v", [x]), "path": input.podSpecPath} if {
	some p
	p == "hard_lib"
	some x in data.acme[p].found
}`,
		"crossref": `deny contains {"msg": sprintf("cross %v", [x]), "path": input.podSpecPath} if { some x in data.acme.hard_lib.found }`,
		"label":    `deny contains {"msg": sprintf("app %v", [input.object.metadata.labels.app]), "path": input.podSpecPath} if { input.object.metadata.labels.tier }`,
	}
	groups := [][]string{nil} // nil: every policy together
	for name := range policies {
		if name != "lib" {
			groups = append(groups, []string{name, "lib"}) // the cross references read lib
		}
	}
	samePrunedGroups(t, policies, groups)
}

// samePrunedGroups runs samePrunedFindings on each group of policies
// (nil: all of them), each written as the deny rules of package
// acme.hard_NAME, rule acme-hard-NAME.
func samePrunedGroups(t *testing.T, policies map[string]string, groups [][]string) {
	t.Helper()
	for _, group := range groups {
		dir := t.TempDir()
		names := group
		if names == nil {
			for name := range policies {
				names = append(names, name)
			}
		}
		for _, name := range names {
			body := policies[name]
			src := `# METADATA
# title: Hard ` + name + `
# description: Reads the input in a hard way.
# related_resources:
#   - ref: https://example.com/` + name + `
# custom:
#   id: acme-hard-` + name + `
#   severity: note
package acme.hard_` + name + `

` + body + "\n"
			if err := os.WriteFile(filepath.Join(dir, name+".rego"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		samePrunedFindings(t, dir, names)
	}
}

// TestPrunedElementReads: rules that read an input list's elements only
// below constant keys (some v in input.podSpec.volumes; v.hostPath.path)
// read those keys of every element (input.podSpec.volumes[*].hostPath.path)
// and see a list of elements holding only them; rules that use an element
// otherwise (whole, passed to a function) read the whole list. Each finds
// what it finds on the whole document, alone and together, on lists with
// elements of other types, on objects where a list is expected, and on
// empty lists.
func TestPrunedElementReads(t *testing.T) {
	policies := map[string]string{
		// Elements read below constant keys only (input.p[*].a.b), and
		// the ways of reading them that make the whole list read.
		"elem":      `deny contains {"msg": sprintf("paths %v", [[p | some v in input.podSpec.volumes; p := v.hostPath.path]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemtwo":   `deny contains {"msg": sprintf("vol %d %v %v", [i, v.name, v.hostPath.path]), "path": input.podSpecPath} if { some i, v in input.podSpec.volumes; v.hostPath }`,
		"elemref":   `deny contains {"msg": sprintf("images %v", [[x | x := input.podSpec.containers[_].image]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemkey":   `deny contains {"msg": sprintf("named %v", [[k | input.podSpec.volumes[k].name]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemwhole": `deny contains {"msg": sprintf("sizes %v", [[count(v) | some v in input.podSpec.volumes]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemfunc": `n(x) := object.get(x, "name", "-")
deny contains {"msg": sprintf("names %v", [[n(v) | some v in input.podSpec.volumes]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemdeep":  `deny contains {"msg": sprintf("env %v", [[e | some c in input.podSpec.containers; some e in c.env; e.value]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemowner": `deny contains {"msg": sprintf("owners %v", [[o.kind | some o in input.object.metadata.ownerReferences]]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemcount": `deny contains {"msg": sprintf("volumes %d", [count([1 | some v in input.podSpec.volumes])]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemindex": `deny contains {"msg": sprintf("last %v", [max({i | some i, v in input.podSpec.volumes})]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemlabel": `deny contains {"msg": sprintf("label keys %v", [{k | some k, v in input.object.metadata.labels}]), "path": input.podSpecPath} if { input.kind != "" }`,
		"elemvar": `deny contains {"msg": sprintf("at %v %v", [i, input.podSpec.volumes[i].name]), "path": input.podSpecPath} if {
	some i
	input.podSpec.volumes[i].hostPath
}`,
	}
	groups := [][]string{nil}
	for name := range policies {
		groups = append(groups, []string{name})
	}
	samePrunedGroups(t, policies, groups)
}

const hardManifests = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: prod, labels: {app: web, tier: front}, annotations: {a: b}}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, env: [{name: A, value: "1"}]}]
      tolerations: [{key: dedicated, operator: Exists}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web2, labels: {tier: front, app: web}}
spec:
  template:
    spec:
      containers: [{name: side, image: busybox}, {name: web, image: nginx}]
      affinity: {podAffinity: {}}
---
apiVersion: v1
kind: Pod
metadata: {name: odd, labels: {app: web, tier: back}}
spec:
  containers: [{name: c, image: nginx}]
  nodeSelector: {pool: a}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: nullspec, labels: null, annotations: {"a.b/c": "\u00e9"}}
spec: {template: {metadata: null, spec: null}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: nometa}
spec: {template: {spec: {containers: [], tolerations: null}}}
---
apiVersion: v1
kind: Pod
metadata: {name: vols, ownerReferences: [{kind: DaemonSet, name: d}, "odd", {name: x}]}
spec:
  containers: [{name: c, image: a, env: [{name: A, value: "1"}, {name: B}]}, {name: d, image: b, env: null}, "odd"]
  volumes: [{name: cni, hostPath: {path: /etc/cni}}, "odd", {name: h, hostPath: "str"}, {hostPath: {path: /opt/cni/bin, type: Directory}}, null, {name: e, emptyDir: {}}]
---
apiVersion: v1
kind: Pod
metadata: {name: volmap}
spec:
  containers: {c: {image: x}}
  volumes: {a: {name: a, hostPath: {path: /a}}, b: {name: b}}
---
apiVersion: v1
kind: Pod
metadata: {name: volempty, ownerReferences: []}
spec: {containers: [], volumes: []}
`

// samePrunedFindings runs the policies of dir with and without the input
// shortcuts on hardManifests and compares the findings byte for byte;
// each policy must find something.
func samePrunedFindings(t *testing.T, dir string, names []string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(hardManifests), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fast, err := checker.Rules(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	plainRego, err := rego.LoadWithoutShortcuts(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	plain := append(builtin.Rules(), plainRego...)
	check := func(rs []*rules.Rule) ([]byte, map[string]int) {
		res, err := lint.Run(ctx, lint.Options{Options: checker.Options{Paths: []string{filepath.Join(dir, "m.yaml")}, Rules: rs, Enable: []string{"all"}}})
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, f := range res.Findings {
			count[f.Rule]++
		}
		b, err := json.Marshal(res.Findings)
		if err != nil {
			t.Fatal(err)
		}
		return b, count
	}
	want, count := check(plain)
	got, _ := check(fast)
	if string(got) != string(want) {
		t.Errorf("findings on pruned inputs differ:\n got %s\nwant %s", got, want)
	}
	for _, name := range names {
		if count["acme-hard-"+name] == 0 {
			t.Errorf("acme-hard-%s found nothing: the test proves nothing about it", name)
		}
	}
}
