package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
	kjson "sigs.k8s.io/json"
)

// Decode converts the node at path (empty for the whole object) into v, the
// way kubectl and the API server read a manifest: YAML to JSON with YAML 1.1
// booleans (yes, no, on, off), then case-sensitive JSON decoding into the
// Kubernetes type. Values of the wrong type make a DecodeErrors naming
// every such field; v then holds the rest, decoded as far as it goes.
func (o *Object) Decode(path string, v any) error {
	var steps []step
	if path != "" {
		var err error
		if steps, err = jsonscan.ParsePath(path); err != nil {
			return err
		}
	}
	all, _ := o.form()
	if all == nil {
		return decodeNode(o.Tree(), path, steps, v)
	}
	data := all
	if len(steps) > 0 {
		var ok bool
		if data, ok = jsonscan.At(all, steps); !ok {
			return nil // absent: leave v zero
		}
	}
	return o.DecodeJSON(data, path, v, nil)
}

// DecodeJSON is Decode of data, the object's JSON at path as Check or
// JSONAt gave it, for a caller that has it already: the walk to it is
// saved. s is the Schema of v's type, which finds every value of the
// wrong type once decoding failed; nil builds it then, which costs about
// a millisecond for a pod spec: a caller decoding many objects passes one.
func (o *Object) DecodeJSON(data []byte, path string, v any, s *jsonscan.Schema) error {
	err := kjson.UnmarshalCaseSensitivePreserveInts(data, v)
	if err == nil {
		return nil
	}
	if errs := allTypeErrors(data, path, v, s); errs != nil {
		return errs
	}
	// Rare: the tree names the field, list indexes included.
	n := o.Tree()
	if steps, perr := jsonscan.ParsePath(path); perr == nil && len(steps) > 0 {
		n, _ = yamltree.WalkValue(n, steps)
	}
	return decodeError(n, path, err)
}

// allTypeErrors finds every value of data, the JSON at path, that does not
// fit v's type, s (built for the occasion when nil), once decoding it
// failed.
func allTypeErrors(data []byte, path string, v any, s *jsonscan.Schema) error {
	if s == nil {
		t := reflect.TypeOf(v)
		if t == nil || t.Kind() != reflect.Pointer {
			return nil
		}
		s = jsonscan.SchemaOf(t.Elem())
	}
	if errs := jsonscan.Check(data, s, path, jsonscan.FieldPath{}); len(errs) > 0 {
		return jsonscan.DecodeErrors(errs)
	}
	return nil
}

// JSONAt is the part of the object's JSON (see JSON) at a path of object
// keys (string) and list indexes (int), for callers that compare parts of
// objects without decoding them: equal bytes are equal values. found is
// false when the path leads nowhere; ok is false when the object keeps no
// JSON (its document has aliases or merge keys) or path holds another type.
func (o *Object) JSONAt(path ...any) (val []byte, found, ok bool) {
	all, _ := o.form()
	if all == nil {
		return nil, false, false
	}
	return jsonscan.Walk(all, path...)
}

// decodeNode is Decode on a node tree.
func decodeNode(root *yaml.Node, path string, steps []step, v any) error {
	n := root
	if len(steps) > 0 {
		var depth int
		n, depth = yamltree.WalkValue(root, steps)
		if depth < len(steps) {
			return nil // absent: leave v zero
		}
	}
	data, err := ToJSON(n)
	if err != nil {
		return &jsonscan.DecodeError{Path: path, Msg: err.Error()}
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, v); err != nil {
		if errs := allTypeErrors(data, path, v, nil); errs != nil {
			return errs
		}
		return decodeError(n, path, err)
	}
	return nil
}

// typeErrorPath finds, below n, the field a JSON type error names. The
// error's Field drops list indexes (tolerations.value); the YAML tree
// restores them (tolerations[1].value) by finding the first value of the
// offending JSON kind along that field path.
func typeErrorPath(n *yaml.Node, rest, kind string) (string, bool) {
	n = yamltree.Deref(n)
	if n == nil {
		return "", false
	}
	if rest == "" {
		return "", jsonKind(n) == kind
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p, ok := typeErrorPath(c, rest, kind); ok {
				return "[" + strconv.Itoa(i) + "]" + dotted(p), true
			}
		}
	case yaml.MappingNode:
		// encoding/json names the Go fields of embedded structs in the
		// path (spec.volumes.VolumeSource.fc.lun); a manifest has no such
		// key, and the field's members are the mapping's own.
		if seg, tail, _ := strings.Cut(rest, "."); seg != "" && seg[0] >= 'A' && seg[0] <= 'Z' && tail != "" {
			if k, _ := yamltree.Lookup(n, seg, 0); k == nil {
				return typeErrorPath(n, tail, kind)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if rest != k && !strings.HasPrefix(rest, k+".") {
				continue
			}
			if p, ok := typeErrorPath(n.Content[i+1], strings.TrimPrefix(strings.TrimPrefix(rest, k), "."), kind); ok {
				seg := k
				if strings.ContainsAny(k, "./[]") {
					seg = "[" + k + "]"
				}
				return seg + dotted(p), true
			}
		}
	}
	return "", false
}

// dotted prefixes a non-empty, non-index path tail with a dot.
func dotted(p string) string {
	if p == "" || p[0] == '[' {
		return p
	}
	return "." + p
}

// jsonKind names a node's JSON type the way encoding/json's
// UnmarshalTypeError.Value does.
func jsonKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "array"
	case yaml.MappingNode:
		return "object"
	case yaml.ScalarNode:
		var b bytes.Buffer
		yamltree.WriteScalar(&b, n)
		switch c := b.Bytes(); {
		case len(c) > 0 && c[0] == '"':
			return "string"
		case bytes.Equal(c, []byte("true")), bytes.Equal(c, []byte("false")):
			return "bool"
		case bytes.Equal(c, []byte("null")):
			return "null"
		default:
			return "number"
		}
	}
	return ""
}

// decodeError turns a JSON decoding error into a DecodeError whose path
// names the field in field.Path form.
func decodeError(n *yaml.Node, prefix string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		p := te.Field
		if q, ok := typeErrorPath(n, te.Field, te.Value); ok {
			p = strings.TrimPrefix(q, ".")
		}
		switch {
		case prefix != "" && p != "" && p[0] == '[':
			p = prefix + p
		case prefix != "" && p != "":
			p = prefix + "." + p
		case prefix != "":
			p = prefix
		}
		want := te.Type.String()
		if i := strings.LastIndexByte(want, '.'); i >= 0 && !strings.HasPrefix(want, "[]") && !strings.HasPrefix(want, "map[") {
			want = want[i+1:]
		}
		return &jsonscan.DecodeError{Path: p, Msg: fmt.Sprintf("expected %s, got %s", describeType(want), te.Value), Value: true}
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return &jsonscan.DecodeError{Path: prefix, Msg: msg}
}

func describeType(t string) string {
	switch {
	case t == "string":
		return "string"
	case strings.HasPrefix(t, "[]"):
		return "list"
	case strings.HasPrefix(t, "map["):
		return "map"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "integer"
	case t == "bool":
		return "boolean"
	case t == "Quantity":
		return "quantity"
	}
	return "object" // a struct: never its Go type name
}

// ToJSON converts a YAML node to JSON as sigs.k8s.io/yaml does for kubectl:
// plain scalars resolve with YAML 1.1 booleans, aliases and merge keys are
// expanded (within yamltree.MaxAliasExpansion), map keys become strings.
func ToJSON(n *yaml.Node) ([]byte, error) {
	return yamltree.JSON(n, 0, nil)
}

// Check is jsonscan.Check on the object's JSON. It also returns the JSON of the
// subtree left out (nil when the object has none there), for the caller
// that decodes it (DecodeJSON): found once for both.
func (o *Object) Check(s *jsonscan.Schema, skip jsonscan.FieldPath) (errs []*jsonscan.DecodeError, skipped []byte) {
	data, err := o.JSON()
	if err != nil {
		return nil, nil // reported by the loader: no JSON form
	}
	return jsonscan.CheckSkipped(data, s, "", skip)
}
