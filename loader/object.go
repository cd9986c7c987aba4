package loader

import (
	"fmt"
	"hash/crc32"
	"runtime"
	"sync"
	"weak"

	yaml "go.yaml.in/yaml/v3"
)

// Position is a place in a source file.
type Position struct {
	File   string // as given on the command line, joined with the path inside a directory; forward slashes
	Line   int    // 1-based
	Column int    // 1-based, in Unicode code points
}

func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Ref identifies a Kubernetes object the way findings name it.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

// String is the contract's logical name: Kind/namespace/name, or Kind/name
// when the manifest names no namespace.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Object is one Kubernetes object read from a manifest.
type Object struct {
	Ref

	// File is the file the object was read from (for Kustomize output, the
	// file its origin annotation names, or the kustomization file).
	File string
	// Doc is the 0-based index of the YAML document in File; Item is the
	// index inside a List's items, or -1.
	Doc, Item int

	// node is the object's mapping node when the loader keeps it (objects
	// Kustomize builds, objects made by ObjectFromNode). Objects read from
	// files keep only their document's bytes (raw), their JSON form and
	// the positions of their fields (marks), and Tree parses raw again when
	// an error path, or a position the marks cannot give, is needed: a
	// node tree costs ten times its source.
	node *yaml.Node
	// doc is the YAML document the object was read from, shared by the
	// items of a List; Item picks the object out of it.
	doc *docSource
	// json is the object as kubectl reads it (ToJSON), made once by the
	// loader; nil when the document uses aliases or merge keys, or cannot
	// be converted, and Decode then works on the tree as it always did.
	json []byte
	// jsonErr is why a tree with aliases or merge keys has no JSON form
	// (an expansion past MaxAliasExpansion, merge keys nested too deep).
	jsonErr error
	// marks are the positions of the fields of json's tree, when it is
	// plain: Locate reads them instead of parsing the document again.
	marks marks
	// lean, for a List item read lean (Options.Lean), stands for json and
	// marks, which form makes when first asked for.
	lean *leanItem

	// src is the node tree positions are read from and its line offset; for
	// plain files it is the object's own tree.
	src      *yaml.Node
	srcFile  string
	lineBase int

	// Kustomization is set for objects built by Kustomize: the
	// kustomization file that produced them. Fields absent from the source
	// file are reported there.
	Kustomization *Position

	// kust maps fields of Kustomize output to source files, patches and
	// kustomization entries.
	kust *kustLocator
	// helm maps fields of a rendered Helm template to the template and
	// values files.
	helm *helmLocator
}

// Exactness says how well a position matches a field path.
type Exactness int

const (
	// Exact: the position is the field itself.
	Exact Exactness = iota
	// Ancestor: the field is absent; the position is its nearest existing ancestor.
	Ancestor
	// Generated: the field is absent from the source file because Kustomize
	// added it (a patch, a generator or a transformer); the position is the
	// kustomization file.
	Generated
	// Rendered: the field of a rendered Helm template could be traced to no
	// line of the template or values files; the position is the
	// template's first line of the object.
	Rendered
)

// Locate resolves a field path in apimachinery field.Path form
// (spec.template.spec.tolerations[0].value, metadata.labels[app.kubernetes.io/name])
// to a position. A map field resolves to its key, a list element to the
// element. When the field is absent, Locate returns the nearest ancestor that
// exists. For Kustomize output the position is in the file a person edits:
// the patch that set the value, the source file, or (Generated) the
// kustomization entry of the generator or transformer that made it.
func (o *Object) Locate(path string) (Position, Exactness) {
	if o.kust != nil {
		return o.kust.locate(o, path)
	}
	if o.helm != nil {
		return o.helm.locate(o, path)
	}
	steps, err := parsePath(path)
	if err != nil {
		steps = nil
	}
	if o.locatesByMarks() {
		j, ms := o.form()
		mark, depth := markAt(j, steps)
		line, col := ms.at(mark)
		exact := Exact
		if depth < len(steps) {
			exact = Ancestor
		}
		return Position{File: o.File, Line: line + o.lineBase, Column: col}, exact
	}
	return o.locateTree(steps)
}

// locateTree is Locate on the object's tree.
func (o *Object) locateTree(steps []step) (Position, Exactness) {
	root := o.src
	file := o.srcFile
	if root == nil {
		root, file = o.Tree(), o.File
	}
	n, depth := walk(root, steps)
	exact := Exact
	if depth < len(steps) {
		exact = Ancestor
		if o.Kustomization != nil {
			return *o.Kustomization, Generated
		}
	}
	if n == nil {
		return Position{File: file, Line: 1, Column: 1}, exact
	}
	if n.Line == 0 {
		// No tree (its file changed since it was read): the document's
		// first line.
		return Position{File: file, Line: o.lineBase + 1, Column: 1}, exact
	}
	return Position{File: file, Line: n.Line + o.lineBase, Column: n.Column}, exact
}

// LocateValue is Locate pointing at the field's value instead of its key
// (in lun: "abc", at the "abc"): where a person fixes a value of the wrong
// type. Where the value's own place is not known (a rendered Helm
// template, a field a Kustomize patch or transformer set, a list element,
// which Locate gives itself) it is Locate's position.
func (o *Object) LocateValue(path string) (Position, Exactness) {
	pos, exact := o.Locate(path)
	if exact != Exact || path == "" || o.helm != nil {
		return pos, exact
	}
	steps, err := parsePath(path)
	if err != nil || len(steps) == 0 || steps[len(steps)-1].index >= 0 {
		return pos, exact
	}
	if o.kust != nil {
		// The source file or the strategic-merge patch Locate chose.
		srcs := []*source{o.kust.base}
		for _, p := range o.kust.patches {
			srcs = append(srcs, p.smp)
		}
		for _, src := range srcs {
			if src == nil || src.flat != nil || src.file != pos.File {
				continue
			}
			mark, val, depth := walkGuided(src.node, o.Tree(), steps)
			if depth == len(steps) && val != nil && src.pos(mark) == pos {
				return src.pos(val), exact
			}
		}
		return pos, exact
	}
	root, file := o.src, o.srcFile
	if root == nil {
		root, file = o.Tree(), o.File
	}
	mark, depth := walk(root, steps)
	val, _ := walkValue(root, steps)
	if depth != len(steps) || val == nil || file != pos.File || mark.Line+o.lineBase != pos.Line || mark.Column != pos.Column {
		return pos, exact
	}
	return Position{File: file, Line: val.Line + o.lineBase, Column: val.Column}, exact
}

// LocateAll is Locate for several fields of o at once: when o's positions
// come from its document's tree (parsed again on demand and otherwise let
// go of), the tree is parsed once for all of them.
func (o *Object) LocateAll(paths []string) ([]Position, []Exactness) {
	var hold *yaml.Node
	if !o.locatesByMarks() && len(paths) > 1 {
		hold = o.Tree() // kept alive until the last path is located
	}
	pos := make([]Position, len(paths))
	exact := make([]Exactness, len(paths))
	for i, p := range paths {
		pos[i], exact[i] = o.Locate(p)
	}
	runtime.KeepAlive(hold)
	return pos, exact
}

// locatesByMarks reports whether Locate reads o's positions from its marks:
// an object read from a file, not one Kustomize built.
func (o *Object) locatesByMarks() bool {
	_, ms := o.form()
	return ms != nil && o.src == nil && o.kust == nil && o.helm == nil && o.Kustomization == nil
}

// Pos is the position of the object itself.
func (o *Object) Pos() Position {
	p, _ := o.Locate("")
	return p
}

// ObjectFromNode makes an Object of a mapping node, named from its
// apiVersion, kind and metadata, for objects that come from no file.
func ObjectFromNode(file string, n *yaml.Node) *Object {
	n = deref(n)
	o := &Object{File: file, Item: -1, node: n}
	o.APIVersion, _ = scalar(n, "apiVersion")
	o.Kind, _ = scalar(n, "kind")
	_, meta := lookup(n, "metadata", 0)
	meta = deref(meta)
	o.Name, _ = scalar(meta, "name")
	o.Namespace, _ = scalar(meta, "namespace")
	return o
}

// Tree is the object's mapping node: the content as YAML, with positions.
// For objects read from files it is parsed again from the document's bytes
// when asked for, and kept only while someone holds it; callers must not
// modify it.
func (o *Object) Tree() *yaml.Node {
	if o.node != nil {
		return o.node
	}
	empty := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if o.doc == nil {
		return empty
	}
	root := o.doc.tree()
	if root != nil && o.Item >= 0 {
		_, v := lookup(root, "items", 0)
		if v = deref(v); v == nil || v.Kind != yaml.SequenceNode || o.Item >= len(v.Content) {
			return empty
		}
		root = deref(v.Content[o.Item])
	}
	if root == nil {
		return empty // cannot happen: the same bytes parsed before
	}
	return root
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
	if raw == nil || parseYAML(raw, &doc) != nil {
		return nil
	}
	n := deref(&doc)
	if n != nil {
		dropDuplicateKeys(n) // as the loader did: the last value counts
		d.root = weak.Make(n)
		if d.keep {
			d.strong = n
		}
	}
	return n
}

// JSON is the object as kubectl reads it: ToJSON of its tree.
func (o *Object) JSON() ([]byte, error) {
	if j, _ := o.form(); j != nil {
		return j, nil
	}
	if o.jsonErr != nil {
		return nil, o.jsonErr
	}
	return ToJSON(o.Tree())
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
	f, err := openFile(r.path)
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
		d := o.doc
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
