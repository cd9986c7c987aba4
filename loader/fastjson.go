package loader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
)

// lookup is the value of key in mapping m, or -1.
func (p *fastParser) lookup(m int32, key string) int32 {
	if m < 0 || p.nodes[m].kind != fMap {
		return -1
	}
	for k := p.nodes[m].first; k >= 0; k = p.nodes[p.nodes[k].next].next {
		if string(p.nodes[k].val) == key {
			return p.nodes[k].next
		}
	}
	return -1
}

// scalar is the loader's scalar (position.go) on a fast-path tree: the
// value of key in m, and whether it is a scalar other than null.
func (p *fastParser) scalar(m int32, key string) (string, bool) {
	v := p.lookup(m, key)
	if v < 0 {
		return "", false
	}
	switch n := &p.nodes[v]; n.kind {
	case fStr:
		return string(n.val), true
	case fPlain:
		if plainNull(n.val) {
			return "", false
		}
		return string(n.val), true
	}
	return "", false
}

// plainNull reports whether a plain scalar resolves to null.
func plainNull(val []byte) bool {
	return (&yaml.Node{Kind: yaml.ScalarNode, Value: string(val)}).ShortTag() == "!!null"
}

// kubectlString is the loader's kubectlString (kubectl.go) on a fast-path
// tree: the value of key in m when kubectl reads it as a string, or "".
func (p *fastParser) kubectlString(m int32, key string) string {
	v := p.lookup(m, key)
	if v < 0 {
		return ""
	}
	switch n := &p.nodes[v]; {
	case n.kind == fStr, n.kind == fPlain && yamltree.PlainString(n.val):
		return string(n.val)
	}
	return ""
}

// add adds the objects of the document parse read, document index of a
// stream, as addDocument adds them from yaml.v3's tree.
func (p *fastParser) add(r *Result, name string, index int, d stream.Document) {
	if len(p.nodes) == 0 {
		return // comments only
	}
	apiVersion, kind := p.kubectlString(0, "apiVersion"), p.kubectlString(0, "kind")
	if apiVersion == "" || kind == "" {
		r.Skipped++
		return
	}
	items := p.lookup(0, "items")
	if n := &p.nodes[max(items, 0)]; items >= 0 && n.kind != fSeq && !(n.kind == fPlain && plainNull(n.val)) {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + int(n.line), Column: int(n.col)}, Msg: kind + ": " + notItemsMsg})
		return
	}
	src := &docSource{raw: d.Data}
	if strings.HasSuffix(kind, "List") && items >= 0 {
		if p.nodes[items].kind == fSeq {
			count := 0
			for it := p.nodes[items].first; it >= 0; it = p.nodes[it].next {
				count++
			}
			src.keep = count > 1
			if p.lean != nil {
				p.group = &leanGroup{data: d.Data, whole: true}
				defer func() { p.group = nil }()
			}
			i := 0
			for it := p.nodes[items].first; it >= 0; it, i = p.nodes[it].next, i+1 {
				p.addItem(r, name, index, d, src, apiVersion, kind, i, it)
			}
		}
		return // items null: none
	}
	r.Objects = append(r.Objects, p.object(name, index, -1, d, src, apiVersion, kind, 0))
}

// addItem adds item i, node it, of a List document (index of a stream)
// of apiVersion and kind, as addDocument adds it from yaml.v3's tree.
func (p *fastParser) addItem(r *Result, name string, index int, d stream.Document, src *docSource, apiVersion, kind string, i int, it int32) {
	n := &p.nodes[it]
	if null := n.kind == fPlain && plainNull(n.val); null && kind != "List" {
		// unstructured's decodeToList reads a null item as an object
		// with no fields, which then takes its List's kind.
		it = p.node(fMap, int(n.line), int(n.col))
		n = &p.nodes[it]
	} else if null {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + int(n.line), Column: int(n.col)}, Msg: itemWithoutKind(kind, i)})
		return
	}
	if n.kind != fMap {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + int(n.line), Column: int(n.col)}, Msg: fmt.Sprintf("%s item %d is not an object", kind, i)})
		return
	}
	iv, ik := p.kubectlString(it, "apiVersion"), p.kubectlString(it, "kind")
	if ik == "" && iv == "" && kind != "List" {
		ik, iv = strings.TrimSuffix(kind, "List"), apiVersion
	}
	if iv == "" || ik == "" {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + int(n.line), Column: int(n.col)}, Msg: itemWithoutKind(kind, i)})
		return
	}
	r.Objects = append(r.Objects, p.object(name, index, i, d, src, iv, ik, it))
}

// object is newObject on a fast-path tree.
func (p *fastParser) object(file string, doc, item int, d stream.Document, src *docSource, apiVersion, kind string, n int32) *Object {
	if item >= 0 && p.leanFor(apiVersion, kind, n) {
		o := &Object{File: file, Doc: doc, Item: item}
		p.name(o, apiVersion, kind, n)
		o.src = &leanBacking{docBacking: docBacking{doc: src, line: d.Line}, item: &leanItem{part: p.leanJSON(n, p.lean.Keep), schema: p.lean.Schema, group: p.group}}
		return o
	}
	o, b := newDocObject(src, d.Line)
	o.File, o.Doc, o.Item = file, doc, item
	p.name(o, apiVersion, kind, n)
	out, end := p.whole(n)
	b.json, b.marks = out[:end:end], out[end:]
	return o
}

// name sets o's apiVersion, kind, name and namespace from mapping n.
func (p *fastParser) name(o *Object, apiVersion, kind string, n int32) {
	o.APIVersion, o.Kind = apiVersion, kind
	meta := p.lookup(n, "metadata")
	o.Name, _ = p.scalar(meta, "name")
	o.Namespace, _ = p.scalar(meta, "namespace")
}

// whole is the JSON of node n followed by the marks of its fields (one
// allocation, as newObject's), and where the JSON ends.
func (p *fastParser) whole(n int32) (out []byte, end int) {
	p.json.Reset()
	p.marks = p.marks[:0]
	prev := 0
	p.mark(n, &prev)
	p.writeJSON(n, &prev)
	j, m := p.json.Bytes(), p.marks
	out = make([]byte, len(j)+len(m))
	copy(out, j)
	copy(out[len(j):], m)
	return out, len(j)
}

// mark appends the position of node n to the marks, as yamltree.AppendMarks does.
func (p *fastParser) mark(n int32, prev *int) {
	if p.noMarks {
		return
	}
	line := int(p.nodes[n].line)
	p.marks = binary.AppendVarint(p.marks, int64(line-*prev))
	p.marks = binary.AppendUvarint(p.marks, uint64(p.nodes[n].col))
	*prev = line
}

// writeJSON writes node n as writeJSON writes its yaml.v3 node, and the
// marks of its entries and elements as yamltree.AppendMarks does.
func (p *fastParser) writeJSON(n int32, prev *int) {
	b := &p.json
	switch nd := &p.nodes[n]; nd.kind {
	case fMap:
		b.WriteByte('{')
		for k := nd.first; k >= 0; {
			if k != nd.first {
				b.WriteByte(',')
			}
			yamltree.WriteStringBytes(b, p.nodes[k].val)
			b.WriteByte(':')
			p.mark(k, prev)
			v := p.nodes[k].next
			p.writeJSON(v, prev)
			k = p.nodes[v].next
		}
		b.WriteByte('}')
	case fSeq:
		b.WriteByte('[')
		for e := nd.first; e >= 0; e = p.nodes[e].next {
			if e != nd.first {
				b.WriteByte(',')
			}
			p.mark(e, prev)
			p.writeJSON(e, prev)
		}
		b.WriteByte(']')
	default:
		p.writeScalarJSON(b, nd)
	}
}

// writeScalarJSON writes scalar node nd as writeJSON writes its yaml.v3
// node.
func (p *fastParser) writeScalarJSON(b *bytes.Buffer, nd *fnode) {
	if nd.kind == fStr {
		yamltree.WriteStringBytes(b, nd.val)
		return
	}
	switch v := nd.val; {
	case len(v) > 0 && !yamltree.ResolveHint(v[0]):
		// yaml.v3 resolves it as a string without looking further,
		// and no YAML 1.1 boolean starts so.
		yamltree.WriteStringBytes(b, v)
		return
	case string(v) == "true" || string(v) == "false" || yamltree.Decimal(v):
		// A boolean, or an int yamltree.WriteScalar prints as it is written.
		b.Write(v)
		return
	case yamltree.DigitString(v), yamltree.DigitWord(v):
		yamltree.WriteStringBytes(b, v)
		return
	}
	yamltree.WriteScalar(b, &yaml.Node{Kind: yaml.ScalarNode, Value: string(nd.val)})
}
