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

	yaml "go.yaml.in/yaml/v3"
	kjson "sigs.k8s.io/json"
)

// MaxAliasExpansion bounds how many nodes alias expansion may produce while
// converting one object to JSON, so a "billion laughs" document costs
// bounded time and memory.
const MaxAliasExpansion = 1_000_000

// DecodeError is a field of an object whose value does not fit the
// Kubernetes type, named the way field.Path names it.
type DecodeError struct {
	Path string // field path, e.g. spec.template.spec.tolerations[0].value
	Msg  string
	// Value: the value at Path is of the wrong type, so a person looks at
	// the value (LocateValue), not its key.
	Value bool
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// DecodeErrors are all the fields of an object (or of the part decoded)
// whose values do not fit their types, in the order of the manifest.
// encoding/json reports only the first; kubectl users fix them all at once.
type DecodeErrors []*DecodeError

func (e DecodeErrors) Error() string {
	var b strings.Builder
	for i, d := range e {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.Error())
	}
	return b.String()
}

// Unwrap gives each error, so errors.As finds the first *DecodeError.
func (e DecodeErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, d := range e {
		out[i] = d
	}
	return out
}

// Decode converts the node at path (empty for the whole object) into v, the
// way kubectl and the API server read a manifest: YAML to JSON with YAML 1.1
// booleans (yes, no, on, off), then case-sensitive JSON decoding into the
// Kubernetes type. Values of the wrong type make a DecodeErrors naming
// every such field; v then holds the rest, decoded as far as it goes.
func (o *Object) Decode(path string, v any) error {
	var steps []step
	if path != "" {
		var err error
		if steps, err = parsePath(path); err != nil {
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
		if data, ok = jsonAt(all, steps); !ok {
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
func (o *Object) DecodeJSON(data []byte, path string, v any, s *Schema) error {
	err := kjson.UnmarshalCaseSensitivePreserveInts(data, v)
	if err == nil {
		return nil
	}
	if errs := allTypeErrors(data, path, v, s); errs != nil {
		return errs
	}
	// Rare: the tree names the field, list indexes included.
	n := o.Tree()
	if steps, perr := parsePath(path); perr == nil && len(steps) > 0 {
		n, _ = walkValue(n, steps)
	}
	return decodeError(n, path, err)
}

// allTypeErrors finds every value of data, the JSON at path, that does not
// fit v's type, s (built for the occasion when nil), once decoding it
// failed.
func allTypeErrors(data []byte, path string, v any, s *Schema) error {
	if s == nil {
		t := reflect.TypeOf(v)
		if t == nil || t.Kind() != reflect.Pointer {
			return nil
		}
		s = SchemaOf(t.Elem())
	}
	if errs := CheckJSON(data, s, path, FieldPath{}); len(errs) > 0 {
		return DecodeErrors(errs)
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
	return WalkJSON(all, path...)
}

// WalkJSON is JSONAt on a part of an object's JSON that JSONAt returned.
func WalkJSON(data []byte, path ...any) (val []byte, found, ok bool) {
	val = data
	for i, p := range path {
		var s step
		switch p := p.(type) {
		case string:
			s = step{key: p, index: -1}
		case int:
			if p < 0 {
				return nil, false, true
			}
			s = step{index: p}
		default:
			return nil, false, false
		}
		if val, found = jsonStep(val, s, i < len(path)-1); !found {
			return nil, false, true
		}
	}
	return val, true, true
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
		return &DecodeError{Path: path, Msg: err.Error()}
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, v); err != nil {
		if errs := allTypeErrors(data, path, v, nil); errs != nil {
			return errs
		}
		return decodeError(n, path, err)
	}
	return nil
}

// jsonAt returns the value at steps in JSON that ToJSON wrote (compact,
// valid), the way walkValue finds the node: a key in an object, an index
// in an array. ok is false when the path leads nowhere.
func jsonAt(data []byte, steps []step) (val []byte, ok bool) {
	for i, s := range steps {
		if data, ok = jsonStep(data, s, i < len(steps)-1); !ok {
			return nil, false
		}
	}
	return data, true
}

// jsonStep is one step of jsonAt. When open, the value found is returned
// with what follows it in data, unscanned: a step on the way to another
// needs only where its value starts, and scanning to its end would make a
// walk read the object again at each level.
func jsonStep(data []byte, s step, open bool) ([]byte, bool) {
	if len(data) == 0 {
		return nil, false
	}
	if s.index >= 0 {
		if data[0] != '[' {
			return nil, false
		}
		for i, n := 1, 0; i < len(data) && data[i] != ']'; n++ {
			if n == s.index && open {
				return data[i:], true
			}
			end := skipJSON(data, i)
			if n == s.index {
				return data[i:end], true
			}
			i = end
			if i < len(data) && data[i] == ',' {
				i++
			}
		}
		return nil, false
	}
	if data[0] != '{' {
		return nil, false
	}
	for i := 1; i < len(data) && data[i] == '"'; {
		kend := skipJSON(data, i)
		vstart := kend + 1 // past ':'
		if open && jsonKeyIs(data[i:kend], s.key) {
			return data[vstart:], true
		}
		vend := skipJSON(data, vstart)
		if jsonKeyIs(data[i:kend], s.key) {
			return data[vstart:vend], true
		}
		i = vend
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return nil, false
}

// JSONField is one member of a JSON object: its key as written (quoted)
// and its value.
type JSONField struct{ Key, Value []byte }

// Is reports whether the member's key is name.
func (f JSONField) Is(name string) bool { return jsonKeyIs(f.Key, name) }

// JSONFields appends to into the members of the JSON object data (a value
// JSONAt or WalkJSON returned), for a caller that looks up many members of
// one object: one pass over it instead of one per member. It appends
// nothing when data is not an object.
func JSONFields(data []byte, into []JSONField) []JSONField {
	if len(data) == 0 || data[0] != '{' {
		return into
	}
	for i := 1; i < len(data) && data[i] == '"'; {
		kend := skipJSON(data, i)
		vstart := kend + 1 // past ':'
		vend := skipJSON(data, vstart)
		into = append(into, JSONField{Key: data[i:kend], Value: data[vstart:vend]})
		i = vend
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return into
}

// JSONElems appends to into the elements of the JSON array data (a value
// JSONAt, WalkJSON or JSONFields returned): one pass over it instead of one
// WalkJSON per index. It appends nothing when data is not an array.
func JSONElems(data []byte, into [][]byte) [][]byte {
	if len(data) == 0 || data[0] != '[' {
		return into
	}
	for i := 1; i < len(data) && data[i] != ']'; {
		end := skipJSON(data, i)
		into = append(into, data[i:end])
		i = end
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return into
}

// jsonKeyIs reports whether the quoted JSON string q is key.
func jsonKeyIs(q []byte, key string) bool {
	if bytes.IndexByte(q, '\\') < 0 {
		return len(q) == len(key)+2 && string(q[1:len(q)-1]) == key
	}
	var k string
	return json.Unmarshal(q, &k) == nil && k == key
}

// skipJSON returns the end of the JSON value that starts at i.
func skipJSON(data []byte, i int) int {
	end, _ := skipValue(data, i)
	return end
}

// skipValue returns the end of the compact JSON value that starts at i
// and how many entries and elements it holds, its own and those of the
// values in it (the marks it passes). Each comma outside strings separates
// two of them, and each non-empty object or array has one more than it
// has commas.
func skipValue(data []byte, i int) (end, n int) {
	if i >= len(data) {
		return len(data), 0
	}
	switch data[i] {
	case '"':
		return skipString(data, i), 0
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case ',':
				n++
			case '{', '[':
				depth++
				if i+1 < len(data) && data[i+1] != '}' && data[i+1] != ']' {
					n++
				}
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, n
				}
			}
		}
		return len(data), n
	}
	for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' {
		i++
	}
	return i, 0
}

// skipString returns the end of the JSON string starting at data[i] (a
// quote): strings are most of a manifest's bytes, so the closing quote is
// found with bytes.IndexByte and checked for the backslashes before it.
func skipString(data []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return len(data)
		}
		j += k
		b := 0
		for p := j - 1; p > i && data[p] == '\\'; p-- {
			b++
		}
		if b%2 == 0 {
			return j + 1
		}
		j++
	}
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
		if s.index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.index >= len(cur.Content) {
				return nil, depth
			}
			cur = cur.Content[s.index]
			continue
		}
		if cur.Kind != yaml.MappingNode {
			return nil, depth
		}
		_, v := lookup(cur, s.key, 0)
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
		return &DecodeError{Path: p, Msg: fmt.Sprintf("expected %s, got %s", describeType(want), te.Value), Value: true}
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return &DecodeError{Path: prefix, Msg: msg}
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
// expanded (within MaxAliasExpansion), map keys become strings.
func ToJSON(n *yaml.Node) ([]byte, error) {
	return toJSON(n, 0, nil)
}

// toJSON is ToJSON followed by tail, into a buffer of about sizeHint
// bytes; the result is trimmed to its length when the buffer grew well
// past it, since the loader keeps it for the whole run.
func toJSON(n *yaml.Node, sizeHint int, tail []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(sizeHint)
	budget := MaxAliasExpansion
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
		return fmt.Errorf("alias expansion exceeds %d nodes", MaxAliasExpansion)
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

// mappingPairs lists a mapping's entries with merge keys applied: explicit
// keys win over merged ones, and the last duplicate wins, as in yaml.v2.
func mappingPairs(n *yaml.Node, budget *int, depth int) ([]pair, error) {
	if depth > 64 {
		return nil, fmt.Errorf("merge keys nested deeper than 64 levels")
	}
	var merged, own []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			src := deref(v)
			if src == nil {
				continue
			}
			srcs := []*yaml.Node{src}
			if src.Kind == yaml.SequenceNode {
				srcs = src.Content
			}
			for _, s := range srcs {
				s = deref(s)
				if s == nil || s.Kind != yaml.MappingNode {
					return nil, fmt.Errorf("line %d: merge key << needs a mapping", k.Line)
				}
				*budget -= len(s.Content)
				if *budget < 0 {
					return nil, fmt.Errorf("alias expansion exceeds %d nodes", MaxAliasExpansion)
				}
				ps, err := mappingPairs(s, budget, depth+1)
				if err != nil {
					return nil, err
				}
				merged = append(merged, ps...)
			}
			continue
		}
		key := k.Value
		if kk := deref(k); kk != nil && kk.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a map key must be a scalar", k.Line)
		} else if kk != nil {
			key = kk.Value
		}
		own = append(own, pair{key, v})
	}
	if len(merged) == 0 && !hasDup(own) {
		return own, nil
	}
	seen := make(map[string]int, len(own)+len(merged))
	var out []pair
	add := func(p pair, override bool) {
		if i, ok := seen[p.key]; ok {
			if override {
				out[i] = p
			}
			return
		}
		seen[p.key] = len(out)
		out = append(out, p)
	}
	for _, p := range own {
		add(p, true)
	}
	for _, p := range merged {
		add(p, false)
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
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
			return
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
