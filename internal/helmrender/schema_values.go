package helmrender

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// vErr is a failure: where in the values, the message, and causes, laid
// out as jsonschema/v6 prints them.
type vErr struct {
	loc    []string
	msg    string
	causes []*vErr
	skip   bool // a $ref with one cause: only the cause is printed
	group  bool // "validation failed": the several failures of one schema
}

// topCauses are the failures a whole validation reports: its one
// failure, unless that is a group, whose members are reported instead.
func topCauses(errs []*vErr) []*vErr {
	if len(errs) == 1 && errs[0].group {
		return errs[0].causes
	}
	return errs
}

func (e *vErr) write(sb *strings.Builder, indent int) {
	if !e.skip {
		sb.WriteByte('\n')
		for range indent - 1 {
			sb.WriteString("  ")
		}
		sb.WriteString("- at ")
		sb.WriteString(quoteJS(jsonPtr(e.loc)))
		sb.WriteString(": ")
		sb.WriteString(e.msg)
		indent++
	}
	for _, c := range e.causes {
		c.write(sb, indent)
	}
}

func jsonPtr(toks []string) string {
	var sb strings.Builder
	for _, t := range toks {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}

// quoteJS is jsonschema/v6's single-quoted string.
func quoteJS(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}

func joinQuotedJS(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quoteJS(s)
	}
	return strings.Join(q, ", ")
}

// displayJS is how jsonschema/v6 shows a primitive value.
func displayJS(v any) string {
	switch v := v.(type) {
	case string:
		return quoteJS(v)
	case []any, map[string]any:
		return "value"
	}
	return fmt.Sprintf("%v", v)
}

// groupInt writes an integer as English messages print it (1,000).
func groupInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// groupFloat is a float as English messages print it with %v.
func groupFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(s, "eE") {
		return s // not reproduced: the printer writes 1×10²¹
	}
	ip, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ip, 10, 64)
	if err != nil {
		return s
	}
	out := groupInt(n)
	if ip == "-0" {
		out = "-0"
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// Instance types as jsonschema/v6 names them.
const (
	tNull = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
	tInvalid = 0
)

var typeNames = []struct {
	t    int
	name string
}{{tNull, "null"}, {tBoolean, "boolean"}, {tNumber, "number"}, {tInteger, "integer"}, {tString, "string"}, {tArray, "array"}, {tObject, "object"}}

func typeOfValue(v any) int {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return tInvalid
		}
		return tNumber
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return tInvalid
		}
		return tNumber
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return tInvalid
}

func typeName(t int) string {
	for _, n := range typeNames {
		if n.t == t {
			return n.name
		}
	}
	return ""
}

func typeFromName(s string) int {
	for _, n := range typeNames {
		if n.name == s {
			return n.t
		}
	}
	return 0
}

func ratOf(v any) (*big.Rat, bool) {
	return new(big.Rat).SetString(fmt.Sprint(v))
}

func isIntegerValue(v any) bool {
	r, ok := ratOf(v)
	return ok && r.IsInt()
}

// equalJS is JSON equality, numbers by value.
func equalJS(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equalJS(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalJS(a[i], b[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	}
	if typeOfValue(a) != tNumber || typeOfValue(b) != tNumber {
		return false
	}
	ra, ok1 := ratOf(a)
	rb, ok2 := ratOf(b)
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

// one makes the failures of a subschema one failure, as jsonschema/v6
// does: several become a "validation failed" group at loc.
func one(errs []*vErr, loc []string) *vErr {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return &vErr{loc: slices.Clone(loc), msg: "validation failed", causes: errs, group: true}
}

func missingProps(obj map[string]any, req []any) []string {
	var missing []string
	for _, r := range req {
		if _, ok := obj[r.(string)]; !ok {
			missing = append(missing, r.(string))
		}
	}
	return missing
}

func intKeyword(m map[string]any, k string) (int, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n.String())
	return i, err == nil
}

// intsList is a list of indexes as jsonschema/v6 prints it ("1 2 3").
func intsList(is []int) string {
	s := fmt.Sprintf("%v", is)
	return s[1 : len(s)-1]
}
