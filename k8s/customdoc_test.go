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

- **Pod template**: the kind's pod templates' specs. Each one is a
  workload, judged by every rule as a Deployment's pods are (validation,
  placement on the inventory, hygiene), findings at the template's lines;
  "(DaemonSet)" marks a template the operator makes a DaemonSet of, judged
  as one. A kind with several (a path with ` + "`*`" + ` or ` + "`[*]`" + `, or more than one
  path) gets a workload per template found, and each scheduling finding
  begins with the template's path (` + "`pod template spec.nodeSets[1].podTemplate: ...`" + `).
  "(rack: path)" marks a template whose pods get the label key at path, when
  the object gives one, as a required node affinity Exists requirement in
  each term (Strimzi's rack awareness, ` + "`rack.topologyKey`" + `), judged even
  where no template is written, since the operator's pods exist anyway.
- **Operands**: the DaemonSets an operator makes of the object's settings
  (NVIDIA's ClusterPolicy, ` + "`spec.daemonsets`" + `): marked (operands), judged as one DaemonSet at that
  path, whose pods carry the settings' tolerations and priorityClassName, or
  the operands' own when unset (` + "`nvidia.com/gpu`" + ` Exists NoSchedule,
  ` + "`system-node-critical`" + `), and go to the nodes the operator labels for its
  operands: an NVIDIA PCI device found by NFD
  (` + "`feature.node.kubernetes.io/pci-10de.present`" + `, ` + "`pci-0302_10de`" + `,
  ` + "`pci-0300_10de`" + `) or ` + "`nvidia.com/gpu.present=true`" + `, and not
  ` + "`nvidia.com/gpu.deploy.operands=false`" + ` (a required node affinity of four
  terms, in messages).
- **Merged pods**: the pods an operator builds by merging several of the
  object's placements (Spark's ` + "`spec.nodeSelector`" + ` with the driver's or
  executor's settings and pod template; Rook's ` + "`placement.all`" + ` with each
  component's), built here as the operator's source builds them (the list
  below the table). Each is a workload the scheduling rules judge
  (pod-unschedulable, daemonset-*, pod-prefers-avoided-nodes), found at the
  deepest path written among its sources, and its findings begin with that
  path and the pods' name (` + "`pod template spec.executor (the executor pods): ...`" + `).
  The placements it is merged from are validated where written (below); the
  merged pod never is again. Its tolerations have source ` + "`placement`" + `:
  toleration-unmatched, -shadowed and -eviction-loop, which judge
  tolerations written in a pod spec, leave them alone. A merged pod is not
  built when one of its placements does not decode.
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

| Group | Kind | Pod template | Merged pods | Placements | Source |
| --- | --- | --- | --- | --- | --- |
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
		templates := code(c.PodTemplate)
		for _, t := range c.Templates {
			if templates != "" {
				templates += "<br>"
			}
			templates += code(t.Path)
			if t.DaemonSet {
				templates += " (DaemonSet)"
			}
			if t.RackKey != "" {
				templates += " (rack: " + code(t.RackKey) + ")"
			}
		}
		if c.Operands != nil {
			templates += code(c.Operands.Path) + " (operands)"
		}
		var merges []string
		for _, m := range c.Merges {
			merges = append(merges, m.Name)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", c.Group, c.Kind, templates, code(merges...), code(c.Placements...), c.Source)
	}
	b.WriteString("\n## How the merged pods are built\n\n")
	for _, c := range OperatorKinds() {
		for _, m := range c.Merges {
			fmt.Fprintf(&b, "- %s `%s`: %s.\n", c.Kind, m.Name, m.Rule)
		}
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
