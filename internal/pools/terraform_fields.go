package pools

// The values of a Terraform body as read statically: attributes and nested
// blocks of HCL bodies and of the objects a module call passes, with where
// each is written, and the conversions of known values.

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// tfField is one attribute of a resource, a block or a value: its value
// (cty.NilVal when it is not written), where it is, and why it is
// unknown when it is.
type tfField struct {
	v    cty.Value
	rng  hcl.Range
	expr hcl.Expression // nil for a value read from JSON
	why  []string
}

func (f tfField) written() bool { return f.v != cty.NilVal && !(f.v.IsKnown() && f.v.IsNull()) }
func (f tfField) unknown() bool { return f.v != cty.NilVal && !f.v.IsWhollyKnown() }

// fields is a body to read attributes and nested blocks of: a resource's
// or block's HCL body, or a value (a module's node group, a plan's
// resource), whose objects stand for blocks.
type fields interface {
	attr(name string) tfField
	// blocks are the nested blocks of a type; why is set when which
	// blocks there are is not known (a dynamic block over an unknown
	// collection).
	blocks(name string) (bs []fields, rngs []hcl.Range, why []string)
	rng() hcl.Range
}

// hclFields is an HCL body with the values of each, count and dynamic
// iterators in scope.
type hclFields struct {
	m     *tfModule
	body  *hclsyntax.Body
	at    hcl.Range
	extra map[string]cty.Value
}

func (h hclFields) rng() hcl.Range { return h.at }

func (h hclFields) attr(name string) tfField {
	a, ok := h.body.Attributes[name]
	if !ok {
		return tfField{v: cty.NilVal, rng: h.at}
	}
	v, why := h.m.eval(a.Expr, h.extra)
	return tfField{v: v, rng: a.NameRange, expr: a.Expr, why: why}
}

func (h hclFields) blocks(name string) ([]fields, []hcl.Range, []string) {
	var out []fields
	var rngs []hcl.Range
	var why []string
	for _, b := range h.body.Blocks {
		switch {
		case b.Type == name:
			out = append(out, hclFields{m: h.m, body: b.Body, at: b.TypeRange, extra: h.extra})
			rngs = append(rngs, b.TypeRange)
		case b.Type == "dynamic" && len(b.Labels) == 1 && b.Labels[0] == name:
			bs, rs, w := h.dynamic(b, name)
			out = append(out, bs...)
			rngs = append(rngs, rs...)
			why = append(why, w...)
		}
	}
	return out, rngs, why
}

// dynamic expands a dynamic block as Terraform does: one block of its
// content per element of for_each, with the iterator (the block's type,
// or iterator) holding key and value.
func (h hclFields) dynamic(b *hclsyntax.Block, name string) ([]fields, []hcl.Range, []string) {
	fe, ok := b.Body.Attributes["for_each"]
	if !ok {
		return nil, nil, nil
	}
	iter := name
	if it, ok := b.Body.Attributes["iterator"]; ok {
		if t, d := hcl.AbsTraversalForExpr(it.Expr); !d.HasErrors() {
			iter = t.RootName()
		}
	}
	var content *hclsyntax.Block
	for _, c := range b.Body.Blocks {
		if c.Type == "content" {
			content = c
		}
	}
	if content == nil {
		return nil, nil, nil
	}
	coll, why := h.m.eval(fe.Expr, h.extra)
	if !coll.IsKnown() {
		return nil, nil, prefixed("dynamic \""+name+"\" for_each", why)
	}
	if coll.IsNull() || !coll.CanIterateElements() {
		return nil, nil, nil
	}
	if n := coll.LengthInt(); n > maxInstances {
		return nil, nil, []string{fmt.Sprintf("dynamic %q for_each: %d blocks, more than the %d taintlint expands", name, n, maxInstances)}
	}
	var out []fields
	var rngs []hcl.Range
	for it := coll.ElementIterator(); it.Next(); {
		k, v := it.Element()
		extra := map[string]cty.Value{}
		for n, x := range h.extra {
			extra[n] = x
		}
		extra[iter] = cty.ObjectVal(map[string]cty.Value{"key": k, "value": v})
		out = append(out, hclFields{m: h.m, body: content.Body, at: b.TypeRange, extra: extra})
		rngs = append(rngs, b.TypeRange)
	}
	return out, rngs, nil
}

func prefixed(what string, why []string) []string {
	out := make([]string, len(why))
	for i, w := range why {
		out[i] = what + " (" + w + ")"
	}
	return out
}

// valFields is a value read as a body: its attributes are the object's
// members, its blocks the objects of a member that is a list or map of
// objects. expr, when the value was written as an object constructor, gives
// its members' positions.
type valFields struct {
	v    cty.Value
	at   hcl.Range
	expr hcl.Expression
	// fallback, when set, gives the members this value does not have
	// (the terraform-aws-eks module's *_node_group_defaults).
	fallback *valFields
}

func (f valFields) rng() hcl.Range { return f.at }

func (f valFields) attr(name string) tfField {
	fd := f.member(name)
	if !fd.written() && !fd.unknown() && f.fallback != nil {
		return f.fallback.attr(name)
	}
	return fd
}

func (f valFields) member(name string) tfField {
	v := f.v
	if v == cty.NilVal {
		return tfField{v: cty.NilVal, rng: f.at}
	}
	if !v.IsKnown() {
		return tfField{v: cty.DynamicVal, rng: f.at, why: []string{"not known statically"}}
	}
	if v.IsNull() {
		return tfField{v: cty.NilVal, rng: f.at}
	}
	t := v.Type()
	var mv cty.Value
	switch {
	case t.IsObjectType() && t.HasAttribute(name):
		mv = v.GetAttr(name)
	case t.IsMapType() && v.HasIndex(cty.StringVal(name)).True():
		mv = v.Index(cty.StringVal(name))
	default:
		return tfField{v: cty.NilVal, rng: f.at}
	}
	fd := tfField{v: mv, rng: f.at}
	if e, r := subExpr(f.expr, name); e != nil {
		fd.expr, fd.rng = e, r
	}
	if !mv.IsWhollyKnown() {
		fd.why = []string{"not known statically"}
		if fd.expr != nil {
			fd.why = nil
			for _, t := range fd.expr.Variables() {
				fd.why = append(fd.why, traversalName(t)+": not known statically")
			}
		}
	}
	return fd
}

func (f valFields) blocks(name string) ([]fields, []hcl.Range, []string) {
	fd := f.attr(name)
	if !fd.written() {
		return nil, nil, nil
	}
	if !fd.v.IsKnown() {
		return nil, nil, prefixed(name, fd.why)
	}
	if !fd.v.CanIterateElements() {
		return []fields{valFields{v: fd.v, at: fd.rng, expr: fd.expr}}, []hcl.Range{fd.rng}, nil
	}
	var out []fields
	var rngs []hcl.Range
	i := 0
	for it := fd.v.ElementIterator(); it.Next(); i++ {
		k, v := it.Element()
		r := fd.rng
		var e hcl.Expression
		if k.Type() == cty.String {
			e, r = subExpr(fd.expr, k.AsString())
		} else {
			e, r = elemExpr(fd.expr, i)
		}
		if e == nil {
			r = fd.rng
		}
		out = append(out, valFields{v: v, at: r, expr: e})
		rngs = append(rngs, r)
	}
	return out, rngs, nil
}

// subExpr is the member key's expression in an object constructor, and
// the range of its key.
func subExpr(e hcl.Expression, key string) (hcl.Expression, hcl.Range) {
	oc, ok := e.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil, hcl.Range{}
	}
	for _, it := range oc.Items {
		k, d := it.KeyExpr.Value(nil)
		if d.HasErrors() {
			// A bare word key is a traversal HCL reads as its name.
			if t, ok := it.KeyExpr.(*hclsyntax.ObjectConsKeyExpr); ok {
				if n := hcl.ExprAsKeyword(t.Wrapped); n != "" {
					k = cty.StringVal(n)
				}
			}
		}
		if k.IsKnown() && !k.IsNull() && k.Type() == cty.String && k.AsString() == key {
			return it.ValueExpr, it.KeyExpr.Range()
		}
	}
	return nil, hcl.Range{}
}

// elemExpr is the i-th element of a tuple constructor and its range.
func elemExpr(e hcl.Expression, i int) (hcl.Expression, hcl.Range) {
	tc, ok := e.(*hclsyntax.TupleConsExpr)
	if !ok || i >= len(tc.Exprs) {
		return nil, hcl.Range{}
	}
	return tc.Exprs[i], tc.Exprs[i].Range()
}

// str is a known string value (numbers and bools as Terraform converts
// them); ok is false when v is unset, null, unknown or not a string.
func str(v cty.Value) (string, bool) {
	if v == cty.NilVal || !v.IsWhollyKnown() || v.IsNull() {
		return "", false
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil || s.IsNull() {
		return "", false
	}
	return s.AsString(), true
}

func boolOf(v cty.Value) (b, ok bool) {
	if v == cty.NilVal || !v.IsWhollyKnown() || v.IsNull() {
		return false, false
	}
	c, err := convert.Convert(v, cty.Bool)
	if err != nil || c.IsNull() {
		return false, false
	}
	return c.True(), true
}

// strList is a known list, set or tuple of strings.
func strList(v cty.Value) ([]string, bool) {
	if v == cty.NilVal || !v.IsWhollyKnown() || v.IsNull() || !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		s, ok := str(e)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// strMap is a known map or object of strings, in key order.
func strMap(v cty.Value) ([]string, map[string]string, bool) {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() || !(v.Type().IsMapType() || v.Type().IsObjectType()) {
		return nil, nil, false
	}
	m := map[string]string{}
	var keys []string
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		keys = append(keys, k.AsString())
		if s, ok := str(e); ok {
			m[k.AsString()] = s
		}
	}
	sort.Strings(keys)
	return keys, m, true
}
