package loader

import (
	"context"

	"github.com/taintlint/taintlint/loader/internal/helmchart"
)

// HelmOptions are the `helm template` settings charts are rendered with.
type HelmOptions struct {
	// ValuesFiles are read in order over the chart's values.yaml, for
	// every chart (helm template --values).
	ValuesFiles []string
	// Set are helm template --set assignments, applied after the files.
	Set []string
	// Chart returns the values files and --set assignments for the chart
	// at path (as named on the command line or found in a walk): the
	// files are read before ValuesFiles, the assignments applied before
	// Set.
	Chart func(path string) (values, set []string)
	// ReleaseName and Namespace default to helm template's "release-name"
	// and "default".
	ReleaseName, Namespace string
	// KubeVersion is .Capabilities.KubeVersion (default v1.37.0, the
	// Kubernetes version taintlint follows); APIVersions are added to
	// .Capabilities.APIVersions.
	KubeVersion string
	APIVersions []string
}

// renderChart renders the chart at p (a directory or an archive), named
// name in positions, with internal/helmchart, and reads each rendered
// template as a file whose objects are located in the chart's files.
func renderChart(ctx context.Context, p, name string, opts Options) *Result {
	c := helmchart.Render(ctx, p, name, helmchart.Options{
		Settings: helmchart.Settings(opts.Helm), Root: opts.Root, Budget: opts.Budget.input(),
		Timeout: opts.Limits.HelmTimeout, MaxMemory: opts.Limits.HelmMemory,
	})
	if c.Fatal != nil {
		return &Result{fatal: &LimitError{Name: c.Fatal.Name, Msg: c.Fatal.Msg}}
	}
	r := &Result{Files: c.Files, Notes: c.Notes, Skipped: c.Skipped}
	for _, e := range c.Errors {
		r.Errors = append(r.Errors, &Error{Pos: Position(e.Pos), Msg: e.Msg})
	}
	for _, t := range c.Templates {
		if t.Err != "" {
			r.Errors = append(r.Errors, &Error{Pos: Position{File: t.Name, Line: 1, Column: 1}, Msg: t.Err})
			continue
		}
		pr := Parse(t.Name, t.Out)
		for _, o := range pr.Objects {
			o.src = &helmBacking{backing: o.src, loc: t.Loc}
		}
		for _, e := range pr.Errors {
			e.Pos, e.Msg = Position(t.Loc.ErrorPos(helmchart.Position(e.Pos))), e.Msg+" (in the rendered template)"
		}
		r.Objects = append(r.Objects, pr.Objects...)
		r.Errors = append(r.Errors, pr.Errors...)
		r.Skipped += pr.Skipped
	}
	return r
}

// helmBacking is an object of a rendered Helm template: read as any
// document (docBacking), located in the chart's files.
type helmBacking struct {
	backing
	loc *helmchart.Locator
}

// helmExactness is the Exactness of each of helmchart's.
var helmExactness = [...]Exactness{
	helmchart.Exact:       Exact,
	helmchart.Ancestor:    Ancestor,
	helmchart.Rendered:    Rendered,
	helmchart.CommandLine: CommandLine,
}

func (b *helmBacking) locate(o *Object, path string) (Position, Exactness) {
	pos, exact := b.loc.Locate(o.Tree(), b.docLine(), path)
	return Position(pos), helmExactness[exact]
}

// locateValue: a rendered value's own place is not known; its key's is
// where a person looks.
func (b *helmBacking) locateValue(_ *Object, _ []step, pos Position) Position { return pos }

func (b *helmBacking) source() string { return "helm" }

// locatesByTree: the locator reads the rendered tree.
func (b *helmBacking) locatesByTree(*Object) bool { return true }
