package helmrender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"helm.sh/helm/v3/pkg/chart"
)

// values.schema.json validation, as Helm v3.22 does it
// (chartutil.ValidateAgainstSchema): the chart's schema checks the chart's
// values, each subchart's schema its own table, and the failures are
// reported in the shape of santhosh-tekuri/jsonschema/v6's messages, the
// validator Helm uses (at file:///values.schema.json, default draft
// 2020-12, format asserted only for drafts before 2019-09).
//
// Why our own validator: jsonschema/v6 compiles its meta-schemas in its
// package initialisation, which every start of taintlint paid. This one
// costs nothing until a chart has a schema. It interprets the keywords
// charts use; a schema that needs anything else is not checked at all
// (the chart renders, and the run says which schema went unchecked and
// why) rather than risk a false alarm:
//
//   - a $ref that is not a JSON pointer into the same document ("#",
//     "#/definitions/x"): remote, relative and anchor references, an $id
//     below the root (or one with a fragment), $recursiveRef, $dynamicRef;
//   - unevaluatedProperties, unevaluatedItems, contentEncoding,
//     contentMediaType, contentSchema;
//   - format under drafts 4, 6, 7 and 2019-09 (where jsonschema/v6 asserts it);
//   - a $schema other than the five drafts' meta-schema URIs (and
//     json-schema.org/schema, the latest);
//   - draft-04's boolean exclusiveMinimum/exclusiveMaximum;
//   - a schema jsonschema/v6 would refuse to compile as far as this code
//     can tell (a keyword of the wrong type, a pattern that is not a Go
//     regular expression, a reference cycle): Helm fails the chart with
//     the compiler's message, which is not reproduced.
//
// The tests hold it to jsonschema/v6 (schema_diff_test.go, a differential
// test over hand-written cases and a fuzz test).

// validateCharts checks values against the chart's schema and each
// subchart's: msg is Helm's report of the failures ("" when none);
// unchecked says which schemas were not checked, and why.
func validateCharts(ch *chart.Chart, values map[string]any) (msg string, unchecked []Unchecked) {
	var sb strings.Builder
	if ch.Schema != nil {
		res, why := validateSchema(ch.Schema, values)
		switch {
		case why != "":
			unchecked = append(unchecked, Unchecked{Chart: ch.Name(), Why: why})
		case res != "":
			fmt.Fprintf(&sb, "%s:\n%s", ch.Name(), res)
		}
	}
	for _, sub := range ch.Dependencies() {
		raw, ok := values[sub.Name()]
		if !ok || raw == nil {
			continue
		}
		m, ok := raw.(map[string]any)
		if !ok {
			fmt.Fprintf(&sb, "%s:\ninvalid type for values: expected object (map), got %T\n", sub.Name(), raw)
			continue
		}
		sm, su := validateCharts(sub, m)
		sb.WriteString(sm)
		unchecked = append(unchecked, su...)
	}
	return sb.String(), unchecked
}

// validateSchema validates values against one schema document: the
// failure report as Helm prints it, or why the schema was not checked.
func validateSchema(doc []byte, values map[string]any) (report, unchecked string) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return "", "values.schema.json does not parse as JSON"
	}
	if dec.More() {
		return "", "values.schema.json holds more than one JSON value"
	}
	sv := &schemaValidator{root: root, draft: 2020}
	if m, ok := root.(map[string]any); ok {
		if s, ok := m["$schema"]; ok {
			d, ok := draftOf(s)
			if !ok {
				return "", fmt.Sprintf("$schema %v is not one of the drafts checked", s)
			}
			sv.draft = d
		}
	}
	if why := sv.check(root, "#", 0); why != "" {
		return "", why
	}
	errs := sv.validate(root, "#", map[string]any(values), nil, nil)
	if sv.unsupported != "" {
		return "", sv.unsupported
	}
	if len(errs) == 0 {
		return "", ""
	}
	var sb strings.Builder
	for _, e := range topCauses(errs) {
		e.write(&sb, 1)
	}
	// jsonschema/v6 starts with a line naming the schema, which Helm cuts.
	return strings.TrimPrefix(sb.String(), "\n") + "\n", ""
}

// draftOf maps a $schema URI to its draft, as jsonschema/v6 knows them.
func draftOf(v any) (int, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	u, frag, _ := strings.Cut(s, "#")
	if frag != "" {
		return 0, false
	}
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/schema": // the latest draft
		return 2020, true
	case "json-schema.org/draft-04/schema":
		return 4, true
	case "json-schema.org/draft-06/schema":
		return 6, true
	case "json-schema.org/draft-07/schema":
		return 7, true
	case "json-schema.org/draft/2019-09/schema":
		return 2019, true
	case "json-schema.org/draft/2020-12/schema":
		return 2020, true
	}
	return 0, false
}

// schemaValidator validates against one document.
type schemaValidator struct {
	root        any
	draft       int
	unsupported string // set when validation reached what it does not do
	depth       int
	regexps     map[string]*regexp.Regexp // compiled once per document; check made sure they compile
}

func (sv *schemaValidator) regexp(p string) *regexp.Regexp {
	re, ok := sv.regexps[p]
	if !ok {
		if sv.regexps == nil {
			sv.regexps = map[string]*regexp.Regexp{}
		}
		re = regexp.MustCompile(p)
		sv.regexps[p] = re
	}
	return re
}

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

// subschemaKeys are the keywords whose value is a schema, per draft
// (those whose value is a map or list of schemas are listed apart).
var (
	schemaValued    = []string{"additionalProperties", "additionalItems", "items", "contains", "propertyNames", "not", "if", "then", "else"}
	schemaMapValued = []string{"properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"}
	schemaListed    = []string{"allOf", "anyOf", "oneOf", "items", "prefixItems"}
)

// check walks the schema for what this validator does not do and for
// keyword values jsonschema/v6 would refuse; it returns why, or "".
func (sv *schemaValidator) check(s any, ptr string, depth int) string {
	if depth > 200 {
		return "the schema nests deeper than 200 levels"
	}
	if _, ok := s.(bool); ok {
		if sv.draft == 4 {
			return fmt.Sprintf("boolean schema at %s under draft-04", ptr)
		}
		return ""
	}
	m, ok := s.(map[string]any)
	if !ok {
		return fmt.Sprintf("the schema at %s is not an object", ptr)
	}
	idKey := "$id"
	if sv.draft == 4 {
		idKey = "id"
	}
	if id, ok := m[idKey]; ok {
		// At the root, an $id only names the document: "#..." references
		// still point into it. Below, it starts a new base for them.
		s, isString := id.(string)
		if _, frag, _ := strings.Cut(s, "#"); ptr != "#" || !isString || frag != "" {
			return fmt.Sprintf("it uses %s (at %s)", idKey, ptr)
		}
	}
	for _, k := range []string{"$recursiveRef", "$dynamicRef", "$recursiveAnchor", "$dynamicAnchor", "unevaluatedProperties", "unevaluatedItems", "contentEncoding", "contentMediaType", "contentSchema", "$vocabulary"} {
		if _, ok := m[k]; ok {
			return fmt.Sprintf("it uses %s (at %s)", k, ptr)
		}
	}
	if _, ok := m["dependencies"]; ok && sv.draft >= 2019 {
		return fmt.Sprintf("it uses dependencies under draft %d (at %s)", sv.draft, ptr)
	}
	if _, ok := m["items"].([]any); ok && sv.draft >= 2020 {
		return fmt.Sprintf("items is a list under draft 2020-12 (at %s)", ptr)
	}
	if _, ok := m["format"]; ok && sv.draft < 2020 {
		return fmt.Sprintf("it uses format under a draft that asserts it (at %s)", ptr)
	}
	if ref, ok := m["$ref"]; ok {
		r, ok := ref.(string)
		if !ok {
			return fmt.Sprintf("$ref at %s is not a string", ptr)
		}
		if _, found := sv.resolve(r); !found {
			return fmt.Sprintf("it uses $ref %q, not a pointer into the same schema", r)
		}
	}
	if t, ok := m["type"]; ok {
		switch t := t.(type) {
		case string:
			if typeFromName(t) == 0 {
				return fmt.Sprintf("type %q at %s", t, ptr)
			}
		case []any:
			for _, x := range t {
				if s, ok := x.(string); !ok || typeFromName(s) == 0 {
					return fmt.Sprintf("type %v at %s", x, ptr)
				}
			}
		default:
			return fmt.Sprintf("type at %s is neither a string nor a list", ptr)
		}
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"} {
		if v, ok := m[k]; ok {
			if n, ok := v.(json.Number); !ok || !isIntegerValue(n) || strings.HasPrefix(n.String(), "-") {
				return fmt.Sprintf("%s at %s is not a non-negative integer", k, ptr)
			}
			if _, err := strconv.Atoi(v.(json.Number).String()); err != nil {
				return fmt.Sprintf("%s at %s is not a plain integer", k, ptr)
			}
		}
	}
	for _, k := range []string{"minimum", "maximum", "multipleOf", "exclusiveMinimum", "exclusiveMaximum"} {
		if v, ok := m[k]; ok {
			if _, ok := v.(json.Number); !ok {
				return fmt.Sprintf("%s at %s is not a number", k, ptr)
			}
		}
	}
	if v, ok := m["multipleOf"].(json.Number); ok {
		if r, _ := ratOf(v); r == nil || r.Sign() <= 0 {
			return fmt.Sprintf("multipleOf at %s is not positive", ptr)
		}
	}
	for _, k := range []string{"uniqueItems"} {
		if v, ok := m[k]; ok {
			if _, ok := v.(bool); !ok {
				return fmt.Sprintf("%s at %s is not a boolean", k, ptr)
			}
		}
	}
	if v, ok := m["required"]; ok {
		l, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("required at %s is not a list", ptr)
		}
		for _, x := range l {
			if _, ok := x.(string); !ok {
				return fmt.Sprintf("required at %s holds a non-string", ptr)
			}
		}
		if sv.draft == 4 && len(l) == 0 {
			return fmt.Sprintf("required at %s is empty under draft-04", ptr)
		}
	}
	if v, ok := m["enum"]; ok {
		if _, ok := v.([]any); !ok {
			return fmt.Sprintf("enum at %s is not a list", ptr)
		}
	}
	if v, ok := m["pattern"]; ok {
		p, ok := v.(string)
		if !ok {
			return fmt.Sprintf("pattern at %s is not a string", ptr)
		}
		if _, err := regexp.Compile(p); err != nil {
			return fmt.Sprintf("pattern %q at %s is not a Go regular expression", p, ptr)
		}
	}
	if v, ok := m["dependentRequired"]; ok {
		dm, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("dependentRequired at %s is not an object", ptr)
		}
		for _, x := range dm {
			l, ok := x.([]any)
			if !ok {
				return fmt.Sprintf("dependentRequired at %s holds a non-list", ptr)
			}
			for _, y := range l {
				if _, ok := y.(string); !ok {
					return fmt.Sprintf("dependentRequired at %s holds a non-string", ptr)
				}
			}
		}
	}
	if sv.draft == 4 {
		for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
			if _, ok := m[k]; ok {
				return fmt.Sprintf("draft-04's %s (at %s)", k, ptr)
			}
		}
	}
	for _, k := range schemaValued {
		if v, ok := m[k]; ok {
			if _, isList := v.([]any); isList && k == "items" {
				continue
			}
			if k == "additionalItems" || k == "additionalProperties" {
				if _, ok := v.(bool); ok {
					continue
				}
			}
			if why := sv.check(v, ptr+"/"+k, depth+1); why != "" {
				return why
			}
		}
	}
	for _, k := range schemaMapValued {
		v, ok := m[k]
		if !ok {
			continue
		}
		vm, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s at %s is not an object", k, ptr)
		}
		for _, name := range slices.Sorted(maps.Keys(vm)) {
			if k == "patternProperties" {
				if _, err := regexp.Compile(name); err != nil {
					return fmt.Sprintf("patternProperties key %q at %s is not a Go regular expression", name, ptr)
				}
			}
			if k == "dependencies" {
				if l, ok := vm[name].([]any); ok {
					for _, y := range l {
						if _, ok := y.(string); !ok {
							return fmt.Sprintf("dependencies at %s holds a non-string", ptr)
						}
					}
					continue
				}
			}
			if why := sv.check(vm[name], ptr+"/"+k+"/"+name, depth+1); why != "" {
				return why
			}
		}
	}
	for _, k := range schemaListed {
		v, ok := m[k]
		if !ok {
			continue
		}
		l, ok := v.([]any)
		if !ok {
			if k == "items" {
				continue
			}
			return fmt.Sprintf("%s at %s is not a list", k, ptr)
		}
		if len(l) == 0 && k != "items" && k != "prefixItems" {
			return fmt.Sprintf("%s at %s is empty", k, ptr)
		}
		for i, x := range l {
			if why := sv.check(x, fmt.Sprintf("%s/%s/%d", ptr, k, i), depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// resolve finds the schema a local $ref names ("#" or "#/a/b").
func (sv *schemaValidator) resolve(ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, false
	}
	if frag == "" {
		return sv.root, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false // an anchor
	}
	cur := sv.root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	switch cur.(type) {
	case map[string]any, bool:
		return cur, true
	}
	return nil, false
}

// refFrame is a schema entered through $ref at an instance location,
// for cycle detection.
type refFrame struct {
	ref  string
	loc  string
	next *refFrame
}

// validate validates v at loc against schema s; refs are the $refs
// followed at this location. It returns the failures at this level, as
// jsonschema/v6 lists them.
func (sv *schemaValidator) validate(s any, ptr string, v any, loc []string, refs *refFrame) []*vErr {
	if sv.unsupported != "" {
		return nil
	}
	sv.depth++
	defer func() { sv.depth-- }()
	if sv.depth > 10000 {
		sv.unsupported = "validation nests too deep"
		return nil
	}
	at := func(msg string) *vErr { return &vErr{loc: slices.Clone(loc), msg: msg} }
	if b, ok := s.(bool); ok {
		if b {
			return nil
		}
		return []*vErr{at("false schema")}
	}
	m := s.(map[string]any)
	t := typeOfValue(v)
	if t == tInvalid {
		return []*vErr{at(fmt.Sprintf("invalid jsonType %T", v))}
	}
	if tv, ok := m["type"]; ok {
		want := 0
		switch tv := tv.(type) {
		case string:
			want = typeFromName(tv)
		case []any:
			for _, x := range tv {
				want |= typeFromName(x.(string))
			}
		}
		if want != 0 && want&t == 0 && !(want&tInteger != 0 && t == tNumber && isIntegerValue(v)) {
			var names []string
			for _, n := range typeNames {
				if want&n.t != 0 {
					names = append(names, n.name)
				}
			}
			return []*vErr{at(fmt.Sprintf("got %s, want %s", typeName(t), strings.Join(names, " or ")))}
		}
	}
	if c, ok := m["const"]; ok && sv.draft >= 6 {
		if !equalJS(v, c) {
			switch c.(type) {
			case []any, map[string]any:
				return []*vErr{at("'const' failed")}
			}
			return []*vErr{at("value must be " + displayJS(c))}
		}
	}
	if e, ok := m["enum"].([]any); ok {
		if !slices.ContainsFunc(e, func(x any) bool { return equalJS(v, x) }) {
			prim := !slices.ContainsFunc(e, func(x any) bool {
				switch x.(type) {
				case []any, map[string]any:
					return true
				}
				return false
			})
			switch {
			case !prim:
				return []*vErr{at("'enum' failed")}
			case len(e) == 1:
				return []*vErr{at("value must be " + displayJS(e[0]))}
			}
			var want []string
			for _, x := range e {
				want = append(want, displayJS(x))
			}
			return []*vErr{at("value must be one of " + strings.Join(want, ", "))}
		}
	}
	var errs []*vErr
	if ref, ok := m["$ref"].(string); ok {
		err := sv.validateRef(ref, v, loc, refs)
		if sv.draft < 2019 {
			if err != nil {
				return []*vErr{err}
			}
			return nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		errs = append(errs, sv.validateObject(m, ptr, x, loc)...)
	case []any:
		errs = append(errs, sv.validateArray(m, ptr, x, loc)...)
	case string:
		errs = append(errs, sv.validateString(m, x, loc)...)
	case bool, nil:
	default:
		errs = append(errs, sv.validateNumber(m, x, loc)...)
	}
	errs = append(errs, sv.validateApplicators(m, ptr, v, loc, refs)...)
	return errs
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

func (sv *schemaValidator) validateRef(ref string, v any, loc []string, refs *refFrame) *vErr {
	key := jsonPtr(loc)
	for f := refs; f != nil; f = f.next {
		if f.ref == ref && f.loc == key {
			sv.unsupported = fmt.Sprintf("$ref %q loops without reading further into the values", ref)
			return nil
		}
	}
	target, _ := sv.resolve(ref)
	sub := sv.validate(target, ref, v, loc, &refFrame{ref: ref, loc: key, next: refs})
	if len(sub) == 0 {
		return nil
	}
	return &vErr{loc: slices.Clone(loc), msg: "validation failed", causes: sub, skip: len(sub) == 1}
}

// sub validates a value below loc (a property or an item).
func (sv *schemaValidator) sub(s any, ptr string, v any, loc []string, tok string) *vErr {
	l := append(slices.Clone(loc), tok)
	return one(sv.validate(s, ptr, v, l, nil), l)
}

// self validates the same value against another schema (a combinator's).
func (sv *schemaValidator) self(s any, ptr string, v any, loc []string, refs *refFrame) *vErr {
	return one(sv.validate(s, ptr, v, loc, refs), loc)
}

func (sv *schemaValidator) validateObject(m map[string]any, ptr string, obj map[string]any, loc []string) []*vErr {
	var errs []*vErr
	at := func(msg string) { errs = append(errs, &vErr{loc: slices.Clone(loc), msg: msg}) }
	if n, ok := intKeyword(m, "minProperties"); ok && len(obj) < n {
		at(fmt.Sprintf("minProperties: got %s, want %s", groupInt(int64(len(obj))), groupInt(int64(n))))
	}
	if n, ok := intKeyword(m, "maxProperties"); ok && len(obj) > n {
		at(fmt.Sprintf("maxProperties: got %s, want %s", groupInt(int64(len(obj))), groupInt(int64(n))))
	}
	if req, ok := m["required"].([]any); ok {
		if missing := missingProps(obj, req); len(missing) > 0 {
			if len(missing) == 1 {
				at("missing property " + quoteJS(missing[0]))
			} else {
				at("missing properties " + joinQuotedJS(missing))
			}
		}
	}
	if deps, ok := m["dependencies"].(map[string]any); ok && sv.draft < 2019 {
		for _, name := range slices.Sorted(maps.Keys(deps)) {
			if _, ok := obj[name]; !ok {
				continue
			}
			switch d := deps[name].(type) {
			case []any:
				if missing := missingProps(obj, d); len(missing) > 0 {
					at(fmt.Sprintf("properties %s required, if %s exists", joinQuotedJS(missing), quoteJS(name)))
				}
			default:
				if e := sv.self(d, ptr+"/dependencies/"+name, obj, loc, nil); e != nil {
					errs = append(errs, e)
				}
			}
		}
	}
	props, _ := m["properties"].(map[string]any)
	pats, _ := m["patternProperties"].(map[string]any)
	addl, hasAddl := m["additionalProperties"]
	var extra []string
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		pv := obj[name]
		evaluated := false
		if ps, ok := props[name]; ok {
			evaluated = true
			if e := sv.sub(ps, ptr+"/properties/"+name, pv, loc, name); e != nil {
				errs = append(errs, e)
			}
		}
		for _, re := range slices.Sorted(maps.Keys(pats)) {
			if sv.regexp(re).MatchString(name) {
				evaluated = true
				if e := sv.sub(pats[re], ptr+"/patternProperties/"+re, pv, loc, name); e != nil {
					errs = append(errs, e)
				}
			}
		}
		if !evaluated && hasAddl {
			if b, ok := addl.(bool); ok {
				if !b {
					extra = append(extra, name)
				}
			} else if e := sv.sub(addl, ptr+"/additionalProperties", pv, loc, name); e != nil {
				errs = append(errs, e)
			}
		}
	}
	if len(extra) > 0 {
		at("additional properties " + joinQuotedJS(extra) + " not allowed")
	}
	if sv.draft == 4 {
		return errs
	}
	if pn, ok := m["propertyNames"]; ok {
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			if sub := sv.validate(pn, ptr+"/propertyNames", name, nil, nil); len(sub) > 0 {
				errs = append(errs, &vErr{loc: slices.Clone(loc), msg: "invalid propertyName " + quoteJS(name), causes: topCauses(sub)})
			}
		}
	}
	if sv.draft == 6 || sv.draft < 2019 {
		return errs
	}
	if ds, ok := m["dependentSchemas"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(ds)) {
			if _, ok := obj[name]; ok {
				if e := sv.self(ds[name], ptr+"/dependentSchemas/"+name, obj, loc, nil); e != nil {
					errs = append(errs, e)
				}
			}
		}
	}
	if dr, ok := m["dependentRequired"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(dr)) {
			if _, ok := obj[name]; !ok {
				continue
			}
			if missing := missingProps(obj, dr[name].([]any)); len(missing) > 0 {
				at(fmt.Sprintf("properties %s required, if %s exists", joinQuotedJS(missing), quoteJS(name)))
			}
		}
	}
	return errs
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

func (sv *schemaValidator) validateArray(m map[string]any, ptr string, arr []any, loc []string) []*vErr {
	var errs []*vErr
	at := func(msg string) { errs = append(errs, &vErr{loc: slices.Clone(loc), msg: msg}) }
	if n, ok := intKeyword(m, "minItems"); ok && len(arr) < n {
		at(fmt.Sprintf("minItems: got %s, want %s", groupInt(int64(len(arr))), groupInt(int64(n))))
	}
	if n, ok := intKeyword(m, "maxItems"); ok && len(arr) > n {
		at(fmt.Sprintf("maxItems: got %s, want %s", groupInt(int64(len(arr))), groupInt(int64(n))))
	}
	if u, _ := m["uniqueItems"].(bool); u && len(arr) > 1 {
	dup:
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if equalJS(arr[i], arr[j]) {
					at(fmt.Sprintf("items at %s and %s are equal", groupInt(int64(j)), groupInt(int64(i))))
					break dup
				}
			}
		}
	}
	item := func(s any, p string, i int) {
		if e := sv.sub(s, p, arr[i], loc, strconv.Itoa(i)); e != nil {
			errs = append(errs, e)
		}
	}
	if sv.draft < 2020 {
		evaluated := 0
		switch items := m["items"].(type) {
		case []any:
			n := min(len(arr), len(items))
			for i := range n {
				item(items[i], fmt.Sprintf("%s/items/%d", ptr, i), i)
			}
			evaluated = n
		case nil:
		default:
			for i := range arr {
				item(items, ptr+"/items", i)
			}
			evaluated = len(arr)
		}
		switch a := m["additionalItems"].(type) {
		case nil:
		case bool:
			if !a && evaluated != len(arr) {
				at(fmt.Sprintf("last %s additionalItem(s) not allowed", groupInt(int64(len(arr)-evaluated))))
			}
		default:
			for i := evaluated; i < len(arr); i++ {
				item(a, ptr+"/additionalItems", i)
			}
		}
	} else {
		prefix, _ := m["prefixItems"].([]any)
		n := min(len(prefix), len(arr))
		for i := range n {
			item(prefix[i], fmt.Sprintf("%s/prefixItems/%d", ptr, i), i)
		}
		if items, ok := m["items"]; ok {
			if _, isList := items.([]any); !isList {
				for i := n; i < len(arr); i++ {
					item(items, ptr+"/items", i)
				}
			}
		}
	}
	if c, ok := m["contains"]; ok && sv.draft >= 6 {
		var cerrs []*vErr
		var matched []int
		for i := range arr {
			if e := sv.sub(c, ptr+"/contains", arr[i], loc, strconv.Itoa(i)); e != nil {
				cerrs = append(cerrs, e)
			} else {
				matched = append(matched, i)
			}
		}
		minC, hasMin := intKeyword(m, "minContains")
		if sv.draft < 2019 {
			hasMin = false
		}
		switch {
		case hasMin && len(matched) < minC:
			if len(matched) == 0 {
				errs = append(errs, &vErr{loc: slices.Clone(loc), msg: fmt.Sprintf("min %s items required to match contains schema, but none matched", groupInt(int64(minC))), causes: cerrs})
			} else {
				errs = append(errs, &vErr{loc: slices.Clone(loc), msg: fmt.Sprintf("min %s items required to match contains schema, but matched %s items at %s", groupInt(int64(minC)), groupInt(int64(len(matched))), intsList(matched)), causes: cerrs})
			}
		case !hasMin && len(matched) == 0:
			errs = append(errs, &vErr{loc: slices.Clone(loc), msg: "no items match contains schema", causes: cerrs})
		}
		if maxC, ok := intKeyword(m, "maxContains"); ok && sv.draft >= 2019 && len(matched) > maxC {
			at(fmt.Sprintf("max %s items required to match contains schema, but matched %s items at %s", groupInt(int64(maxC)), groupInt(int64(len(matched))), intsList(matched)))
		}
	}
	return errs
}

// intsList is a list of indexes as jsonschema/v6 prints it ("1 2 3").
func intsList(is []int) string {
	s := fmt.Sprintf("%v", is)
	return s[1 : len(s)-1]
}

func (sv *schemaValidator) validateString(m map[string]any, s string, loc []string) []*vErr {
	var errs []*vErr
	at := func(msg string) { errs = append(errs, &vErr{loc: slices.Clone(loc), msg: msg}) }
	n := utf8.RuneCountInString(s)
	if k, ok := intKeyword(m, "minLength"); ok && n < k {
		at(fmt.Sprintf("minLength: got %s, want %s", groupInt(int64(n)), groupInt(int64(k))))
	}
	if k, ok := intKeyword(m, "maxLength"); ok && n > k {
		at(fmt.Sprintf("maxLength: got %s, want %s", groupInt(int64(n)), groupInt(int64(k))))
	}
	if p, ok := m["pattern"].(string); ok && !sv.regexp(p).MatchString(s) {
		at(fmt.Sprintf("%s does not match pattern %s", quoteJS(s), quoteJS(p)))
	}
	return errs
}

func (sv *schemaValidator) validateNumber(m map[string]any, v any, loc []string) []*vErr {
	var errs []*vErr
	num, ok := ratOf(v)
	if !ok {
		return nil
	}
	f := func(r *big.Rat) string { x, _ := r.Float64(); return groupFloat(x) }
	bound := func(k string) (*big.Rat, bool) {
		n, ok := m[k].(json.Number)
		if !ok {
			return nil, false
		}
		return ratOf(n)
	}
	check := func(k string, fails func(int) bool) {
		if b, ok := bound(k); ok && fails(num.Cmp(b)) {
			errs = append(errs, &vErr{loc: slices.Clone(loc), msg: fmt.Sprintf("%s: got %s, want %s", k, f(num), f(b))})
		}
	}
	check("minimum", func(c int) bool { return c < 0 })
	check("maximum", func(c int) bool { return c > 0 })
	if sv.draft >= 6 {
		check("exclusiveMinimum", func(c int) bool { return c <= 0 })
		check("exclusiveMaximum", func(c int) bool { return c >= 0 })
	}
	if b, ok := bound("multipleOf"); ok {
		if q := new(big.Rat).Quo(num, b); !q.IsInt() {
			errs = append(errs, &vErr{loc: slices.Clone(loc), msg: fmt.Sprintf("multipleOf: got %s, want %s", f(num), f(b))})
		}
	}
	return errs
}

func (sv *schemaValidator) validateApplicators(m map[string]any, ptr string, v any, loc []string, refs *refFrame) []*vErr {
	var errs []*vErr
	at := func(msg string, causes []*vErr) {
		errs = append(errs, &vErr{loc: slices.Clone(loc), msg: msg, causes: causes})
	}
	if n, ok := m["not"]; ok {
		if sv.self(n, ptr+"/not", v, loc, refs) == nil {
			at("'not' failed", nil)
		}
	}
	if l, ok := m["allOf"].([]any); ok {
		var sub []*vErr
		for i, s := range l {
			if e := sv.self(s, fmt.Sprintf("%s/allOf/%d", ptr, i), v, loc, refs); e != nil {
				sub = append(sub, e)
			}
		}
		if len(sub) > 0 {
			at("'allOf' failed", sub)
		}
	}
	if l, ok := m["anyOf"].([]any); ok {
		var sub []*vErr
		matched := false
		for i, s := range l {
			e := sv.self(s, fmt.Sprintf("%s/anyOf/%d", ptr, i), v, loc, refs)
			if e == nil {
				matched = true
				break
			}
			sub = append(sub, e)
		}
		if !matched {
			at("'anyOf' failed", sub)
		}
	}
	if l, ok := m["oneOf"].([]any); ok {
		var sub []*vErr
		first := -1
		for i, s := range l {
			e := sv.self(s, fmt.Sprintf("%s/oneOf/%d", ptr, i), v, loc, refs)
			if e != nil {
				if first == -1 {
					sub = append(sub, e)
				}
				continue
			}
			if first == -1 {
				first = i
				continue
			}
			at(fmt.Sprintf("'oneOf' failed, subschemas %s, %s matched", groupInt(int64(first)), groupInt(int64(i))), nil)
			break
		}
		if first == -1 {
			at("'oneOf' failed, none matched", sub)
		}
	}
	if c, ok := m["if"]; ok && sv.draft >= 7 {
		var e *vErr
		if sv.self(c, ptr+"/if", v, loc, refs) == nil {
			if t, ok := m["then"]; ok {
				e = sv.self(t, ptr+"/then", v, loc, refs)
			}
		} else if el, ok := m["else"]; ok {
			e = sv.self(el, ptr+"/else", v, loc, refs)
		}
		if e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}
