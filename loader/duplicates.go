package loader

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// dropDuplicateKeys removes the earlier entries of keys given twice.
func dropDuplicateKeys(n *yaml.Node) {
	for i := 0; i < 1000; i++ {
		if dup, err := duplicateKey(n, 0); dup == nil || err != nil {
			return
		}
	}
}

// duplicate is a mapping key given twice.
type duplicate struct {
	first, again *yaml.Node
	path         []step // from the key to the object's root, while found
}

// message says where the key was given first (line shifted by lines)
// and names the field the way field paths do: in the words of yaml.v3
// for YAML, and of kubectl's strict JSON decoding for a .json file.
func (d *duplicate) message(file string, lines int) string {
	path := slices.Clone(d.path)
	slices.Reverse(path)
	field := jsonscan.FormatPath(path, make([]bool, len(path)))
	const why = "kubectl rejects the duplicate; the last value is checked"
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return fmt.Sprintf("duplicate field %q (also at line %d; %s)", field, lines+d.first.Line, why)
	}
	return fmt.Sprintf("invalid YAML: mapping key %q already defined at line %d (field %s; %s)", d.again.Value, lines+d.first.Line, field, why)
}

// duplicateKey finds a mapping key given twice, which kubectl's strict
// decoding rejects (yaml: "mapping key already defined", json: "duplicate
// field"), and removes the earlier entry from the tree, which so keeps the
// last value as non-strict decoding does. It returns nil when no key is
// given twice, and an error when the tree nests too deep to look.
func duplicateKey(n *yaml.Node, depth int) (*duplicate, error) {
	if depth > yamltree.MaxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", yamltree.MaxDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) > 2 {
			seen := make(map[string]bool, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
					continue
				}
				id := keyID(k)
				if seen[id] {
					// Drop the earlier entry: the next call finds the
					// next duplicate, and the tree keeps the last value.
					for j := 0; j < i; j += 2 {
						if e := n.Content[j]; e.Kind == yaml.ScalarNode && e.Tag != "!!merge" && keyID(e) == id {
							n.Content = append(n.Content[:j:j], n.Content[j+2:]...)
							return &duplicate{first: e, again: k, path: []step{{Key: k.Value, Index: -1}}}, nil
						}
					}
				}
				seen[id] = true
			}
		}
		for i := 1; i < len(n.Content); i += 2 {
			dup, err := duplicateKey(n.Content[i], depth+1)
			if dup != nil {
				dup.path = append(dup.path, step{Key: n.Content[i-1].Value, Index: -1})
			}
			if dup != nil || err != nil {
				return dup, err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			dup, err := duplicateKey(c, depth+1)
			if dup != nil {
				dup.path = append(dup.path, step{Index: i})
			}
			if dup != nil || err != nil {
				return dup, err
			}
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if dup, err := duplicateKey(c, depth+1); dup != nil || err != nil {
				return dup, err
			}
		}
	}
	return nil, nil
}

// keyID is what makes two mapping keys one to kubectl: their text, and
// whether goyaml.v2 reads them as strings. yes and "yes" are one key to
// yaml.v3 but two to kubectl (true and "yes"), so neither is a duplicate.
func keyID(k *yaml.Node) string {
	if k.Style == 0 && !yamltree.PlainIsString(k.Value) {
		return "\x00" + k.Value // not a string to kubectl
	}
	return k.Value
}
