package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Step is one element of a field path: a map key or a list index.
type Step struct {
	Key   string
	Index int // -1 for a key
}

// ParsePath splits an apimachinery field.Path string. Bracketed parts are
// read first, because map keys (label keys, annotation names) hold dots.
func ParsePath(p string) ([]Step, error) {
	return AppendPath(nil, p)
}

// AppendPath is ParsePath appending to steps.
func AppendPath(steps []Step, p string) ([]Step, error) {
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return steps, fmt.Errorf("unclosed [ in field path %q", p)
			}
			inner := p[i+1 : i+end]
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 && inner == strconv.Itoa(n) {
				steps = append(steps, Step{Index: n})
			} else {
				steps = append(steps, Step{Key: inner, Index: -1})
			}
			i += end + 1
		default:
			end := strings.IndexAny(p[i:], ".[")
			if end < 0 {
				end = len(p) - i
			}
			steps = append(steps, Step{Key: p[i : i+end], Index: -1})
			i += end
		}
	}
	return steps, nil
}

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

// Walk is JSONAt on a part of an object's JSON that JSONAt returned.
func Walk(data []byte, path ...any) (val []byte, found, ok bool) {
	val = data
	for i, p := range path {
		var s Step
		switch p := p.(type) {
		case string:
			s = Step{Key: p, Index: -1}
		case int:
			if p < 0 {
				return nil, false, true
			}
			s = Step{Index: p}
		default:
			return nil, false, false
		}
		if val, found = jsonStep(val, s, i < len(path)-1); !found {
			return nil, false, true
		}
	}
	return val, true, true
}

// At returns the value at steps in JSON that ToJSON wrote (compact,
// valid), the way walkValue finds the node: a key in an object, an index
// in an array. ok is false when the path leads nowhere.
func At(data []byte, steps []Step) (val []byte, ok bool) {
	for i, s := range steps {
		if data, ok = jsonStep(data, s, i < len(steps)-1); !ok {
			return nil, false
		}
	}
	return data, true
}

// jsonStep is one step of At. When open, the value found is returned
// with what follows it in data, unscanned: a step on the way to another
// needs only where its value starts, and scanning to its end would make a
// walk read the object again at each level.
func jsonStep(data []byte, s Step, open bool) ([]byte, bool) {
	if len(data) == 0 {
		return nil, false
	}
	if s.Index >= 0 {
		if data[0] != '[' {
			return nil, false
		}
		for i, n := 1, 0; i < len(data) && data[i] != ']'; n++ {
			if n == s.Index && open {
				return data[i:], true
			}
			end := Skip(data, i)
			if n == s.Index {
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
		kend := Skip(data, i)
		vstart := kend + 1 // past ':'
		if open && KeyIs(data[i:kend], s.Key) {
			return data[vstart:], true
		}
		vend := Skip(data, vstart)
		if KeyIs(data[i:kend], s.Key) {
			return data[vstart:vend], true
		}
		i = vend
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return nil, false
}

// Field is one member of a JSON object: its key as written (quoted)
// and its value.
type Field struct{ Key, Value []byte }

// Is reports whether the member's key is name.
func (f Field) Is(name string) bool { return KeyIs(f.Key, name) }

// Name is the member's key, unquoted.
func (f Field) Name() string { return unquoteKey(f.Key) }

// Fields appends to into the members of the JSON object data (a value
// JSONAt or Walk returned), for a caller that looks up many members of
// one object: one pass over it instead of one per member. It appends
// nothing when data is not an object.
func Fields(data []byte, into []Field) []Field {
	if len(data) == 0 || data[0] != '{' {
		return into
	}
	for i := 1; i < len(data) && data[i] == '"'; {
		kend := Skip(data, i)
		vstart := kend + 1 // past ':'
		vend := Skip(data, vstart)
		into = append(into, Field{Key: data[i:kend], Value: data[vstart:vend]})
		i = vend
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return into
}

// Elems appends to into the elements of the JSON array data (a value
// JSONAt, Walk or Fields returned): one pass over it instead of one
// Walk per index. It appends nothing when data is not an array.
func Elems(data []byte, into [][]byte) [][]byte {
	if len(data) == 0 || data[0] != '[' {
		return into
	}
	for i := 1; i < len(data) && data[i] != ']'; {
		end := Skip(data, i)
		into = append(into, data[i:end])
		i = end
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return into
}

// KeyIs reports whether the quoted JSON string q is key.
func KeyIs(q []byte, key string) bool {
	if bytes.IndexByte(q, '\\') < 0 {
		return len(q) == len(key)+2 && string(q[1:len(q)-1]) == key
	}
	var k string
	return json.Unmarshal(q, &k) == nil && k == key
}

// Skip returns the end of the JSON value that starts at i.
func Skip(data []byte, i int) int {
	end, _ := SkipCounting(data, i)
	return end
}

// SkipCounting returns the end of the compact JSON value that starts at i
// and how many entries and elements it holds, its own and those of the
// values in it (the marks it passes). Each comma outside strings separates
// two of them, and each non-empty object or array has one more than it
// has commas.
func SkipCounting(data []byte, i int) (end, n int) {
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
