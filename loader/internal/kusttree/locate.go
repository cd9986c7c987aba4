package kusttree

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/kustomize"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// Locator finds where a field of a Kustomize output object is written.
type Locator struct {
	base     *source             // the object in its source file; nil when generated
	entry    *Position           // the generator entry that made the object
	patches  []*patchDoc         // patches selecting the object, latest applied first
	replaced []replacementTarget // replacements targeting the object
	chain    []*kustFile         // kustomizations that built it, outermost first
	fallback Position            // the root kustomization file
}

// LocateValue is the value's place in the source file or the
// strategic-merge patch Locate chose, when that is where its key is; tree
// is the output object's.
func (k *Locator) LocateValue(tree *yaml.Node, steps []Step, pos Position) Position {
	srcs := []*source{k.base}
	for _, p := range k.patches {
		srcs = append(srcs, p.smp)
	}
	for _, src := range srcs {
		if src == nil || src.flat != nil || src.file != pos.File {
			continue
		}
		mark, val, depth := walkGuided(src.node, tree, steps)
		if depth == len(steps) && val != nil && src.pos(mark) == pos {
			return src.pos(val)
		}
	}
	return pos
}

// Locate resolves a field path of the output object whose tree is tree. The order follows where a person
// would make a change: a patch that sets the value the output has, else a
// replacement that wrote a value the source file does not hold, else the
// object's source file, else a patch that sets the field at all (a later
// transformer changed the value), else the kustomization field of the
// transformer that set it (namespace, labels, annotations), else the
// kustomization file.
func (k *Locator) Locate(tree *yaml.Node, path string) (Position, Exactness) {
	steps, err := jsonscan.ParsePath(path)
	if err != nil {
		steps = nil
	}
	if _, depth := yamltree.WalkValue(tree, steps); depth < len(steps) {
		// Absent from the output too: name its nearest existing ancestor.
		p, ex := k.find(tree, steps[:depth])
		if ex == Exact {
			ex = Ancestor
		}
		return p, ex
	}
	return k.find(tree, steps)
}

func (k *Locator) objectPos() Position {
	switch {
	case k.base != nil:
		return k.base.pos(nil)
	case k.entry != nil:
		return *k.entry
	}
	return k.fallback
}

func (k *Locator) find(tree *yaml.Node, steps []Step) (Position, Exactness) {
	if len(steps) == 0 {
		return k.objectPos(), Exact
	}
	out, _ := yamltree.WalkValue(tree, steps)
	for _, p := range k.patches {
		if pos, ok := p.locate(tree, steps, out, true); ok {
			return pos, Exact
		}
	}
	var baseMark, baseVal *yaml.Node
	baseDepth := -1
	if k.base != nil {
		baseMark, baseVal, baseDepth = walkGuided(k.base.node, tree, steps)
	}
	for _, r := range k.replaced {
		// A replacement wrote the value, unless the source already had it.
		if fieldPathMatches(r.path, steps, tree) && (baseDepth < len(steps) || !equalValue(baseVal, out)) {
			return r.pos, Generated
		}
	}
	if baseDepth == len(steps) {
		return k.base.pos(baseMark), Exact
	}
	for _, p := range k.patches {
		if pos, ok := p.locate(tree, steps, out, false); ok {
			return pos, Exact
		}
	}
	if pos, ok := k.transformer(steps); ok {
		return pos, Generated
	}
	switch {
	case k.entry != nil:
		return *k.entry, Generated
	case len(k.patches) > 0:
		return k.patches[0].entry, Generated
	}
	return k.fallback, Generated
}

// locate finds a field in the patch. With same, the patch must set the
// value the output has; without, any mention of the field will do.
func (p *patchDoc) locate(outRoot *yaml.Node, steps []Step, out *yaml.Node, same bool) (Position, bool) {
	if p.smp != nil {
		n, v, d := walkGuided(p.smp.node, outRoot, steps)
		if d == len(steps) && (!same || equalValue(v, out)) {
			return p.smp.pos(n), true
		}
		return Position{}, false
	}
	for i := len(p.ops) - 1; i >= 0; i-- {
		op := &p.ops[i]
		switch op.op {
		case "add", "replace", "copy", "move":
		default:
			continue
		}
		if !same {
			if ptrRelated(op.ptr, steps) {
				return p.opsSrc.pos(op.item), true
			}
			continue
		}
		if op.value == nil || !ptrPrefix(op.ptr, steps) {
			continue
		}
		rest := steps[len(op.ptr):]
		if len(rest) == 0 {
			if equalValue(op.value, out) {
				return p.opsSrc.pos(op.valueKey), true
			}
			continue
		}
		// The operation's whole value must have survived, or "-" (append)
		// would claim every element of the list.
		sub, _ := yamltree.WalkValue(outRoot, steps[:len(op.ptr)])
		if !subset(op.value, sub, 0) {
			continue
		}
		if n, v, d := walkGuided(op.value, sub, rest); d == len(rest) && equalValue(v, out) {
			return p.opsSrc.pos(n), true
		}
	}
	return Position{}, false
}

func segMatches(seg string, s Step) bool {
	if s.Index >= 0 {
		return seg == "-" || seg == strconv.Itoa(s.Index)
	}
	return seg == s.Key
}

// ptrPrefix reports whether a JSON pointer names steps or an ancestor.
func ptrPrefix(ptr []string, steps []Step) bool {
	if len(ptr) > len(steps) {
		return false
	}
	for i, seg := range ptr {
		if !segMatches(seg, steps[i]) {
			return false
		}
	}
	return true
}

// ptrRelated reports whether a JSON pointer names steps, an ancestor or a
// descendant.
func ptrRelated(ptr []string, steps []Step) bool {
	for i := 0; i < len(ptr) && i < len(steps); i++ {
		if !segMatches(ptr[i], steps[i]) {
			return false
		}
	}
	return true
}

// walkGuided is yamltree.Walk over a source tree (a base file or a patch) guided by
// the built output, because list indexes in the output need not be list
// indexes in the source: strategic merge matches elements by their merge
// key and appends new ones. It returns the mark node (the key of a map
// field, the element of a list), the value, and how many steps matched.
func walkGuided(src, out *yaml.Node, steps []Step) (mark, val *yaml.Node, depth int) {
	mark, cur, o := src, src, out
	for d, s := range steps {
		cur, o = yamltree.Deref(cur), yamltree.Deref(o)
		if cur == nil {
			return mark, nil, d
		}
		if s.Index >= 0 {
			if cur.Kind != yaml.SequenceNode {
				return mark, nil, d
			}
			var oe *yaml.Node
			if o != nil && o.Kind == yaml.SequenceNode && s.Index < len(o.Content) {
				oe = o.Content[s.Index]
			}
			e := pickElement(cur, o, s.Index, oe)
			if e == nil {
				return mark, nil, d
			}
			mark, cur, o = e, e, oe
			continue
		}
		if cur.Kind != yaml.MappingNode {
			return mark, nil, d
		}
		k, v := yamltree.Lookup(cur, s.Key, 0)
		if k == nil {
			return mark, nil, d
		}
		var ov *yaml.Node
		if o != nil && o.Kind == yaml.MappingNode {
			_, ov = yamltree.Lookup(o, s.Key, 0)
		}
		mark, cur, o = k, v, ov
	}
	return mark, cur, len(steps)
}

// pickElement finds the element of source list seq that became element i
// (oe) of output list out.
func pickElement(seq, out *yaml.Node, i int, oe *yaml.Node) *yaml.Node {
	if e := yamltree.Deref(oe); e != nil && e.Kind == yaml.MappingNode {
		for _, mk := range mergeKeys {
			want, ok := yamltree.Scalar(e, mk)
			if !ok {
				continue
			}
			for _, c := range seq.Content {
				if v, ok := yamltree.Scalar(yamltree.Deref(c), mk); ok && v == want {
					return c
				}
			}
			return nil
		}
	}
	if i >= len(seq.Content) {
		return nil
	}
	switch {
	case oe == nil, out != nil && len(out.Content) == len(seq.Content), subset(seq.Content[i], oe, 0):
		return seq.Content[i]
	}
	return nil
}

// equalValue reports whether a patch sets exactly the value the output
// has. A patch that merely touches part of a map or list (a strategic
// merge patch's spec holding one container) does not own it: the source
// file does.
func equalValue(p, o *yaml.Node) bool {
	return subset(p, o, 0) && subset(o, p, 0)
}

// subset reports whether every field p sets has the same value in o: a
// patch's value survives in the output.
func subset(p, o *yaml.Node, depth int) bool {
	p, o = yamltree.Deref(p), yamltree.Deref(o)
	if p == nil || o == nil {
		return p == o
	}
	if depth > yamltree.MaxDepth {
		return false
	}
	switch p.Kind {
	case yaml.ScalarNode:
		return o.Kind == yaml.ScalarNode && scalarJSON(p) == scalarJSON(o)
	case yaml.MappingNode:
		if o.Kind != yaml.MappingNode {
			return false
		}
		for i := 0; i+1 < len(p.Content); i += 2 {
			k := p.Content[i]
			if k.Tag == "!!merge" || strings.HasPrefix(k.Value, "$") {
				continue // merge keys and patch directives
			}
			pv := yamltree.Deref(p.Content[i+1])
			_, ov := yamltree.Lookup(o, k.Value, 0)
			if ov == nil {
				if pv != nil && pv.Kind == yaml.ScalarNode && pv.ShortTag() == "!!null" {
					continue // null deletes the field
				}
				return false
			}
			if !subset(pv, ov, depth+1) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		if o.Kind != yaml.SequenceNode {
			return false
		}
	next:
		for _, pe := range p.Content {
			for _, oe := range o.Content {
				if subset(pe, oe, depth+1) {
					continue next
				}
			}
			return false
		}
		return true
	}
	return false
}

func scalarJSON(n *yaml.Node) string {
	var b bytes.Buffer
	yamltree.WriteScalar(&b, n)
	return b.String()
}

// transformer finds the kustomization field of the transformer that set
// a namespace, label, annotation or replica count absent from every
// source file.
func (k *Locator) transformer(steps []Step) (Position, bool) {
	last := steps[len(steps)-1]
	if last.Index >= 0 {
		return Position{}, false
	}
	var keys []string
	switch {
	case len(steps) == 2 && steps[0].Key == "metadata" && last.Key == "namespace":
		for _, kf := range k.chain {
			if kn, _ := kustomize.Field(kf.doc, "namespace"); kn != nil {
				return Position{File: kf.name, Line: kn.Line, Column: kn.Column}, true
			}
		}
		return Position{}, false
	case len(steps) == 2 && steps[0].Key == "spec" && last.Key == "replicas":
		for _, kf := range k.chain {
			if kn, _ := kustomize.Field(kf.doc, "replicas"); kn != nil {
				return Position{File: kf.name, Line: kn.Line, Column: kn.Column}, true
			}
		}
		return Position{}, false
	case len(steps) < 2:
		return Position{}, false
	case steps[len(steps)-2].Key == "annotations":
		keys = []string{"commonAnnotations"}
	case steps[len(steps)-2].Key == "labels", steps[len(steps)-2].Key == "matchLabels",
		len(steps) == 3 && steps[0].Key == "spec" && steps[1].Key == "selector":
		keys = []string{"commonLabels", "labels"}
	default:
		return Position{}, false
	}
	for _, kf := range k.chain {
		for _, key := range keys {
			_, v := kustomize.Field(kf.doc, key)
			maps := []*yaml.Node{v}
			if key == "labels" {
				maps = nil
				for _, it := range items(v) {
					_, pairs := kustomize.Field(it, "pairs")
					maps = append(maps, pairs)
				}
			}
			for _, m := range maps {
				if m = yamltree.Deref(m); m == nil || m.Kind != yaml.MappingNode {
					continue
				}
				if kn, _ := yamltree.Lookup(m, last.Key, 0); kn != nil {
					return Position{File: kf.name, Line: kn.Line, Column: kn.Column}, true
				}
			}
		}
	}
	return Position{}, false
}
