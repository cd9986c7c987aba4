package loader

import (
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// Lean names a kind of List item of which the caller reads only a few
// members: a node inventory (`kubectl get nodes -o yaml`) is mostly each
// Node's status (images, node info, addresses, conditions), which no rule
// reads. An item of the kind that the fast path reads, and whose every
// value fits Schema, keeps only the JSON of the members Keep names
// (LeanJSON); its whole JSON and the positions of its fields are made
// from its List, read again, the first time anything asks for them
// (JSON, JSONAt, Decode, Check, Locate), the same bytes as an item read
// without Lean. An item with a value of the wrong type anywhere is read
// as without Lean, so the errors its decode finds stay the same.
// TestLean and FuzzLean hold a lean item to the same item read whole.
type Lean struct {
	APIVersion, Kind string
	// Schema is the type the item is decoded into; LeanJSON gives the
	// kept members only to a caller that names the same Schema.
	Schema *jsonscan.Schema
	// Keep are the members kept, as a top-level name ("metadata") or a
	// name and a member of its value ("status.allocatable").
	Keep []string
}

// LeanJSON is the JSON of the members Options.Lean keeps of a lean item
// that fits s: every member of the whole JSON that Lean.Keep names, in
// the same order, with the same bytes. ok is false for any other object
// (the caller reads its JSON).
func (o *Object) LeanJSON(s *jsonscan.Schema) (part []byte, ok bool) {
	b, lean := o.src.(*leanBacking)
	if !lean || s == nil || b.item.Schema != s {
		return nil, false
	}
	return b.item.Part, true
}
