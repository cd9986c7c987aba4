package loader

import (
	"fmt"
	"runtime"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
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

	// src is where the object's content and the positions of its fields
	// come from (backing.go): a document read from a file or standard
	// input, an item of a List read lean, Kustomize output or a rendered
	// Helm template. The methods below ask it and never look at which it
	// is.
	src backing
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
	// CommandLine: the field of a rendered Helm template holds a value a
	// --set assignment gave; the position is the template line that
	// prints it.
	CommandLine
)

// Locate resolves a field path in apimachinery field.Path form
// (spec.template.spec.tolerations[0].value, metadata.labels[app.kubernetes.io/name])
// to a position. A map field resolves to its key, a list element to the
// element. When the field is absent, Locate returns the nearest ancestor that
// exists. For Kustomize output the position is in the file a person edits:
// the patch that set the value, the source file, or (Generated) the
// kustomization entry of the generator or transformer that made it.
func (o *Object) Locate(path string) (Position, Exactness) {
	return o.src.locate(o, path)
}

// LocateValue is Locate pointing at the field's value instead of its key
// (in lun: "abc", at the "abc"): where a person fixes a value of the wrong
// type. Where the value's own place is not known (a rendered Helm
// template, a field a Kustomize patch or transformer set, a list element,
// which Locate gives itself) it is Locate's position.
func (o *Object) LocateValue(path string) (Position, Exactness) {
	pos, exact := o.Locate(path)
	if exact != Exact || path == "" {
		return pos, exact
	}
	steps, err := jsonscan.ParsePath(path)
	if err != nil || len(steps) == 0 || steps[len(steps)-1].Index >= 0 {
		return pos, exact
	}
	return o.src.locateValue(o, steps, pos), exact
}

// LocateAll is Locate for several fields of o at once: when o's positions
// come from its document's tree (parsed again on demand and otherwise let
// go of), the tree is parsed once for all of them.
func (o *Object) LocateAll(paths []string) ([]Position, []Exactness) {
	var hold *yaml.Node
	if len(paths) > 1 && o.src.locatesByTree(o) {
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

// Source says where the object comes from: "file" (a file or standard
// input, as written), "kustomize" (a Kustomize build's output) or "helm"
// (a rendered Helm chart).
func (o *Object) Source() string { return o.src.source() }

// Pos is the position of the object itself.
func (o *Object) Pos() Position {
	p, _ := o.Locate("")
	return p
}

// refOf names the object of mapping node n.
func refOf(n *yaml.Node) Ref { return Ref(yamltree.RefOf(n)) }

// Tree is the object's mapping node: the content as YAML, with positions.
// For objects read from files it is parsed again from the document's bytes
// when asked for, and kept only while someone holds it; callers must not
// modify it.
func (o *Object) Tree() *yaml.Node {
	if n := o.src.tree(o); n != nil {
		return n
	}
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
}

// JSON is the object as kubectl reads it: ToJSON of its tree.
func (o *Object) JSON() ([]byte, error) {
	if j, _ := o.src.form(o); j != nil {
		return j, nil
	}
	if err := o.src.jsonErr(); err != nil {
		return nil, err
	}
	return ToJSON(o.Tree())
}

// form is the object's JSON and the positions of its fields in it, when
// the loader keeps them (nil: work on the tree).
func (o *Object) form() ([]byte, yamltree.Marks) { return o.src.form(o) }
