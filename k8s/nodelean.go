package k8s

import "github.com/taintlint/taintlint/loader"

// NodeLean is how the loader reads the Nodes of a node inventory: only
// the members NewNode reads (decodeNodeView; the name is the object's)
// are made JSON when the Node is read; the rest of its JSON (most of a
// kubectl-shaped Node: images, node info, addresses, conditions) is made
// only when something asks for it (a Rego rule on Nodes, a finding's
// position).
func NodeLean() *loader.Lean {
	return &loader.Lean{
		APIVersion: "v1",
		Kind:       "Node",
		Schema:     viewSchemas().node,
		Keep:       []string{"metadata.labels", "metadata.annotations", "spec.taints", "spec.unschedulable", "status.allocatable"},
	}
}
