// Package kusttree is the Kustomize tree side of the loader: it finds the
// kustomization roots to build and the Components left over, reads a
// kustomization and every local one it reaches before kustomize runs (to
// refuse what must never run and name the lines of remote references and
// of kustomize's errors), and maps each object kustomize builds
// (loader/internal/kustomize) back to the source file, patch or entry a
// person edits. It parses manifests with the loader's own parser, handed
// in as Hooks, so positions and errors are the loader's.
package kusttree

import (
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// Step is one step of a field path.
type Step = jsonscan.Step

// Position is a place in a file, as the loader's Position.
type Position struct {
	File         string
	Line, Column int
}

// Error is a problem at a position, as the loader's Error.
type Error struct {
	Pos Position
	Msg string
}

// Exactness says how well a position matches a field path (the loader's
// Exact, Ancestor and Generated).
type Exactness int

const (
	Exact     Exactness = iota // the field itself
	Ancestor                   // the field's nearest existing ancestor
	Generated                  // the entry or kustomization that added the field
)

// Source is an object of a parsed source file, as the loader read it.
type Source struct {
	Kind, Name string
	File       string
	Doc, Item  int
	Line       int               // the first line of its document, less one
	Pos        func() Position   // the object's own position
	Tree       func() *yaml.Node // its mapping node, parsed on demand
}

// Parsed is what the loader read from one file.
type Parsed struct {
	Objects []Source
	Errors  []*Error
}

// Hooks are what the tree side needs of the loader: its parser, and the
// walk's ignore rule (nil: nothing ignored) when looking for
// kustomizations.
type Hooks struct {
	Parse  func(name string, data []byte) *Parsed
	Ignore func(path string, dir bool) bool
}

// Object is one object of a build's output: its tree, where it is
// reported (File, Doc, Item as the loader's Object), and how its fields
// are located.
type Object struct {
	Node      *yaml.Node
	File      string
	Doc, Item int
	Loc       *Locator
}
