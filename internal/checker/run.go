package checker

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// RunRules runs the selected rules on in, each after the prerequisites it
// requires, and returns their findings located in the sources, in no
// particular order. Rules that need a node inventory do not run without
// one. The error is the first rule or prerequisite that broke, by message.
func RunRules(ctx context.Context, selected []*rules.Rule, in *rules.Input) ([]rules.Finding, error) {
	return runRules(ctx, selected, in, nil)
}

// runRules is RunRules with the results of some prerequisites already
// known (seeded): those are not computed again.
func runRules(ctx context.Context, selected []*rules.Rule, in *rules.Input, seeded map[*rules.Prerequisite]any) ([]rules.Finding, error) {
	var run []*rules.Rule
	ids := make(map[string]bool, len(selected))
	for _, r := range selected {
		ids[r.ID] = true
		if !r.NeedsInventory || in.HasInventory() {
			run = append(run, r)
		}
	}
	runs := func(id string) bool { return ids[id] }
	g := newPrereqGraph(run)

	var (
		mu    sync.Mutex
		diags []diagnostic
		errs  []error
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	// Prerequisites start at once and wait for theirs; each parallelizes
	// its own work, so they are not counted against the rules' cores.
	for _, p := range g.order {
		if val, ok := seeded[p]; ok {
			g.release(p.Requires)
			g.finish(p, val, nil)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var val any
			resultOf, err := g.wait(ctx, p.Requires)
			if err == nil {
				if val, err = safePrereq(p, rules.NewPrereqPass(in, resultOf, g.dependents[p], runs)); err != nil {
					err = fmt.Errorf("%s: %w", p.Name, err)
				}
			}
			g.release(p.Requires)
			g.finish(p, val, err)
		}()
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, r := range run {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resultOf, err := g.wait(ctx, r.Requires)
			defer g.release(r.Requires)
			if err != nil {
				fail(fmt.Errorf("rule %s: %w", r.ID, err))
				return
			}
			if ctx.Err() != nil {
				return
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			var local []diagnostic
			err = safeRun(r, rules.NewPass(r, in, resultOf, runs, func(d rules.Diagnostic) {
				local = append(local, diagnostic{rule: r, Diagnostic: d})
			}))
			mu.Lock()
			defer mu.Unlock()
			diags = append(diags, local...)
			if err != nil {
				errs = append(errs, fmt.Errorf("rule %s: %w", r.ID, err))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return nil, errs[0]
	}
	return locate(ctx, diags), ctx.Err()
}

// diagnostic is a rule's diagnostic, not yet located.
type diagnostic struct {
	rule *rules.Rule
	rules.Diagnostic
}

// future is a prerequisite's result, ready when done is closed.
type future struct {
	done chan struct{}
	val  any
	err  error
	// users counts the rules and prerequisites of the run still to read
	// val; the last one lets go of it.
	users int
}

// prereqGraph is every prerequisite the rules of a run need, directly or
// through others.
type prereqGraph struct {
	order      []*rules.Prerequisite
	futures    map[*rules.Prerequisite]*future
	dependents map[*rules.Prerequisite][]*rules.Rule
	mu         sync.Mutex
}

func newPrereqGraph(run []*rules.Rule) *prereqGraph {
	g := &prereqGraph{futures: map[*rules.Prerequisite]*future{}, dependents: map[*rules.Prerequisite][]*rules.Rule{}}
	var needs func(r *rules.Rule, ps []*rules.Prerequisite)
	needs = func(r *rules.Rule, ps []*rules.Prerequisite) {
		for _, p := range ps {
			if deps := g.dependents[p]; len(deps) == 0 || deps[len(deps)-1] != r {
				g.dependents[p] = append(deps, r)
			}
			needs(r, p.Requires)
		}
	}
	for _, r := range run {
		for _, p := range r.Requires {
			g.use(p)
		}
		needs(r, r.Requires)
	}
	for _, deps := range g.dependents {
		sort.Slice(deps, func(i, j int) bool { return deps[i].ID < deps[j].ID })
	}
	return g
}

// use counts one more reader of p's result, and makes p's future (and
// counts p as a reader of its own prerequisites) on first use.
func (g *prereqGraph) use(p *rules.Prerequisite) {
	f := g.futures[p]
	if f == nil {
		f = &future{done: make(chan struct{})}
		g.futures[p] = f
		g.order = append(g.order, p)
		for _, q := range p.Requires {
			g.use(q)
		}
	}
	f.users++
}

// finish stores p's result, unless no reader is left (a cancelled run).
func (g *prereqGraph) finish(p *rules.Prerequisite, val any, err error) {
	f := g.futures[p]
	g.mu.Lock()
	if f.users > 0 {
		f.val = val
	}
	f.err = err
	g.mu.Unlock()
	close(f.done)
}

// wait returns the results of ps once they are ready, or the first error.
func (g *prereqGraph) wait(ctx context.Context, ps []*rules.Prerequisite) (map[*rules.Prerequisite]any, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	out := make(map[*rules.Prerequisite]any, len(ps))
	for _, p := range ps {
		f := g.futures[p]
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err != nil {
			return nil, f.err
		}
		out[p] = f.val
	}
	return out, nil
}

// release says one reader of each of ps is done with its result; the
// last one lets go of it.
func (g *prereqGraph) release(ps []*rules.Prerequisite) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range ps {
		f := g.futures[p]
		if f.users--; f.users == 0 {
			f.val = nil
		}
	}
}

// locate is the one step that turns diagnostics into findings: each
// object's fields (its findings' and the related places on it) are
// located together, on every core.
func locate(ctx context.Context, diags []diagnostic) []rules.Finding {
	type request struct {
		paths []string
		pos   []loader.Position
		exact []loader.Exactness
	}
	byObj := map[*loader.Object]*request{}
	var objs []*loader.Object
	index := func(obj *loader.Object, path string) {
		if obj == nil {
			return
		}
		r := byObj[obj]
		if r == nil {
			r = &request{}
			byObj[obj] = r
			objs = append(objs, obj)
		}
		r.paths = append(r.paths, path)
	}
	for i := range diags {
		d := &diags[i]
		index(d.Object, d.Path)
		for _, rel := range d.Related {
			index(rel.Object, rel.Path)
		}
	}
	next := make(chan *loader.Object)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(objs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for obj := range next {
				r := byObj[obj]
				r.pos, r.exact = obj.LocateAll(r.paths)
			}
		}()
	}
	for _, obj := range objs {
		if ctx.Err() != nil {
			break
		}
		next <- obj
	}
	close(next)
	wg.Wait()

	// Hand the positions out in the order they were asked for.
	taken := make(map[*loader.Object]int, len(objs))
	at := func(obj *loader.Object) (loader.Position, loader.Exactness) {
		r, k := byObj[obj], taken[obj]
		taken[obj] = k + 1
		if k >= len(r.pos) { // cancelled
			return loader.Position{File: obj.File}, loader.Exact
		}
		return r.pos[k], r.exact[k]
	}
	out := make([]rules.Finding, 0, len(diags))
	for i := range diags {
		d := &diags[i]
		f := rules.Finding{Rule: d.rule.ID, Severity: d.rule.Severity, Message: d.Message, Pos: d.Pos, Path: d.Path}
		if d.Object != nil {
			var exact loader.Exactness
			f.Pos, exact = at(d.Object)
			if d.AtValue { // rare (parse-error): located on its own
				f.Pos, exact = d.Object.LocateValue(d.Path)
			}
			ref := d.Object.Ref
			f.Object = &ref
			switch exact {
			case loader.Generated:
				f.Message += fmt.Sprintf(" (the field %s is not in the source files: a Kustomize patch, generator or transformer set it)", d.Path)
			case loader.CommandLine:
				f.Message += fmt.Sprintf(" (the field %s was set on the command line (--set); the position is where the template prints it)", d.Path)
			case loader.Rendered:
				f.Message += fmt.Sprintf(" (the field %s of the rendered chart could not be traced to a template or values line; the position is the object in its template)", d.Path)
			}
		}
		for _, rel := range d.Related {
			if rel.Object != nil {
				rel.Pos, _ = at(rel.Object)
			}
			rel.Object, rel.Path = nil, "" // the finding outlives the objects' use
			f.Related = append(f.Related, rel)
		}
		out = append(out, f)
	}
	return out
}
