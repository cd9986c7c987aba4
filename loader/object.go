package loader

import (
	"fmt"

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

	// Node is the object's mapping node: the content rules read.
	Node *yaml.Node

	// src is the node tree positions are read from and its line offset; for
	// plain files it is Node itself.
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
	root := o.src
	file := o.srcFile
	if root == nil {
		root, file = o.Node, o.File
	}
	steps, err := parsePath(path)
	if err != nil {
		steps = nil
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
	return Position{File: file, Line: n.Line + o.lineBase, Column: n.Column}, exact
}

// Pos is the position of the object itself.
func (o *Object) Pos() Position {
	p, _ := o.Locate("")
	return p
}
