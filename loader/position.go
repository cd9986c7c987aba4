package loader

import (
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// walk follows steps from n and returns the node that marks the deepest
// existing step (the key node for a map field, the element for a list index)
// and how many steps it followed.
func walk(n *yaml.Node, steps []step) (*yaml.Node, int) {
	mark := n
	cur := n
	for depth, s := range steps {
		cur = deref(cur)
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
			key, val = lookup(cur, s.Key, 0)
			if key == nil {
				return mark, depth
			}
		}
		mark, cur = key, val
	}
	return mark, len(steps)
}

// lookup finds key in a mapping node, following YAML merge keys (<<) as
// kubectl's YAML (goyaml.v2) applies them, as mappingPairs does: the last
// entry that writes the key, an explicit key or a merge, gives its value;
// of a sequence of merged mappings, the first that holds the key.
func lookup(m *yaml.Node, key string, depth int) (k, v *yaml.Node) {
	budget := maxLookup
	return lookupIn(m, key, depth, &budget)
}

// maxLookup bounds the mappings one lookup visits: merges of merges (a
// mapping merging itself, or each level merging the one below twice)
// would otherwise take time exponential in their depth. kubectl refuses
// a mapping that merges itself; past the bound the key is not found.
const maxLookup = 4096

// lookupIn is lookup within budget mappings.
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
			mv := deref(m.Content[i+1])
			if mv == nil {
				continue
			}
			sources := []*yaml.Node{mv}
			if mv.Kind == yaml.SequenceNode {
				sources = mv.Content
			}
			for _, src := range sources {
				if src = deref(src); src != nil && src.Kind == yaml.MappingNode {
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

// deref follows aliases and document wrappers.
func deref(n *yaml.Node) *yaml.Node {
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

// scalar returns the string value of key in mapping m, and whether it is a
// string scalar.
func scalar(m *yaml.Node, key string) (string, bool) {
	if m == nil || m.Kind != yaml.MappingNode {
		return "", false
	}
	_, v := lookup(m, key, 0)
	v = deref(v)
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
		return "", false
	}
	return v.Value, true
}

// step is one element of a field path (jsonscan.Step): the loader walks
// node trees along the same paths the JSON toolkit walks JSON.
type step = jsonscan.Step
