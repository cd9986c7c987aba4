package k8s

import (
	"bytes"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

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

// taintsOf decodes a JSON list of taints as decoding it into []v1.Taint
// does, for the plain case: every element an object whose members, other
// than timeAdded, are null or strings without escapes (members it does
// not know are passed over, as decoding does). ok is false for anything
// else, which the caller decodes as before.
func taintsOf(data []byte) (taints []v1.Taint, ok bool) {
	var elems [4][]byte
	list := jsonscan.Elems(data, elems[:0])
	if len(data) == 0 || data[0] != '[' {
		return nil, false
	}
	taints = make([]v1.Taint, len(list))
	var members [4]jsonscan.Field
	for i, e := range list {
		if len(e) == 0 || e[0] != '{' {
			return nil, false
		}
		for _, f := range jsonscan.Fields(e, members[:0]) {
			var s *string
			switch string(f.Key) {
			case `"key"`:
				s = &taints[i].Key
			case `"value"`:
				s = &taints[i].Value
			case `"effect"`:
				s = (*string)(&taints[i].Effect)
			}
			switch {
			case s == nil && string(f.Key) != `"timeAdded"` && bytes.IndexByte(f.Key, '\\') < 0:
				// A member decoding passes over.
			case s == nil:
				return nil, false
			case string(f.Value) == "null":
				// Leaves the field as it is.
			case len(f.Value) >= 2 && f.Value[0] == '"' && plainString(f.Value[1:len(f.Value)-1]):
				*s = string(f.Value[1 : len(f.Value)-1])
			default:
				return nil, false
			}
		}
	}
	return taints, true
}

// plainString reports whether b, the text of a JSON string, is printable
// ASCII without escapes: the string is its bytes.
func plainString(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
