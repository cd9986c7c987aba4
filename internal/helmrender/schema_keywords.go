package helmrender

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

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
