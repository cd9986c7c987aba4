package rego

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/rules"
)

// pkg is one Rego package and what taintlint makes of it.
type pkg struct {
	path    ast.Ref
	modules []*ast.Module
	kind    rules.Source
	file    string           // file of the first module
	meta    *ast.Annotations // the package METADATA block, if any
	metaIn  string           // file holding meta
}

// compile parses, compiles and prepares srcs. fastEmbedded compiles a run
// of embedded policies alone without the compiler's checking stages and
// strict mode (false only in the test that holds both ways to the same
// rules).
func compile(ctx context.Context, srcs []source, fastEmbedded bool) (*engine, []*rules.Rule, error) {
	caps := capabilities()
	popts := ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true, Capabilities: caps}

	modules := make(map[string]*ast.Module, len(srcs))
	var pkgs []*pkg
	byPath := map[string]*pkg{}
	var errs policyErrors
	// Parse in parallel (the larger part of a small run's start-up is
	// here and in Compile), then take the results in source order.
	type parsed struct {
		m   *ast.Module
		err error
	}
	results := make([]parsed, len(srcs))
	var wg sync.WaitGroup
	next := make(chan int, len(srcs))
	for i := range srcs {
		next <- i
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), len(srcs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				m, err := ast.ParseModuleWithOpts(srcs[i].file, srcs[i].text, popts)
				results[i] = parsed{m, err}
			}
		}()
	}
	wg.Wait()
	for i, s := range srcs {
		if _, dup := modules[s.file]; dup {
			errs = append(errs, &policyError{file: s.file, msg: "a policy file of this name is already loaded (an embedded policy, or the same file under another --policy)"})
			continue
		}
		m, err := results[i].m, results[i].err
		if err != nil {
			errs = append(errs, fromOPA(err, s.file)...)
			continue
		}
		if m == nil { // defensive: OPA reports an empty module as an error
			continue
		}
		modules[s.file] = m
		pp := m.Package.Path
		if s.kind == rules.CustomRego && len(pp) > 1 && ast.String(reservedRoot).Equal(pp[1].Value) {
			errs = append(errs, at(m.Package.Location, s.file, "package %s: packages under %s are reserved for taintlint's own policies", pkgName(pp), reservedRoot))
			continue
		}
		key := pp.String()
		p := byPath[key]
		if p == nil {
			p = &pkg{path: pp, kind: s.kind, file: s.file}
			byPath[key] = p
			pkgs = append(pkgs, p)
		}
		p.modules = append(p.modules, m)
		for _, a := range m.Annotations {
			if a.Scope != "package" {
				continue
			}
			if p.meta != nil {
				errs = append(errs, at(a.Location, s.file, "package %s has a second package METADATA block (the first is at %s)", pkgName(pp), locString(p.meta.Location, p.metaIn)))
				continue
			}
			p.meta, p.metaIn = a, s.file
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}

	embeddedOnly := true
	for _, s := range srcs {
		embeddedOnly = embeddedOnly && s.kind == rules.EmbeddedRego
	}
	c := ast.NewCompiler().
		WithCapabilities(caps).
		WithStrict(!embeddedOnly || !fastEmbedded).
		WithDefaultRegoVersion(ast.RegoV1).
		WithEnablePrintStatements(false)
	e := &engine{ctx: ctx, store: inmem.New(), byID: map[string]*prepared{}, shortcuts: true, ready: make(chan struct{})}
	e.eval = &rules.Prerequisite{
		Name:     "rego evaluation",
		Requires: []*rules.Prerequisite{prereq.Placement, prereq.Workloads},
		Run:      e.evaluateRun,
	}
	if embeddedOnly && fastEmbedded {
		// The embedded policies are fixed when taintlint is built, and
		// their tests compile them with every check (TestEmbeddedStrict):
		// a run needs only the stages that shape evaluation, not those
		// that only look for mistakes. Custom policies get every check.
		c = c.WithSkipStages(checkOnlyStages...)
		// Their rules are known from the parsed packages, so compiling
		// and preparing them (most of the start-up of a small run) goes
		// on while the run reads its files; evaluation waits for it. Any
		// error would be a build defect (the same tests), reported by
		// evaluation if it ever happened.
		return e.compileAsync(c, modules, pkgs)
	}
	c.Compile(modules)
	if c.Failed() {
		return nil, nil, fromOPA(c.Errors, "")
	}
	close(e.ready)
	out, _, err := e.rules(pkgs, c)
	if err != nil {
		return nil, nil, err
	}
	return e, out, nil
}

// compileAsync returns the rules of pkgs at once, their deny rules taken
// from the parsed modules, and compiles and prepares them in the
// background: e.wait returns when that is done.
func (e *engine) compileAsync(c *ast.Compiler, modules map[string]*ast.Module, pkgs []*pkg) (*engine, []*rules.Rule, error) {
	out, prs, err := e.rules(pkgs, nil)
	if err != nil {
		close(e.ready)
		return nil, nil, err
	}
	go func() {
		defer close(e.ready)
		c.Compile(modules)
		if c.Failed() {
			e.compileErr = fromOPA(c.Errors, "")
			return
		}
		var errs policyErrors
		uses := inputUses(c)
		for i, pr := range prs {
			if pr == nil {
				continue
			}
			if err := pr.prepare(c, uses, pkgs[i]); err != nil {
				errs = append(errs, asPolicyErrors(err)...)
			}
		}
		if len(errs) > 0 {
			e.compileErr = errs
		}
	}()
	return e, out, nil
}

// rules turns the packages into rules, embedded first, each with its
// prepared (nil for a library package). With the compiled policies c, a
// package's deny rules are the compiler's and each is prepared at once;
// with c nil, they are those of the parsed modules, and prepare is left
// to the caller.
func (e *engine) rules(pkgs []*pkg, c *ast.Compiler) ([]*rules.Rule, []*prepared, error) {
	var out []*rules.Rule
	prs := make([]*prepared, len(pkgs))
	var errs policyErrors
	ids := map[string]*rules.Rule{}
	var uses []*moduleUses
	for i, p := range pkgs {
		var r *rules.Rule
		var pr *prepared
		var err error
		if c != nil {
			r, pr, err = e.rule(p, c.GetRulesExact(denyRef(p)))
			if err == nil && r != nil {
				if uses == nil {
					uses = inputUses(c)
				}
				err = pr.prepare(c, uses, p)
			}
		} else {
			r, pr, err = e.rule(p, parsedDenyRules(p))
		}
		if err != nil {
			errs = append(errs, asPolicyErrors(err)...)
			continue
		}
		if r == nil { // a library package
			continue
		}
		if prev := ids[r.ID]; prev != nil {
			errs = append(errs, &policyError{file: r.File, line: r.Line, msg: fmt.Sprintf("rule id %q is already used by %s:%d", r.ID, prev.File, prev.Line)})
			continue
		}
		ids[r.ID] = r
		e.byID[r.ID] = pr
		prs[i] = pr
		out = append(out, r)
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return out, prs, nil
}

// denyRef is data.<package>.deny.
func denyRef(p *pkg) ast.Ref { return p.path.Append(ast.StringTerm("deny")) }

// parsedDenyRules are the rules named deny in the modules of p, in order:
// what the compiler's GetRulesExact gives for a package of one module.
func parsedDenyRules(p *pkg) []*ast.Rule {
	var out []*ast.Rule
	for _, m := range p.modules {
		for _, r := range m.Rules {
			if r.Head.Ref().Equal(ast.Ref{ast.VarTerm("deny")}) {
				out = append(out, r)
			}
		}
	}
	return out
}

// wait returns when the rules of e are compiled and prepared, with the
// error that stopped it, if any.
func (e *engine) wait() error {
	<-e.ready
	return e.compileErr
}

// checkOnlyStages are the compiler stages that only report errors (or
// collect what only reporting needs) and change nothing evaluation uses.
var checkOnlyStages = []ast.StageID{
	ast.StageCheckUnusedImports,
	ast.StageCheckKeywordOverrides,
	ast.StageCheckDuplicateImports,
	ast.StageCheckVoidCalls,
	ast.StageCheckRuleConflicts,
	ast.StageCheckUndefinedFuncs,
	ast.StageCheckRecursion,
	ast.StageCheckTypes,
	ast.StageCheckUnsafeBuiltins,
	ast.StageCheckDeprecatedBuiltins,
	ast.StageBuildRequiredCapabilities,
}

// conftestNames are rule names other tools read; a package that defines
// one but no deny was probably written for them and would silently do
// nothing here.
var conftestNames = []string{"warn", "violation", "deny_", "warn_", "violation_"}

// rule turns a parsed package into a rule, or nil for a library package
// (no METADATA id and no deny: helpers other policies import), given its
// deny rules; the returned prepared is filled by prepare once the
// policies are compiled.
func (e *engine) rule(p *pkg, denyRules []*ast.Rule) (*rules.Rule, *prepared, error) {
	hasID := p.meta != nil && p.meta.Custom["id"] != nil
	if len(denyRules) == 0 && !hasID {
		for _, m := range p.modules {
			for _, r := range m.Rules {
				name := r.Head.Ref().String()
				for _, cn := range conftestNames {
					if name == cn || strings.HasSuffix(cn, "_") && strings.HasPrefix(name, cn) {
						return nil, nil, at(r.Location, p.file, "package %s defines %s but no deny: taintlint runs only deny rules (see docs/policies.md)", pkgName(p.path), name)
					}
				}
			}
		}
		return nil, nil, nil
	}
	if p.meta == nil {
		loc := p.modules[0].Package.Location
		if len(denyRules) > 0 {
			loc = denyRules[0].Location
		}
		return nil, nil, at(loc, p.file, "package %s defines deny but has no METADATA block before its package line (title, description, custom.id, custom.severity; see docs/policies.md)", pkgName(p.path))
	}
	m, err := parseMeta(p.meta, p.metaIn, p.kind)
	if err != nil {
		return nil, nil, err
	}
	if len(denyRules) == 0 {
		return nil, nil, at(p.meta.Location, p.metaIn, "rule %s: package %s defines no deny rule", m.rule.ID, pkgName(p.path))
	}
	denyLoc := denyRules[0].Location
	denyFile := p.metaIn
	if denyLoc != nil && denyLoc.File != "" {
		denyFile = denyLoc.File
	}
	for _, r := range denyRules {
		if len(r.Head.Args) > 0 {
			return nil, nil, at(r.Location, denyFile, "deny must be a set of findings, not a function")
		}
	}
	r := m.rule
	pr := &prepared{deny: denyRef(p), kinds: m.kinds, where: locString(denyLoc, denyFile), rule: &r, denyLoc: denyLoc, denyFile: denyFile}
	r.Requires = []*rules.Prerequisite{e.eval}
	r.Run = func(pass *rules.Pass) error { return e.run(pass, pr) }
	return &r, pr, nil
}

// prepare checks the type of pr's deny in the compiled policies c and
// compiles its query and what evaluation needs beside it; uses are c's
// inputUses.
func (pr *prepared) prepare(c *ast.Compiler, uses []*moduleUses, p *pkg) error {
	if err := checkDenyType(c.TypeEnv.GetByRef(pr.deny)); err != nil {
		return at(pr.denyLoc, pr.denyFile, "%v", err)
	}
	query, err := c.QueryCompiler().Compile(ast.NewBody(ast.Equality.Expr(ast.NewTerm(resultVar), ast.NewTerm(pr.deny))))
	if err != nil {
		return fmt.Errorf("%s: preparing rule %s: %w", pr.where, pr.rule.ID, err)
	}
	pr.compiler, pr.query = c, query
	pr.usesFacts = usesInput(uses, p.path, func(m *moduleUses) bool { return m.facts })
	pr.usesGroups = usesInput(uses, p.path, func(m *moduleUses) bool { return m.groups })
	pr.reads, pr.memo = inputReads(c, p.path)
	return nil
}

// checkDenyType rejects a deny whose type is known not to be a set of
// objects: deny if {...} (a boolean), conftest's deny contains msg (a set
// of strings), deny[k] := v (an object).
func checkDenyType(t types.Type) error {
	set, ok := t.(*types.Set)
	if !ok {
		if t == nil || isAny(t) {
			return nil
		}
		return fmt.Errorf("deny is %s, want a set of objects: deny contains {\"msg\": ..., \"path\": ...} if { ... }", types.Sprint(t))
	}
	switch of := set.Of().(type) {
	case *types.Object:
		return nil
	default:
		if isAny(of) {
			return nil
		}
		return fmt.Errorf("deny holds %s, want objects {\"msg\": string, \"path\": string}: a finding needs the field path it is about", types.Sprint(of))
	}
}

// isAny reports whether t may be anything (a union, or unknown).
func isAny(t types.Type) bool {
	_, ok := t.(types.Any)
	return ok
}
