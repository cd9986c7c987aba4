package loader

import (
	"context"

	"github.com/taintlint/taintlint/loader/internal/kustomize"
	"github.com/taintlint/taintlint/loader/internal/kusttree"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
)

// kustHooks hand the Kustomize tree side (internal/kusttree) the loader's
// parser, so source objects and parse errors are read as every file is,
// and the walk's ignore rule.
func kustHooks(opts Options) kusttree.Hooks {
	return kusttree.Hooks{Parse: parseSources, Ignore: opts.Ignore}
}

// parseSources is Parse as kusttree's source values.
func parseSources(name string, data []byte) *kusttree.Parsed {
	r := Parse(name, data)
	p := &kusttree.Parsed{Objects: make([]kusttree.Source, len(r.Objects))}
	for i, o := range r.Objects {
		p.Objects[i] = kusttree.Source{
			Kind: o.Kind, Name: o.Name, File: o.File, Doc: o.Doc, Item: o.Item,
			Line: o.src.docLine(),
			Pos:  func() kusttree.Position { return kusttree.Position(o.Pos()) },
			Tree: o.Tree,
		}
	}
	for _, e := range r.Errors {
		p.Errors = append(p.Errors, &kusttree.Error{Pos: kusttree.Position(e.Pos), Msg: e.Msg})
	}
	return p
}

// buildKustomization builds the kustomization root in dir with
// internal/kusttree (which reads the tree and maps the output back to its
// sources) and turns its output into Objects located by the tree.
func buildKustomization(ctx context.Context, dir, name string, opts Options) *Result {
	out := kusttree.Build(ctx, dir, name, kustHooks(opts), kustomize.Options{
		AllowRemote: opts.AllowRemote, EnableHelm: opts.EnableHelm, Budget: opts.Budget.input(),
		Timeout: opts.Limits.KustomizeTimeout, MaxObjects: opts.Limits.KustomizeObjects,
	})
	r := &Result{Files: out.Files, Errors: kustErrors(out.Errors)}
	if out.Limit != "" {
		r.fatal = &LimitError{Name: name, Msg: out.Limit}
	}
	for _, e := range kustErrors(out.Remote) {
		r.Notes = append(r.Notes, e.Error())
	}
	if out.Read != nil {
		r.included = map[string]bool{}
		for _, p := range out.Read {
			r.included[canonicalPath(p)] = true
		}
	}
	for _, o := range out.Objects {
		r.Objects = append(r.Objects, &Object{Ref: refOf(o.Node), File: o.File, Doc: o.Doc, Item: o.Item,
			src: &kustBacking{node: o.Node, loc: o.Loc}})
	}
	return r
}

func kustErrors(errs []*kusttree.Error) []*Error {
	var out []*Error
	for _, e := range errs {
		out = append(out, &Error{Pos: Position(e.Pos), Msg: e.Msg})
	}
	return out
}

// kustBacking is an object of Kustomize output: its tree, located by the
// kustomization's sources, patches and entries (kusttree.Locator).
type kustBacking struct {
	node *yaml.Node
	loc  *kusttree.Locator
}

// kustExactness is the Exactness of each of kusttree's.
var kustExactness = [...]Exactness{
	kusttree.Exact:     Exact,
	kusttree.Ancestor:  Ancestor,
	kusttree.Generated: Generated,
}

func (b *kustBacking) form(*Object) ([]byte, yamltree.Marks) { return nil, nil }

func (b *kustBacking) jsonErr() error { return nil }

func (b *kustBacking) tree(*Object) *yaml.Node { return b.node }

func (b *kustBacking) locatesByTree(*Object) bool { return true }

func (b *kustBacking) document() *docSource { return nil }

func (b *kustBacking) docLine() int { return 0 }

func (b *kustBacking) source() string { return "kustomize" }

func (b *kustBacking) locate(_ *Object, path string) (Position, Exactness) {
	pos, exact := b.loc.Locate(b.node, path)
	return Position(pos), kustExactness[exact]
}

// locateValue is the value's place in the source file or the
// strategic-merge patch locate chose, when that is where its key is.
func (b *kustBacking) locateValue(_ *Object, steps []step, pos Position) Position {
	return Position(b.loc.LocateValue(b.node, steps, kusttree.Position(pos)))
}
