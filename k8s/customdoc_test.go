package k8s

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/custom-resources.md")

// TestCustomResourcesDoc holds docs/custom-resources.md to OperatorKinds,
// the one place the table lives; go test ./k8s -run TestCustomResourcesDoc
// -update rewrites it.
func TestCustomResourcesDoc(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`# Custom resources that place pods

<!-- Generated from k8s.OperatorKinds by TestCustomResourcesDoc; do not edit. -->

Operators put pod placement in their own resources. taintlint reads the
kinds below with no setting; ` + "`customKinds:`" + ` in ` + "`.taintlint.yaml`" + ` adds
your own (README, Configuration), and an entry of yours for a group and kind
takes the place of the one here.

- **Pod template**: the kind's one pod template's spec. Its objects are
  workloads, judged by every rule as a Deployment's pods are (validation,
  placement on the inventory, hygiene), findings at the template's lines.
- **Placements**: objects holding ` + "`tolerations`, `nodeSelector`, `affinity`" + ` (its
  ` + "`nodeAffinity`" + `) or Rook's ` + "`nodeAffinity`" + `, which the operator copies into the
  pods it makes, merged with its own defaults. Their tolerations, node
  selectors and node affinity are validated as a pod spec's (the
  toleration-*, selector-invalid rules written in Go); they are not placed on
  the inventory, since the pods the operator makes hold more than these
  fields. ` + "`[*]`" + ` is every element of a list, ` + "`*`" + ` every member of a map.

Each path is taken from the operator's own API types, at the commit named.
Custom resources are never checked for unknown fields (field-unknown): their
schemas live in the cluster.

| Group | Kind | Pod template | Placements | Source |
| --- | --- | --- | --- | --- |
`)
	code := func(ps ...string) string {
		var out []string
		for _, p := range ps {
			if p != "" {
				out = append(out, "`"+p+"`")
			}
		}
		return strings.Join(out, "<br>")
	}
	for _, c := range OperatorKinds() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Group, c.Kind, code(c.PodTemplate), code(c.Placements...), c.Source)
	}
	path := "../docs/custom-resources.md"
	if *updateDocs {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, b.Bytes()) {
		t.Errorf("docs/custom-resources.md is stale: go test ./k8s -run TestCustomResourcesDoc -update")
	}
}
