package rego

import (
	"fmt"
	"regexp"

	"github.com/open-policy-agent/opa/v1/ast"
)

// finding is one element of a rule's deny set:
//
//	{"msg": "...", "path": "spec.template.spec.tolerations[0].value",
//	 "related": [{"msg": "...", "path": "..."}]}
type finding struct {
	msg, path string
	related   []related
}

type related struct{ msg, path string }

// pathRE accepts apimachinery field.Path strings: field names joined by
// dots, list indexes and map keys in brackets (a key may hold dots), or ""
// for the object itself.
var pathRE = regexp.MustCompile(`^(?:[^.\[\]]+(?:\.[^.\[\]]+|\[[^\[\]]*\])*)?$`)

// findings reads the value of a deny rule. Anything but a set of finding
// objects is an error in the policy, described so its author can fix it.
func findings(v ast.Value) ([]finding, error) {
	set, ok := v.(ast.Set)
	if !ok {
		return nil, fmt.Errorf("deny is %s, want a set of objects (deny contains {\"msg\": ..., \"path\": ...} if { ... })", describe(v))
	}
	out := make([]finding, 0, set.Len())
	for _, t := range set.Slice() {
		f, err := readFinding(t.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func readFinding(v ast.Value) (finding, error) {
	var f finding
	obj, ok := v.(ast.Object)
	if !ok {
		return f, fmt.Errorf("deny holds %s, want an object {\"msg\": string, \"path\": string}", describe(v))
	}
	var err error
	for _, k := range obj.Keys() {
		name, _ := k.Value.(ast.String)
		val := obj.Get(k).Value
		switch name {
		case "msg":
			f.msg, err = message(val, "msg")
		case "path":
			f.path, err = fieldPath(val, "path")
		case "related":
			f.related, err = readRelated(val)
		default:
			err = fmt.Errorf("deny result has unknown key %s (want msg, path and optionally related)", k)
		}
		if err != nil {
			return f, err
		}
	}
	if obj.Get(ast.StringTerm("msg")) == nil {
		return f, fmt.Errorf("deny result %s has no msg", truncate(v.String()))
	}
	if obj.Get(ast.StringTerm("path")) == nil {
		return f, fmt.Errorf("deny result %s has no path (a field path such as spec.template.spec.tolerations[0].value, or \"\" for the object)", truncate(v.String()))
	}
	return f, nil
}

func readRelated(v ast.Value) ([]related, error) {
	var terms []*ast.Term
	switch x := v.(type) {
	case *ast.Array:
		x.Foreach(func(t *ast.Term) { terms = append(terms, t) })
	case ast.Set:
		terms = x.Slice()
	default:
		return nil, fmt.Errorf("deny result's related is %s, want a list of {\"msg\": string, \"path\": string}", describe(v))
	}
	out := make([]related, 0, len(terms))
	for _, t := range terms {
		obj, ok := t.Value.(ast.Object)
		if !ok || obj.Len() != 2 || obj.Get(ast.StringTerm("msg")) == nil || obj.Get(ast.StringTerm("path")) == nil {
			return nil, fmt.Errorf("deny result's related holds %s, want {\"msg\": string, \"path\": string}", describe(t.Value))
		}
		msg, err := message(obj.Get(ast.StringTerm("msg")).Value, "related msg")
		if err != nil {
			return nil, err
		}
		path, err := fieldPath(obj.Get(ast.StringTerm("path")).Value, "related path")
		if err != nil {
			return nil, err
		}
		out = append(out, related{msg: msg, path: path})
	}
	return out, nil
}

func message(v ast.Value, what string) (string, error) {
	s, ok := v.(ast.String)
	if !ok || s == "" {
		return "", fmt.Errorf("deny result's %s is %s, want a non-empty string", what, describe(v))
	}
	return string(s), nil
}

func fieldPath(v ast.Value, what string) (string, error) {
	s, ok := v.(ast.String)
	if !ok {
		return "", fmt.Errorf("deny result's %s is %s, want a string", what, describe(v))
	}
	if !pathRE.MatchString(string(s)) {
		return "", fmt.Errorf("deny result's %s %q is not a field path like spec.template.spec.tolerations[0].value", what, string(s))
	}
	return string(s), nil
}

// describe names a value's type and shows it, shortened.
func describe(v ast.Value) string {
	return ast.ValueName(v) + " " + truncate(v.String())
}

func truncate(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
