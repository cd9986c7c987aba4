package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/taintlint/taintlint/internal/textdist"
)

// checkNode walks the document against the schema type t, so that an
// unknown key or a value of the wrong kind is reported at its line and
// column, with the nearest valid key; the decoder says only the line.
func checkNode(name string, n *yaml.Node, t reflect.Type, at string) error {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	errf := func(n *yaml.Node, format string, args ...any) error {
		where := ""
		if at != "" {
			where = at + ": "
		}
		return fmt.Errorf("%s:%d:%d: %s%s", name, n.Line, n.Column, where, fmt.Sprintf(format, args...))
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return errf(n, "want a mapping of keys, got %s", describe(n))
		}
		fields := map[string]reflect.Type{}
		var keys []string
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			fields[tag] = t.Field(i).Type
			keys = append(keys, tag)
		}
		sort.Strings(keys)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" {
				continue
			}
			ft, ok := fields[k.Value]
			if !ok {
				if hint := textdist.DidYouMean(k.Value, keys); hint != "" {
					return errf(k, "unknown key %q%s", k.Value, hint)
				}
				return errf(k, "unknown key %q (known: %s)", k.Value, strings.Join(keys, ", "))
			}
			if err := checkNode(name, v, ft, join(at, k.Value)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return errf(n, "want a mapping, got %s", describe(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkNode(name, n.Content[i+1], t.Elem(), join(at, n.Content[i].Value)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return errf(n, "want a list, got %s", describe(n))
		}
		for i, item := range n.Content {
			if err := checkNode(name, item, t.Elem(), at+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return errf(n, "want a string, got %s", describe(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return errf(n, "want true or false, got %s", describe(n))
		}
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			return errf(n, "want a whole number, got %s", describe(n))
		}
	}
	return nil
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// Where is the file:line:column of a setting, found by keys (strings for
// mapping keys, ints for list indexes); the last key of a mapping gives the
// key's place. It is the file's name alone when the setting is not in the
// file (or the file was not parsed from YAML).
func (f *File) Where(keys ...any) string {
	k, _ := f.lookup(keys)
	return f.at(k)
}

// WhereValue is Where for the setting's value rather than its key.
func (f *File) WhereValue(keys ...any) string {
	_, v := f.lookup(keys)
	return f.at(v)
}

func (f *File) at(n *yaml.Node) string {
	if n == nil {
		return f.Path
	}
	return fmt.Sprintf("%s:%d:%d", f.Path, n.Line, n.Column)
}

// lookup finds the key and value nodes of a setting (the same node for a
// list item), or nils.
func (f *File) lookup(keys []any) (key, value *yaml.Node) {
	n := f.root
	for _, k := range keys {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil {
			return nil, nil
		}
		key, value = nil, nil
		switch k := k.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						key, value = n.Content[i], n.Content[i+1]
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k >= 0 && k < len(n.Content) {
				key, value = n.Content[k], n.Content[k]
			}
		}
		if value == nil {
			return nil, nil
		}
		n = value
	}
	return key, value
}
