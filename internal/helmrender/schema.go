package helmrender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
