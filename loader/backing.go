package loader

import (
	"hash/crc32"
	"sync"
	"weak"

	yaml "go.yaml.in/yaml/v3"

	"github.com/taintlint/taintlint/internal/safeio"
	"github.com/taintlint/taintlint/loader/internal/fastyaml"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// backing is where an Object's content and the positions of its fields
// come from. There is one implementation per way an object is read: a
// document of a file or of standard input (docBacking), an item of a List
// read lean (leanBacking), Kustomize output (kustBacking) and a rendered
// Helm template (helmBacking). Object's
// methods ask the backing; nothing outside this file and the backings'
// own looks at which one an object has.
type backing interface {
	// form is the object's JSON as kubectl reads it and the positions of
	// its fields in that JSON (marks), when the backing keeps them; nil
	// JSON means the object is read from its tree.
	form(o *Object) ([]byte, yamltree.Marks)
	// jsonErr is why an object read from its tree has no JSON form (an
	// alias expansion past yamltree.MaxAliasExpansion), or nil.
	jsonErr() error
	// tree is the object's mapping node, or nil when it cannot be had.
	tree(o *Object) *yaml.Node
	// locate is Object.Locate.
	locate(o *Object, path string) (Position, Exactness)
	// locateValue is where the value of the field at steps (a map member)
	// is, given pos, the exact position Locate gave its key.
	locateValue(o *Object, steps []step, pos Position) Position
	// locatesByTree reports whether Locate reads the object's tree, which
	// LocateAll then holds for all its paths.
	locatesByTree(o *Object) bool
	// document is the document the object was read from, whose bytes the
	// loader may let go of (releaseDocs); nil for Kustomize output.
	document() *docSource
	// docLine is the 0-based line of the object's document in its file.
	docLine() int
	// source is where the object comes from, as Object.Source says.
	source() string
}

// docBacking is an object read from a document of a file or of standard
// input: the document's bytes (let go of once read, and read again for
// the rare tree), the object's JSON and the positions of its fields.
type docBacking struct {
	// doc is the YAML document the object was read from, shared by the
	// items of a List; Object.Item picks the object out of it.
	doc *docSource
	// json is the object as kubectl reads it (ToJSON), made once by the
	// loader; nil when the document uses aliases or merge keys, or cannot
	// be converted, and Decode then works on the tree.
	json []byte
	// err is why a tree with aliases or merge keys has no JSON form (an
	// expansion past yamltree.MaxAliasExpansion, merge keys nested too deep).
	err error
	// marks are the positions of the fields of json's tree, when it is
	// plain: Locate reads them instead of parsing the document again.
	marks yamltree.Marks
	// line is the 0-based line of the document in its file.
	line int
}

// docObject is an Object read from a document with its backing, made in
// one allocation: most objects of a run are such, and a second
// allocation for each cost the large corpus time and memory.
type docObject struct {
	Object
	b docBacking
}

// newDocObject is an Object of the document src, whose 0-based first line
// is line, backed by the docBacking it returns for the caller to fill.
func newDocObject(src *docSource, line int) (*Object, *docBacking) {
	do := &docObject{b: docBacking{doc: src, line: line}}
	do.src = &do.b
	return &do.Object, &do.b
}

func (b *docBacking) form(*Object) ([]byte, yamltree.Marks) { return b.json, b.marks }
func (b *docBacking) jsonErr() error                        { return b.err }
func (b *docBacking) document() *docSource                  { return b.doc }
func (b *docBacking) docLine() int                          { return b.line }
func (b *docBacking) source() string                        { return "file" }

func (b *docBacking) tree(o *Object) *yaml.Node {
	if b.doc == nil {
		return nil
	}
	root := b.doc.tree()
	if root != nil && o.Item >= 0 {
		v := yamltree.Deref(yamltree.ValueOf(root, "items"))
		if v == nil || v.Kind != yaml.SequenceNode || o.Item >= len(v.Content) {
			return nil
		}
		root = yamltree.Deref(v.Content[o.Item])
	}
	return root // nil cannot happen: the same bytes parsed before
}

func (b *docBacking) locate(o *Object, path string) (Position, Exactness) {
	return b.locateIn(o, path, b.marks)
}

func (b *docBacking) locatesByTree(*Object) bool { return b.marks == nil }

func (b *docBacking) locateValue(o *Object, steps []step, pos Position) Position {
	return valueInTree(o.Tree(), o.File, b.line, steps, pos)
}

// locateIn is Locate by ms, the object's marks, or by its tree when it
// has none.
func (b *docBacking) locateIn(o *Object, path string, ms yamltree.Marks) (Position, Exactness) {
	steps, err := jsonscan.ParsePath(path)
	if err != nil {
		steps = nil
	}
	if ms == nil {
		return locateTree(o.Tree(), o.File, b.line, steps)
	}
	j, _ := o.form()
	mark, depth := yamltree.MarkAt(j, steps)
	line, col := ms.At(mark)
	exact := Exact
	if depth < len(steps) {
		exact = Ancestor
	}
	return Position{File: o.File, Line: line + b.line, Column: col}, exact
}

// leanBacking is an item of a List read lean (Options.Lean): it keeps the
// JSON of a few members, and its whole JSON and marks are made from its
// List the first time anything asks for them.
type leanBacking struct {
	docBacking
	item *fastyaml.LeanItem
}

func (b *leanBacking) form(o *Object) ([]byte, yamltree.Marks) { return b.item.Form(o.Item) }

func (b *leanBacking) locate(o *Object, path string) (Position, Exactness) {
	_, ms := b.form(o)
	return b.locateIn(o, path, ms)
}

func (b *leanBacking) locatesByTree(o *Object) bool {
	_, ms := b.form(o)
	return ms == nil
}

// locateTree is Locate on root, the tree of an object of file whose
// document starts at the 0-based line base.
func locateTree(root *yaml.Node, file string, base int, steps []step) (Position, Exactness) {
	n, depth := yamltree.Walk(root, steps)
	exact := Exact
	if depth < len(steps) {
		exact = Ancestor
	}
	if n == nil {
		return Position{File: file, Line: 1, Column: 1}, exact
	}
	if n.Line == 0 {
		// No tree (its file changed since it was read): the document's
		// first line.
		return Position{File: file, Line: base + 1, Column: 1}, exact
	}
	return Position{File: file, Line: n.Line + base, Column: n.Column}, exact
}

// valueInTree is locateValue on root, the tree of an object of file whose
// document starts at the 0-based line base: the value's position when pos
// is its key's.
func valueInTree(root *yaml.Node, file string, base int, steps []step, pos Position) Position {
	mark, depth := yamltree.Walk(root, steps)
	val, _ := yamltree.WalkValue(root, steps)
	if depth != len(steps) || val == nil || file != pos.File || mark.Line+base != pos.Line || mark.Column != pos.Column {
		return pos
	}
	return Position{File: file, Line: val.Line + base, Column: val.Column}
}

// docSource is a document the loader parsed and let go of: its bytes, and
// its tree while someone holds it. The tree of a one-object document is
// held weakly: the positions of a finding and its related places come
// close together (LocateAll), so a tree parsed again for one usually
// serves the next too, yet the trees of a run with many findings do not
// pile up (a tree costs ten times its source) — the garbage collector
// takes them back. The tree of a List is kept once
// parsed: its items (a node inventory from kubectl get nodes -o yaml) are
// asked for one by one, and parsing the whole List again for each would
// cost far more than keeping it.
//
// The bytes of a document read from a file are not kept either: the
// loader records where they are in the file (onDisk), and the rare tree
// reads them again. Only documents from standard input, or made in
// memory (rendered templates, Kustomize inputs), keep raw.
type docSource struct {
	raw    []byte
	disk   *diskRange // where raw was read from, once raw is let go of
	keep   bool       // a List of several objects: keep the tree
	mu     sync.Mutex
	root   weak.Pointer[yaml.Node]
	strong *yaml.Node // the tree, when keep
}

func (d *docSource) tree() *yaml.Node {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := d.root.Value(); n != nil {
		return n
	}
	raw := d.raw
	if raw == nil && d.disk != nil {
		raw = d.disk.read()
	}
	var doc yaml.Node
	if raw == nil || yamltree.Unmarshal(raw, &doc) != nil {
		return nil
	}
	n := yamltree.Deref(&doc)
	if n != nil {
		dropDuplicateKeys(n) // as the loader did: the last value counts
		d.root = weak.Make(n)
		if d.keep {
			d.strong = n
		}
	}
	return n
}

// diskRange is where a document's bytes sit in a file, with their length
// and checksum, so that a file changed since the run read it gives no
// tree rather than the tree of other bytes.
type diskRange struct {
	path string
	off  int64
	n    int
	sum  uint32
}

// read reads the range again; nil when the file cannot be read or no
// longer holds the same bytes there.
func (r *diskRange) read() []byte {
	f, err := safeio.OpenNonBlocking(r.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data := make([]byte, r.n)
	if _, err := f.ReadAt(data, r.off); err != nil || crc32.ChecksumIEEE(data) != r.sum {
		return nil
	}
	return data
}

// releaseDocs lets go of the bytes of the documents of objs read from
// data, the whole content of the file at path: each keeps where its bytes
// are in the file instead, so the file's bytes are not held for the run.
func releaseDocs(objs []*Object, path string, data []byte) {
	for _, o := range objs {
		d := o.src.document()
		if d == nil || d.raw == nil || len(d.raw) == 0 {
			continue
		}
		// d.raw is a slice of data (the document split out of it): its
		// offset is where its capacity starts within data's.
		off := cap(data) - cap(d.raw)
		if off < 0 || off+len(d.raw) > len(data) || &data[off] != &d.raw[0] {
			continue // not from data: keep it
		}
		d.disk = &diskRange{path: path, off: int64(off), n: len(d.raw), sum: crc32.ChecksumIEEE(d.raw)}
		d.raw = nil
	}
}
