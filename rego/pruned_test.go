package rego_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
	"github.com/taintlint/taintlint/rules/builtin"
)

// TestPrunedInputSameFindings: policies whose reads are all known see an
// input document holding only what they read, and find exactly what they
// find on the whole document (rego.LoadWithoutShortcuts), when rules that
// read a value whole and rules that read below it are evaluated together,
// when a rule compares or collects pruned objects (OPA keeps hashes of
// objects), when a read path leads nowhere, and on objects where a rule
// reads through an index or reads the input as a whole (which get the
// whole document).
func TestPrunedInputSameFindings(t *testing.T) {
	dir := t.TempDir()
	policies := map[string]string{
		"whole": `deny contains {"msg": sprintf("affinity %v labels %v", [input.podSpec.affinity, input.object.metadata.labels]), "path": input.podSpecPath} if {
	input.podSpec.affinity
	input.object.metadata.labels == {"app": "web", "tier": "front"}
}`,
		"below": `deny contains {"msg": sprintf("terms %d name %s", [count(input.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms), input.object.metadata.name]), "path": input.podSpecPath} if {
	{input.object.metadata.labels} == {{"tier": "front", "app": "web"}}
	input.object.spec.template.spec.tolerations[_].key == "dedicated"
}

deny contains {"msg": "absent is absent", "path": input.podSpecPath} if {
	not input.podSpec.nope.deeper
	not input.object.metadata.annotations.missing
	is_string(input.podSpecPath)
}`,
		"spec": `deny contains {"msg": sprintf("spec %v of %s", [input.podSpec, input.kind]), "path": "metadata"} if {
	input.name == "odd"
}`,
		"index": `deny contains {"msg": sprintf("first container %s", [input.podSpec.containers[0].name]), "path": input.podSpecPath} if {
	input.podSpec.containers[0].image == "nginx"
}`,
		"everything": `deny contains {"msg": sprintf("%d keys", [count(object.keys(input))]), "path": "metadata"} if {
	input.kind == "ConfigMap"
}`,
	}
	kinds := map[string]string{"index": "Pod", "everything": "ConfigMap"}
	for name, body := range policies {
		kind := ""
		if k := kinds[name]; k != "" {
			kind = "#   kinds: [" + k + "]\n"
		}
		src := `# METADATA
# title: Pruned ` + name + `
# description: Reads parts of the input.
# related_resources:
#   - ref: https://example.com/` + name + `
# custom:
#   id: acme-pruned-` + name + `
#   severity: note
` + kind + `package acme.pruned_` + name + `

` + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name+".rego"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifests := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: prod, labels: {app: web, tier: front}}
spec:
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, env: [{name: A, value: "1"}]}]
      tolerations: [{key: dedicated, operator: Exists}]
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [a]}]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web2, labels: {tier: front, app: web}}
spec:
  template:
    spec:
      containers: [{name: side, image: busybox}, {name: web, image: nginx}]
      tolerations: [{key: dedicated, operator: Exists}]
      affinity: {podAffinity: {}}
---
apiVersion: v1
kind: Pod
metadata: {name: odd, labels: {app: web, tier: back}}
spec:
  containers: [{name: c, image: nginx}]
  nodeSelector: {pool: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: odd}
data: {a: b}
`
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(manifests), 0o644); err != nil {
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
	for name := range policies {
		if count["acme-pruned-"+name] == 0 {
			t.Errorf("acme-pruned-%s found nothing: the test proves nothing about it", name)
		}
	}
	if !strings.Contains(string(want), "terms 1 name web") {
		t.Errorf("findings lack the nested read: %s", want)
	}
}
