package yamltree

import (
	"fmt"

	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// Walk follows steps from n and returns the node that marks the deepest
// existing step (the key node for a map field, the element for a list index)
// and how many steps it followed.
func Walk(n *yaml.Node, steps []jsonscan.Step) (*yaml.Node, int) {
	mark := n
	cur := n
	for depth, s := range steps {
		cur = Deref(cur)
		if cur == nil {
			return mark, depth
		}
		var key, val *yaml.Node
		if s.Index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.Index >= len(cur.Content) {
				return mark, depth
			}
			key, val = cur.Content[s.Index], cur.Content[s.Index]
		} else {
			if cur.Kind != yaml.MappingNode {
				return mark, depth
			}
			key, val = Lookup(cur, s.Key, 0)
			if key == nil {
				return mark, depth
			}
		}
		mark, cur = key, val
	}
	return mark, len(steps)
}

// Lookup finds key in a mapping node, following YAML merge keys (<<) as
// kubectl's YAML (goyaml.v2) applies them, as mappingPairs does: the last
// entry that writes the key, an explicit key or a merge, gives its value;
// of a sequence of merged mappings, the first that holds the key.
func Lookup(m *yaml.Node, key string, depth int) (k, v *yaml.Node) {
	budget := maxLookup
	return lookupIn(m, key, depth, &budget)
}

// maxLookup bounds the mappings one lookup visits: merges of merges (a
// mapping merging itself, or each level merging the one below twice)
// would otherwise take time exponential in their depth. kubectl refuses
// a mapping that merges itself; past the bound the key is not found.
const maxLookup = 4096

// lookupIn is Lookup within budget mappings.
func lookupIn(m *yaml.Node, key string, depth int, budget *int) (k, v *yaml.Node) {
	if *budget--; depth > 16 || *budget < 0 {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn := m.Content[i]
		if kn.Kind != yaml.ScalarNode {
			continue
		}
		if kn.Tag == "!!merge" {
			mv := Deref(m.Content[i+1])
			if mv == nil {
				continue
			}
			sources := []*yaml.Node{mv}
			if mv.Kind == yaml.SequenceNode {
				sources = mv.Content
			}
			for _, src := range sources {
				if src = Deref(src); src != nil && src.Kind == yaml.MappingNode {
					if sk, sv := lookupIn(src, key, depth+1, budget); sk != nil {
						k, v = sk, sv
						break
					}
				}
			}
			continue
		}
		if kn.Value == key {
			k, v = kn, m.Content[i+1]
		}
	}
	return k, v
}

// Deref follows aliases and document wrappers.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 64; i++ {
		switch n.Kind {
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return nil
}

// Scalar returns the string value of key in mapping m, and whether it is a
// string scalar.
func Scalar(m *yaml.Node, key string) (string, bool) {
	if m == nil || m.Kind != yaml.MappingNode {
		return "", false
	}
	_, v := Lookup(m, key, 0)
	v = Deref(v)
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
		return "", false
	}
	return v.Value, true
}

// ValueOf is the value of key in mapping node m, or nil.
func ValueOf(m *yaml.Node, key string) *yaml.Node {
	_, v := Lookup(m, key, 0)
	return v
}

// WalkValue is Walk returning the value node rather than the key node.
func WalkValue(n *yaml.Node, steps []jsonscan.Step) (*yaml.Node, int) {
	cur := n
	for depth, s := range steps {
		cur = Deref(cur)
		if cur == nil {
			return nil, depth
		}
		if s.Index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.Index >= len(cur.Content) {
				return nil, depth
			}
			cur = cur.Content[s.Index]
			continue
		}
		if cur.Kind != yaml.MappingNode {
			return nil, depth
		}
		_, v := Lookup(cur, s.Key, 0)
		if v == nil {
			return nil, depth
		}
		cur = v
	}
	return cur, len(steps)
}

// Unmarshal is yaml.Unmarshal into a node with panics turned into errors:
// the YAML parser is the one component that sees hostile bytes first.
func Unmarshal(data []byte, doc *yaml.Node) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("yaml: parser failed: %v", p)
		}
	}()
	return yaml.Unmarshal(data, doc)
}

// Plain reports whether n uses neither aliases nor merge keys, so that
// the value at a field path of its JSON form is exactly the JSON form of
// the node WalkValue finds there.
func Plain(n *yaml.Node, depth int) bool {
	if depth > MaxDepth {
		return false
	}
	switch n.Kind {
	case yaml.AliasNode:
		return false
	case yaml.ScalarNode:
		return n.Tag != "!!merge"
	}
	for _, c := range n.Content {
		if !Plain(c, depth+1) {
			return false
		}
	}
	return true
}

// Ref names an object by the fields of its mapping node, as the loader's
// Ref does.
type Ref struct{ APIVersion, Kind, Namespace, Name string }

// RefOf names the object of mapping node n.
func RefOf(n *yaml.Node) Ref {
	var r Ref
	r.APIVersion, _ = Scalar(n, "apiVersion")
	r.Kind, _ = Scalar(n, "kind")
	meta := Deref(ValueOf(n, "metadata"))
	r.Name, _ = Scalar(meta, "name")
	r.Namespace, _ = Scalar(meta, "namespace")
	return r
}
