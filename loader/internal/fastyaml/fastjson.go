package fastyaml

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
)

// lookup is the value of key in mapping m, or -1.
func (p *Parser) lookup(m int32, key string) int32 {
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

// scalar is yamltree.Scalar on a fast-path tree: the
// value of key in m, and whether it is a scalar other than null.
func (p *Parser) scalar(m int32, key string) (string, bool) {
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

// kubectlString is the loader's kubectlString on a fast-path
// tree: the value of key in m when kubectl reads it as a string, or "".
func (p *Parser) kubectlString(m int32, key string) string {
	v := p.lookup(m, key)
	if v < 0 {
		return ""
	}
	switch n := &p.nodes[v]; {
	case n.kind == fStr, n.kind == fPlain && yamltree.PlainIsString(string(n.val)):
		return string(n.val)
	}
	return ""
}

// Doc is what the fast path read of a document: its objects, the errors
// kubectl would find in it, and how many documents it skipped (no
// apiVersion or kind). The loader makes its Objects from it: the fast
// path knows YAML, not objects.
type Doc struct {
	Objects []Object
	Errors  []Error
	Skipped int
	// Keep: the document is a List of several objects, whose tree the
	// loader keeps once it parses it again (docSource.keep).
	Keep bool
}

// Object is an object the fast path read: its name, its List index (-1
// for the document's own object), and either its JSON and the marks of
// its fields or, read lean, the few members it keeps.
type Object struct {
	APIVersion, Kind, Name, Namespace string
	Item                              int
	JSON                              []byte
	Marks                             yamltree.Marks
	Lean                              *LeanItem
}

// Error is an error the fast path found where kubectl would: a 1-based
// line of the file (the document's first line added) and column.
type Error struct {
	Line, Column int
	Msg          string
}

// Read is the Doc of document d, which Parse read: p's own, valid
// until p reads the next document.
func (p *Parser) Read(d stream.Document) *Doc {
	p.out.Objects, p.out.Errors, p.out.Skipped, p.out.Keep = p.out.Objects[:0], p.out.Errors[:0], 0, false
	p.add(&p.out, d)
	return &p.out
}

// add adds the objects of the document Parse read to out, as the
// loader's addDocument adds them from yaml.v3's tree.
func (p *Parser) add(out *Doc, d stream.Document) {
	if len(p.nodes) == 0 {
		return // comments only
	}
	apiVersion, kind := p.kubectlString(0, "apiVersion"), p.kubectlString(0, "kind")
	if apiVersion == "" || kind == "" {
		out.Skipped++
		return
	}
	items := p.lookup(0, "items")
	if n := &p.nodes[max(items, 0)]; items >= 0 && n.kind != fSeq && !(n.kind == fPlain && plainNull(n.val)) {
		out.Errors = append(out.Errors, Error{Line: d.Line + int(n.line), Column: int(n.col), Msg: kind + ": " + yamltree.NotItemsMsg})
		return
	}
	if items >= 0 { // a list, whatever its kind (listItems)
		if p.nodes[items].kind == fSeq {
			count := 0
			for it := p.nodes[items].first; it >= 0; it = p.nodes[it].next {
				count++
			}
			out.Keep = count > 1
			if p.lean != nil {
				p.group = &leanGroup{data: d.Data, whole: true}
				defer func() { p.group = nil }()
			}
			i := 0
			for it := p.nodes[items].first; it >= 0; it, i = p.nodes[it].next, i+1 {
				p.addItem(out, d, apiVersion, kind, i, it)
			}
		}
		return // items null: none
	}
	out.Objects = append(out.Objects, p.object(-1, apiVersion, kind, 0))
}

// addItem adds item i, node it, of a List document of apiVersion and
// kind, as the loader's addDocument adds it from yaml.v3's tree.
func (p *Parser) addItem(out *Doc, d stream.Document, apiVersion, kind string, i int, it int32) {
	n := &p.nodes[it]
	if null := n.kind == fPlain && plainNull(n.val); null && yamltree.ItemKind(kind) != "" {
		// unstructured's decodeToList reads a null item as an object
		// with no fields, which then takes its List's kind.
		it = p.node(fMap, int(n.line), int(n.col))
		n = &p.nodes[it]
	} else if null {
		out.Errors = append(out.Errors, Error{Line: d.Line + int(n.line), Column: int(n.col), Msg: yamltree.ItemWithoutKind(kind, i)})
		return
	}
	if n.kind != fMap {
		out.Errors = append(out.Errors, Error{Line: d.Line + int(n.line), Column: int(n.col), Msg: fmt.Sprintf("%s item %d is not an object", kind, i)})
		return
	}
	iv, ik := p.kubectlString(it, "apiVersion"), p.kubectlString(it, "kind")
	if ik == "" && iv == "" {
		ik, iv = yamltree.ItemKind(kind), apiVersion
	}
	if iv == "" || ik == "" {
		out.Errors = append(out.Errors, Error{Line: d.Line + int(n.line), Column: int(n.col), Msg: yamltree.ItemWithoutKind(kind, i)})
		return
	}
	out.Objects = append(out.Objects, p.object(i, iv, ik, it))
}

// object is the Object of mapping n, item of its List (-1: none): lean
// when p.lean names it and it fits, else with its JSON and marks.
func (p *Parser) object(item int, apiVersion, kind string, n int32) Object {
	o := Object{APIVersion: apiVersion, Kind: kind, Item: item}
	meta := p.lookup(n, "metadata")
	o.Name, _ = p.scalar(meta, "name")
	o.Namespace, _ = p.scalar(meta, "namespace")
	if item >= 0 && p.leanFor(apiVersion, kind, n) {
		o.Lean = &LeanItem{Part: p.leanJSON(n, p.lean.Keep), Schema: p.lean.Schema, group: p.group}
		return o
	}
	out, end := p.whole(n)
	o.JSON, o.Marks = out[:end:end], out[end:]
	return o
}

// whole is the JSON of node n followed by the marks of its fields (one
// allocation, as the loader's newObject makes), and where the JSON ends.
func (p *Parser) whole(n int32) (out []byte, end int) {
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
func (p *Parser) mark(n int32, prev *int) {
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
func (p *Parser) writeJSON(n int32, prev *int) {
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
func (p *Parser) writeScalarJSON(b *bytes.Buffer, nd *fnode) {
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
