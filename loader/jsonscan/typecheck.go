package jsonscan

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// Schema is what decoding a manifest into a Go type accepts, read from the
// type the way encoding/json (and so kubectl and the API server) reads it:
// members by their JSON names (case-sensitive, embedded structs' fields
// promoted), lists, maps and scalars, and types that decode themselves
// (quantities, int-or-string, times). Check walks an object's JSON against
// it and reports every value that does not fit, where encoding/json stops
// at the first. A Schema is never changed once made: build it once and
// share it.
type Schema struct {
	kind   schemaKind
	fields map[string]*Schema // object members by JSON name
	elem   *Schema            // list and map values
	bits   int                // size of an integer
	typ    reflect.Type       // a type that decodes itself
}

type schemaKind uint8

const (
	anyKind    schemaKind = iota // interface{} or a field we do not judge
	objectKind                   // a struct
	mapKind
	listKind
	bytesKind // []byte: a base64 string
	stringKind
	boolKind
	intKind
	uintKind
	floatKind
	customKind // decodes itself (json.Unmarshaler, encoding.TextUnmarshaler)
	// intOrStringKind is intstr.IntOrString, which decodes itself so often
	// (every Deployment's rolling update) that it is checked here.
	intOrStringKind
)

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// SchemaOf builds the Schema of t.
func SchemaOf(t reflect.Type) *Schema {
	return schemaOf(t, map[reflect.Type]*Schema{})
}

// SchemasOf builds the Schemas of several types at once, sharing the parts
// they have in common (the pod spec of every workload kind): made once,
// not once per type.
func SchemasOf(ts ...reflect.Type) []*Schema {
	seen := map[reflect.Type]*Schema{}
	out := make([]*Schema, len(ts))
	for i, t := range ts {
		out[i] = schemaOf(t, seen)
	}
	return out
}

func schemaOf(t reflect.Type, seen map[reflect.Type]*Schema) *Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem() // encoding/json makes the pointer and decodes into it
	}
	if s, ok := seen[t]; ok {
		return s // a recursive type
	}
	s := &Schema{}
	seen[t] = s
	if decodesItself(t) {
		s.kind, s.typ = customKind, t
		if t.PkgPath() == "k8s.io/apimachinery/pkg/util/intstr" && t.Name() == "IntOrString" {
			s.kind = intOrStringKind
		}
		return s
	}
	switch t.Kind() {
	case reflect.Struct:
		s.kind, s.fields = objectKind, structFields(t, seen)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s.kind, s.elem = mapKind, schemaOf(t.Elem(), seen)
		default:
			s.kind = anyKind
		}
		if t.Key().Kind() != reflect.String && !decodesItself(t.Key()) {
			s.kind = anyKind // integer keys: leave them to encoding/json
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !decodesItself(t.Elem()) {
			s.kind = bytesKind
			break
		}
		s.kind, s.elem = listKind, schemaOf(t.Elem(), seen)
	case reflect.String:
		s.kind = stringKind
	case reflect.Bool:
		s.kind = boolKind
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.kind, s.bits = intKind, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.kind, s.bits = uintKind, t.Bits()
	case reflect.Float32, reflect.Float64:
		s.kind = floatKind
	default: // interface{}, arrays, anything rarer
		s.kind = anyKind
	}
	return s
}

func decodesItself(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

// structFields are a struct's members by JSON name, as encoding/json's
// typeFields finds them: tagged names, fields of embedded structs promoted
// (the shallowest wins; at equal depth a tagged one, else neither).
func structFields(t reflect.Type, seen map[reflect.Type]*Schema) map[string]*Schema {
	type candidate struct {
		t      reflect.Type
		depth  int
		tagged bool
		asStr  bool
		clash  bool
	}
	found := map[string]*candidate{}
	var collect func(t reflect.Type, depth int, visited map[reflect.Type]bool)
	collect = func(t reflect.Type, depth int, visited map[reflect.Type]bool) {
		if visited[t] {
			return
		}
		visited[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			ft := f.Type
			if f.Anonymous {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if !f.IsExported() && ft.Kind() != reflect.Struct {
					continue
				}
			} else if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" && f.Anonymous && ft.Kind() == reflect.Struct {
				collect(ft, depth+1, visited)
				continue
			}
			tagged := name != ""
			if !tagged {
				name = f.Name
			}
			c := &candidate{t: f.Type, depth: depth, tagged: tagged, asStr: hasOpt(opts, "string")}
			switch old, ok := found[name]; {
			case !ok || depth < old.depth:
				found[name] = c
			case depth == old.depth && tagged && !old.tagged:
				found[name] = c
			case depth == old.depth && tagged == old.tagged:
				old.clash = true
			}
		}
	}
	collect(t, 0, map[reflect.Type]bool{})
	out := make(map[string]*Schema, len(found))
	for name, c := range found {
		switch {
		case c.clash:
			// encoding/json drops an ambiguous name: the member is ignored.
		case c.asStr:
			out[name] = &Schema{kind: anyKind} // ",string": left to encoding/json
		default:
			out[name] = schemaOf(c.t, seen)
		}
	}
	return out
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// checker walks compact JSON (as ToJSON writes it) against a Schema.
type checker struct {
	data   []byte
	prefix []Step // where data sits in the object
	skip   []Step // a subtree not to judge, or nil
	found  []*DecodeError
	// skipped is the subtree left out, found on the way.
	skipped []byte
	// The walk's place below prefix: the first steps in a fixed array, so
	// that checking an object allocates nothing; deeper ones in more.
	depth int
	near  [32]place
	more  []place
}

// place is a step of the walk: an object member, named by its key as
// written in data (quoted, made a string only for a message), or a list
// index.
type place struct {
	key   [2]int // data[key[0]:key[1]]
	index int    // -1 for a member
	inMap bool   // a map key, written [key] in a field path
}

func (c *checker) push(p place) {
	if c.depth < len(c.near) {
		c.near[c.depth] = p
	} else {
		c.more = append(c.more, p)
	}
	c.depth++
}

func (c *checker) pop() {
	c.depth--
	if c.depth >= len(c.near) {
		c.more = c.more[:c.depth-len(c.near)]
	}
}

func (c *checker) at(i int) place {
	if i < len(c.near) {
		return c.near[i]
	}
	return c.more[i-len(c.near)]
}

// FieldPath is a field path parsed once, for a caller that passes the same
// one again and again.
type FieldPath struct{ steps []Step }

// ParseFieldPath parses a field path in field.Path form.
func ParseFieldPath(p string) (FieldPath, error) {
	steps, err := ParsePath(p)
	return FieldPath{steps}, err
}

// Check reports every value of data, the compact, valid JSON (as
// ToJSON writes it) of an object or of the part of it at prefix (a field
// path, "" for the whole object), that does not fit s, each with its field
// path and what was expected. skip, a path from the object's root, names a
// subtree left out (one the caller decodes itself); the zero FieldPath
// leaves out nothing.
func Check(data []byte, s *Schema, prefix string, skip FieldPath) []*DecodeError {
	errs, _ := CheckSkipped(data, s, prefix, skip)
	return errs
}

func CheckSkipped(data []byte, s *Schema, prefix string, skip FieldPath) ([]*DecodeError, []byte) {
	c := &checker{data: data, skip: skip.steps}
	if prefix != "" {
		var err error
		if c.prefix, err = ParsePath(prefix); err != nil {
			return nil, nil
		}
	}
	if len(data) > 0 {
		c.value(s, 0)
	}
	return c.found, c.skipped
}

// value checks the value at i and returns where it ends.
func (c *checker) value(s *Schema, i int) int {
	d := c.data
	if i >= len(d) {
		return i
	}
	if d[i] == 'n' {
		return i + 4 // null fits every type: the field stays zero
	}
	switch s.kind {
	case objectKind, mapKind:
		if d[i] != '{' {
			break
		}
		i++
		for i < len(d) && d[i] == '"' {
			kend := Skip(d, i)
			if kend < i+2 || kend >= len(d) {
				return len(d) // not JSON as ToJSON writes it
			}
			vstart := kend + 1
			key := d[i+1 : kend-1]
			var f *Schema
			if s.kind == mapKind {
				f = s.elem
			} else {
				f = s.fields[string(key)]
			}
			if f == nil && s.kind == objectKind && bytesIndex(key, '\\') {
				var k string
				if json.Unmarshal(d[i:kend], &k) == nil {
					f = s.fields[k]
				}
			}
			var vend int
			if f == nil || f.kind == anyKind {
				vend = Skip(d, vstart)
			} else {
				c.push(place{key: [2]int{i, kend}, index: -1, inMap: s.kind == mapKind})
				if c.atSkip() {
					vend = Skip(d, vstart)
					c.skipped = d[vstart:vend]
				} else {
					vend = c.value(f, vstart)
				}
				c.pop()
			}
			i = vend
			if i < len(d) && d[i] == ',' {
				i++
			}
		}
		return i + 1 // past '}'
	case listKind:
		if d[i] != '[' {
			break
		}
		i++
		for n := 0; i < len(d) && d[i] != ']'; n++ {
			if s.elem.kind == anyKind {
				i = Skip(d, i)
			} else {
				c.push(place{index: n})
				i = c.value(s.elem, i)
				c.pop()
			}
			if i < len(d) && d[i] == ',' {
				i++
			}
		}
		return i + 1 // past ']'
	case stringKind, bytesKind:
		if d[i] == '"' {
			return Skip(d, i)
		}
	case boolKind:
		if d[i] == 't' || d[i] == 'f' {
			return Skip(d, i)
		}
	case intKind, uintKind:
		end := Skip(d, i)
		if isNumber(d[i]) {
			if fitsInt(d[i:end], s.kind == uintKind, s.bits) {
				return end
			}
		}
		c.mismatch(s, i, end)
		return end
	case floatKind:
		if isNumber(d[i]) {
			return Skip(d, i)
		}
	case intOrStringKind:
		// intstr.IntOrString's UnmarshalJSON: a string, or an int32.
		end := Skip(d, i)
		if d[i] == '"' || isNumber(d[i]) && fitsInt(d[i:end], false, 32) {
			return end
		}
		c.mismatch(s, i, end)
		return end
	case customKind:
		end := Skip(d, i)
		if s.typ == metaTime && plainTime(d[i:end]) {
			return end
		}
		v := reflect.New(s.typ)
		// Decoding calls the value's UnmarshalJSON with these bytes (a
		// quantity, a time), so a value it accepts is sound; one it
		// refuses is decoded as a decode would, for that error.
		if u, ok := v.Interface().(json.Unmarshaler); ok && u.UnmarshalJSON(d[i:end]) == nil {
			return end
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(d[i:end], reflect.New(s.typ).Interface()); err != nil {
			c.custom(s, i, end, err)
		}
		return end
	default:
		return Skip(d, i)
	}
	end := Skip(d, i)
	c.mismatch(s, i, end)
	return end
}

// metaTime is the type of the timestamps of every object (metav1.Time).
var metaTime = reflect.TypeFor[metav1.Time]()

// plainTime reports whether metav1.Time's UnmarshalJSON accepts b because
// b is a JSON string of printable ASCII without escapes (which decodes to
// its bytes) that parses as RFC 3339, as UnmarshalJSON parses it, without
// its reflective decode of the string; false says nothing.
func plainTime(b []byte) bool {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return false
	}
	s := b[1 : len(b)-1]
	for _, c := range s {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	_, err := time.Parse(time.RFC3339, string(s))
	return err == nil
}

// atSkip reports whether the walk is at the subtree left out.
func (c *checker) atSkip() bool {
	if len(c.skip) == 0 || len(c.prefix)+c.depth != len(c.skip) {
		return false
	}
	for i, s := range c.skip {
		if i < len(c.prefix) {
			if c.prefix[i] != s {
				return false
			}
			continue
		}
		at := c.at(i - len(c.prefix))
		if at.index != s.Index || at.index < 0 && !KeyIs(c.data[at.key[0]:at.key[1]], s.Key) {
			return false
		}
	}
	return true
}

func bytesIndex(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func unquoteKey(q []byte) string {
	if !bytesIndex(q, '\\') {
		return string(q[1 : len(q)-1])
	}
	var k string
	if json.Unmarshal(q, &k) != nil {
		return string(q[1 : len(q)-1])
	}
	return k
}

func isNumber(b byte) bool { return b == '-' || b >= '0' && b <= '9' }

// fitsInt reports whether the JSON number lit decodes into an integer of
// bits (unsigned when unsigned), as strconv.ParseInt and ParseUint take it
// in encoding/json: digits only, within range.
func fitsInt(lit []byte, unsigned bool, bits int) bool {
	neg := len(lit) > 0 && lit[0] == '-'
	digits := lit
	if neg {
		if unsigned {
			return false // ParseUint takes no sign, not even -0
		}
		digits = lit[1:]
	}
	if len(digits) == 0 || len(digits) > 20 {
		return false
	}
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return false
		}
		n = n*10 + d
	}
	switch {
	case unsigned:
		return bits == 64 || n < 1<<bits
	case neg:
		return n <= 1<<(bits-1)
	}
	return n < 1<<(bits-1)
}

// mismatch records a value of the wrong JSON type at d[i:end].
func (c *checker) mismatch(s *Schema, i, end int) {
	want := s.describe()
	var hint string
	switch {
	case s.kind == stringKind && (c.data[i] == 't' || c.data[i] == 'f'):
		hint = " (quote the value: kubectl reads yes, no, on, off, true and false unquoted as booleans)"
	case s.kind == stringKind && c.data[i] != '{' && c.data[i] != '[':
		hint = " (quote the value)"
	case (s.kind == intKind || s.kind == uintKind) && isNumber(c.data[i]) && !strings.ContainsAny(string(c.data[i:end]), ".eE"):
		want += " (" + s.bitsName() + ")"
		hint = " (out of range)"
	case c.data[i] == '"' && unquotedFits(s, c.data[i+1:end-1]):
		hint = " (remove the quotes)"
	}
	c.report("expected " + want + ", got " + describeJSON(c.data[i:end]) + hint)
}

// custom records a value a self-decoding type refused.
func (c *checker) custom(s *Schema, i, end int, err error) {
	msg := "expected " + s.describe() + ", got " + describeJSON(c.data[i:end])
	if _, typeErr := err.(*json.UnmarshalTypeError); !typeErr && s.describe() == ownFormat {
		msg += ": " + strings.TrimPrefix(err.Error(), "json: ")
	}
	c.report(msg)
}

func (c *checker) report(msg string) {
	steps := slices.Clone(c.prefix)
	inMap := make([]bool, len(steps), len(steps)+c.depth)
	for i := range c.depth {
		p := c.at(i)
		if p.index >= 0 {
			steps = append(steps, Step{Index: p.index})
		} else {
			steps = append(steps, Step{Key: unquoteKey(c.data[p.key[0]:p.key[1]]), Index: -1})
		}
		inMap = append(inMap, p.inMap)
	}
	c.found = append(c.found, &DecodeError{Path: FormatPath(steps, inMap), Msg: msg, Value: true})
}

// unquotedFits reports whether the text of a string would fit s written
// without quotes (tolerationSeconds: "10").
func unquotedFits(s *Schema, text []byte) bool {
	switch s.kind {
	case boolKind:
		return string(text) == "true" || string(text) == "false"
	case intKind, uintKind:
		return len(text) > 0 && isNumber(text[0]) && fitsInt(text, s.kind == uintKind, s.bits)
	case floatKind:
		_, err := strconv.ParseFloat(string(text), 64)
		return err == nil
	}
	return false
}

// bitsName names an integer type the way the API's OpenAPI format does.
func (s *Schema) bitsName() string {
	if s.kind == uintKind {
		return "uint" + strconv.Itoa(s.bits)
	}
	return "int" + strconv.Itoa(s.bits)
}

const ownFormat = "value of its own format"

// describe names what a value of s looks like in a manifest.
func (s *Schema) describe() string {
	switch s.kind {
	case objectKind:
		return "object"
	case mapKind:
		return "map"
	case listKind:
		return "list"
	case bytesKind:
		return "base64 string"
	case stringKind:
		return "string"
	case boolKind:
		return "boolean"
	case intKind:
		return "integer"
	case uintKind:
		return "non-negative integer"
	case floatKind:
		return "number"
	case intOrStringKind:
		return "integer or string"
	case customKind:
		switch s.typ.String() {
		case "resource.Quantity":
			return "quantity (such as 500m or 2Gi)"
		case "v1.Time", "v1.MicroTime":
			return "time (RFC 3339)"
		case "v1.Duration":
			return "duration (such as 30s)"
		}
		return ownFormat
	}
	return "value"
}

// describeJSON names a JSON value for a message: its type and, for a
// scalar, the value (shortened).
func describeJSON(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	kind := "number"
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "list"
	case '"':
		kind = "string"
	case 't', 'f':
		kind = "boolean"
	case 'n':
		return "null"
	}
	lit := string(v)
	if r := []rune(lit); len(r) > 40 {
		lit = string(r[:37]) + "…"
		if kind == "string" {
			lit += `"`
		}
	}
	return kind + " " + lit
}

// FormatPath writes steps in field.Path form: spec.volumes[0].fc.lun,
// metadata.labels[app] (map keys in brackets, as field.Path.Key writes them).
func FormatPath(steps []Step, inMap []bool) string {
	var b strings.Builder
	for i, s := range steps {
		switch {
		case s.Index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		case inMap[i] || s.Key == "" || strings.ContainsAny(s.Key, ".[]"):
			b.WriteByte('[')
			b.WriteString(s.Key)
			b.WriteByte(']')
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

// Shape is the kind of JSON value a Schema accepts, for a caller that
// walks a document's own tree against it rather than its JSON (the fast
// YAML reader's lean List items).
type Shape uint8

const (
	ShapeAny    Shape = iota // anything: a value not judged
	ShapeObject              // an object of known members (a struct)
	ShapeMap                 // an object of any keys
	ShapeList
	ShapeString
	ShapeOther // a scalar of another type, or a type that decodes itself
)

// Shape is the kind of value s accepts.
func (s *Schema) Shape() Shape {
	switch s.kind {
	case anyKind:
		return ShapeAny
	case objectKind:
		return ShapeObject
	case mapKind:
		return ShapeMap
	case listKind:
		return ShapeList
	case stringKind:
		return ShapeString
	}
	return ShapeOther
}

// Member is the Schema of the member name of an object s accepts: the
// field's for a struct (nil for a member it does not know, which is not
// judged), the values' for a map.
func (s *Schema) Member(name string) *Schema {
	if s.kind == objectKind {
		return s.fields[name]
	}
	return s.elem
}

// Elem is the Schema of the elements of a list s accepts.
func (s *Schema) Elem() *Schema { return s.elem }

// Scalars judges scalar values one at a time, as Check judges them in
// place; its buffers are reused, so one per goroutine.
type Scalars struct{ c checker }

// Fits reports whether value, the JSON of one scalar, fits s.
func (sc *Scalars) Fits(s *Schema, value []byte) bool {
	c := &sc.c
	c.data, c.found, c.depth = value, c.found[:0], 0
	c.value(s, 0)
	return len(c.found) == 0
}

// HasUnknown reports whether the JSON value data holds an object member
// that s, or a Schema below it, does not know: whether strict decoding
// (DisallowUnknownFields) into s's type would report an unknown field,
// were every value of its type. It reads the value once, member names
// only where a Schema knows its members, and allocates nothing for keys
// without escapes. A type that decodes itself is not looked into.
func (s *Schema) HasUnknown(data []byte) bool {
	_, unknown := s.unknownAt(data, 0)
	return unknown
}

// unknownAt is HasUnknown of the compact JSON value at data[i], with the
// value's end, so that each byte is read once however deep it sits.
func (s *Schema) unknownAt(data []byte, i int) (end int, unknown bool) {
	if s == nil || i >= len(data) {
		return Skip(data, i), false
	}
	switch {
	case (s.kind == objectKind || s.kind == mapKind) && data[i] == '{':
		for i++; i < len(data) && data[i] == '"'; {
			kend := skipString(data, i)
			sub := s.elem
			if s.kind == objectKind {
				var known bool
				if q := data[i:kend]; len(q) >= 2 && !bytesIndex(q, '\\') {
					sub, known = s.fields[string(q[1:len(q)-1])]
				} else {
					sub, known = s.fields[unquoteKey(q)]
				}
				if !known {
					return kend, true
				}
			}
			if i, unknown = sub.unknownAt(data, kend+1); unknown { // past ':'
				return i, true
			}
			if i < len(data) && data[i] == ',' {
				i++
			}
		}
		return i + 1, false // past '}'
	case s.kind == listKind && data[i] == '[':
		for i++; i < len(data) && data[i] != ']'; {
			if i, unknown = s.elem.unknownAt(data, i); unknown {
				return i, true
			}
			if i < len(data) && data[i] == ',' {
				i++
			}
		}
		return i + 1, false // past ']'
	}
	return Skip(data, i), false
}
