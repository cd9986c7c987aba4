package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
	kjson "sigs.k8s.io/json"
)

// maxAliasExpansion bounds how many nodes alias expansion may produce while
// converting one object to JSON, so a "billion laughs" document costs
// bounded time and memory.
const maxAliasExpansion = 1_000_000

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
		n, _ = walkValue(n, steps)
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
		n, depth = walkValue(root, steps)
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
	n = deref(n)
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
			if k, _ := lookup(n, seg, 0); k == nil {
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
		writeScalar(&b, n)
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

// walkValue is walk returning the value node rather than the key node.
func walkValue(n *yaml.Node, steps []step) (*yaml.Node, int) {
	cur := n
	for depth, s := range steps {
		cur = deref(cur)
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
		_, v := lookup(cur, s.Key, 0)
		if v == nil {
			return nil, depth
		}
		cur = v
	}
	return cur, len(steps)
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
// expanded (within maxAliasExpansion), map keys become strings.
func ToJSON(n *yaml.Node) ([]byte, error) {
	return toJSON(n, 0, nil)
}

// toJSON is ToJSON followed by tail, into a buffer of about sizeHint
// bytes; the result is trimmed to its length when the buffer grew well
// past it, since the loader keeps it for the whole run.
func toJSON(n *yaml.Node, sizeHint int, tail []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(sizeHint)
	budget := maxAliasExpansion
	if err := writeJSON(&b, n, &budget, 0); err != nil {
		return nil, err
	}
	b.Write(tail)
	out := b.Bytes()
	if cap(out)-len(out) > len(out)/8 {
		out = bytes.Clone(out)
	}
	return out, nil
}

const maxDepth = 1000

func writeJSON(b *bytes.Buffer, n *yaml.Node, budget *int, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nesting deeper than %d levels", maxDepth)
	}
	*budget--
	if *budget < 0 {
		return fmt.Errorf("alias expansion exceeds %d nodes", maxAliasExpansion)
	}
	if n == nil {
		b.WriteString("null")
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeJSON(b, n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		return writeJSON(b, n.Alias, budget, depth+1)
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c, budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.MappingNode:
		pairs, err := mappingPairs(n, budget, 0)
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, p := range pairs {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, p.key)
			b.WriteByte(':')
			if err := writeJSON(b, p.val, budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		if n.Style == 0 && infOrNaN([]byte(n.Value)) {
			// As kubectl: JSON has no infinity or NaN (kubectl.go).
			return fmt.Errorf("json: unsupported value: %s", n.Value)
		}
		writeScalar(b, n)
		return nil
	}
	b.WriteString("null")
	return nil
}

type pair struct {
	key string
	val *yaml.Node
}

// mappingPairs lists a mapping's entries with merge keys applied as
// kubectl's YAML (sigs.k8s.io/yaml, goyaml.v2) applies them: in order,
// each entry, an explicit key or the keys a merge brings, overrides the
// same key before it, so a merge written after an explicit key wins over
// it (YAML 1.2 and yaml.v3 let explicit keys win wherever they stand); of
// a sequence of merged mappings, the earlier win. The last duplicate wins.
func mappingPairs(n *yaml.Node, budget *int, depth int) ([]pair, error) {
	if depth > 64 {
		return nil, fmt.Errorf("merge keys nested deeper than 64 levels")
	}
	// writes are the entries in the order goyaml.v2 writes them into the
	// map; the last write of a key is its value.
	var writes []pair
	merged := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			src := deref(v)
			if src == nil {
				continue
			}
			merged = true
			srcs := []*yaml.Node{src}
			if src.Kind == yaml.SequenceNode {
				srcs = src.Content
			}
			// goyaml.v2 merges a sequence's mappings from the last, so
			// that the earlier override the later.
			for j := len(srcs) - 1; j >= 0; j-- {
				s := deref(srcs[j])
				if s == nil || s.Kind != yaml.MappingNode {
					return nil, fmt.Errorf("line %d: merge key << needs a mapping", k.Line)
				}
				*budget -= len(s.Content)
				if *budget < 0 {
					return nil, fmt.Errorf("alias expansion exceeds %d nodes", maxAliasExpansion)
				}
				ps, err := mappingPairs(s, budget, depth+1)
				if err != nil {
					return nil, err
				}
				writes = append(writes, ps...)
			}
			continue
		}
		key := k.Value
		if kk := deref(k); kk != nil && kk.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a map key must be a scalar", k.Line)
		} else if kk != nil {
			key = kk.Value
		}
		writes = append(writes, pair{key, v})
	}
	if !merged && !hasDup(writes) {
		return writes, nil
	}
	// One entry per key, where the key first stands, with its last value.
	seen := make(map[string]int, len(writes))
	out := writes[:0:0]
	for _, p := range writes {
		if i, ok := seen[p.key]; ok {
			out[i] = p
			continue
		}
		seen[p.key] = len(out)
		out = append(out, p)
	}
	return out, nil
}

func hasDup(ps []pair) bool {
	if len(ps) < 2 {
		return false
	}
	if len(ps) < 16 {
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				if ps[i].key == ps[j].key {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(ps))
	for _, p := range ps {
		if _, ok := seen[p.key]; ok {
			return true
		}
		seen[p.key] = struct{}{}
	}
	return false
}

// yaml11Bool are the plain scalars YAML 1.1 (and so kubectl) reads as booleans.
var yaml11Bool = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"on": true, "On": true, "ON": true, "true": true, "True": true, "TRUE": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"off": false, "Off": false, "OFF": false, "false": false, "False": false, "FALSE": false,
}

func writeScalar(b *bytes.Buffer, n *yaml.Node) {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		writeString(b, n.Value)
		return
	}
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			b.WriteString(strconv.FormatInt(i, 10))
			return
		}
		if u, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			b.WriteString(strconv.FormatUint(u, 10))
			return
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			// As encoding/json writes it for kubectl: 0080000000 is
			// 80000000, an integer to the JSON decoder, not 8e+07.
			if j, err := json.Marshal(f); err == nil {
				b.Write(j)
				return
			}
		}
	case "!!bool":
		if v, ok := yaml11Bool[n.Value]; ok {
			b.WriteString(strconv.FormatBool(v))
			return
		}
	case "!!str":
		// yaml.v3 reads yes/no/on/off as strings (YAML 1.2); kubectl's
		// YAML 1.1 reads them as booleans, and so must we.
		if n.Style == 0 {
			if v, ok := yaml11Bool[n.Value]; ok {
				b.WriteString(strconv.FormatBool(v))
				return
			}
		}
	}
	writeString(b, n.Value)
}

func writeString(b *bytes.Buffer, s string) {
	if plainJSON(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc, err := json.Marshal(s)
	if err != nil { // invalid UTF-8 is replaced by json.Marshal, never an error
		enc = []byte(strconv.Quote(s))
	}
	b.Write(enc)
}

// writeStringBytes is writeString of s's bytes, without a copy for the
// usual string that needs no escaping.
func writeStringBytes(b *bytes.Buffer, s []byte) {
	if plainJSON(s) {
		b.WriteByte('"')
		b.Write(s)
		b.WriteByte('"')
		return
	}
	writeString(b, string(s))
}

// plainJSON reports whether s is written in JSON as it is, between
// quotes: json.Marshal escapes control characters, quotes, backslashes,
// <, > and &, and replaces invalid UTF-8.
func plainJSON[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
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
