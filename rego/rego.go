package rego

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/internal/safeio"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
	"github.com/taintlint/taintlint/rules"
)

// embedded holds taintlint's own policies and their tests; Load skips the
// *_test.rego files, TestPolicies runs them.
//
//go:embed policies
var embedded embed.FS

// embeddedDir is where the embedded policies live in the repository; their
// file names in errors and in Rule.File start with it.
const embeddedDir = "rego/policies"

// reservedRoot is the package root of the embedded policies. Custom
// policies may not use it, so they cannot add rules to (or change) an
// embedded rule's package.
const reservedRoot = "taintlint"

// source is one policy file.
type source struct {
	file string // as shown in errors: embedded paths under embeddedDir, custom paths as walked
	text string
	kind rules.Source
}

// Load compiles the embedded policies and the custom ones in dirs (each a
// directory walked recursively for *.rego files, *_test.rego skipped, or a
// single .rego file) and returns one rule per rule package, embedded rules
// first. Everything is parsed and compiled once, in strict mode with
// restricted capabilities, and each rule's deny query is prepared once.
//
// A policy that cannot be read, parsed or compiled, or whose metadata is
// missing or wrong, is an error naming its file and line. ctx also bounds
// the evaluation of the returned rules: they belong to one run.
func Load(ctx context.Context, dirs []string) ([]*rules.Rule, error) {
	return LoadLimited(ctx, dirs, Limits{})
}

// LoadLimited is Load with the evaluation of the rules bounded by lim.
func LoadLimited(ctx context.Context, dirs []string, lim Limits) ([]*rules.Rule, error) {
	e, rs, err := loadCharged(ctx, dirs, lim.Input)
	if e != nil {
		e.lim = lim
	}
	return rs, err
}

// load compiles the embedded policies and the custom ones in dirs.
func load(ctx context.Context, dirs []string) (*engine, []*rules.Rule, error) {
	return loadCharged(ctx, dirs, nil)
}

// loadCharged is load with the custom policy files charged to input.
func loadCharged(ctx context.Context, dirs []string, input safeio.Budget) (*engine, []*rules.Rule, error) {
	srcs, err := embeddedSources()
	if err != nil {
		return nil, nil, err
	}
	custom, err := customSources(dirs, input)
	if err != nil {
		return nil, nil, err
	}
	return compile(ctx, append(srcs, custom...), true)
}

func embeddedSources() ([]source, error) {
	entries, err := fs.ReadDir(embedded, "policies")
	if err != nil {
		return nil, fmt.Errorf("reading embedded policies: %w", err)
	}
	var out []source
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isPolicyFile(name) {
			continue
		}
		data, err := fs.ReadFile(embedded, "policies/"+name)
		if err != nil {
			return nil, fmt.Errorf("reading embedded policy %s: %w", name, err)
		}
		out = append(out, source{file: path.Join(embeddedDir, name), text: string(data), kind: rules.EmbeddedRego})
	}
	return out, nil
}

// isPolicyFile reports whether a file name is a policy (not a test).
func isPolicyFile(name string) bool {
	return strings.HasSuffix(name, ".rego") && !strings.HasSuffix(name, "_test.rego")
}

// customSources reads the policy files of dirs in a stable order. Hidden
// directories (.git) are skipped; a file reached twice is read once.
func customSources(dirs []string, input safeio.Budget) ([]source, error) {
	var out []source
	seen := map[string]bool{}
	add := func(p string) error {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("policy %s: %w", p, err)
		}
		if seen[abs] {
			return nil
		}
		seen[abs] = true
		data, err := safeio.ReadFile(p, input, MaxPolicySize)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return fmt.Errorf("reading policy: %w", err)
			}
			return fmt.Errorf("reading policy %s: %w", p, err)
		}
		out = append(out, source{file: filepath.ToSlash(p), text: string(data), kind: rules.CustomRego})
		return nil
	}
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("policy directory: %w", err)
		}
		if !info.IsDir() {
			if !strings.HasSuffix(dir, ".rego") {
				return nil, fmt.Errorf("policy %s: not a directory or a .rego file", dir)
			}
			if err := add(dir); err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("walking policy directory: %w", err)
			}
			if d.IsDir() {
				if p != dir && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !isPolicyFile(d.Name()) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 && !linkWithin(dir, p) {
				// A policy's parse errors quote its lines: a link to a
				// kubeconfig would print it.
				return fmt.Errorf("policy %s: symbolic link leads outside the policy directory: not read", p)
			}
			return add(p)
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// linkWithin reports whether the link at p resolves to a file inside dir
// (links resolved too).
func linkWithin(dir, p string) bool {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true // dangling: reading it fails and says so
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && filepath.IsLocal(rel)
}

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

// usesFacts reports whether the package at path, or any package it
// imports (transitively), refers to input.facts, to input as a whole, or
// to input with a computed key. Objects are given facts only when a rule
// that looks at them may read them: computing them is most of the cost of
// an input document.
func usesFacts(c *ast.Compiler, path ast.Ref) bool {
	return usesInput(inputUses(c), path, func(m *moduleUses) bool { return m.facts })
}

// usesNodeGroups is usesFacts for input.facts.nodeGroups: facts are given
// node groups only when a rule that looks at the object may read them.
func usesNodeGroups(c *ast.Compiler, path ast.Ref) bool {
	return usesInput(inputUses(c), path, func(m *moduleUses) bool { return m.groups })
}

// moduleUses is what a compiled module reads, for usesInput: found once
// for all the rules of a compile, not walked again for each.
type moduleUses struct {
	path          ast.Ref
	facts, groups bool      // refers to input.facts, input.facts.nodeGroups (refMentions)
	deps          []ast.Ref // the constant prefixes of its data refs
}

// inputUses is what each module of c reads.
func inputUses(c *ast.Compiler) []*moduleUses {
	out := make([]*moduleUses, 0, len(c.Modules))
	for _, name := range slices.Sorted(maps.Keys(c.Modules)) {
		m := c.Modules[name]
		u := &moduleUses{path: m.Package.Path}
		ast.WalkRefs(m, func(r ast.Ref) bool {
			u.facts = u.facts || refMentions(r, keyFacts)
			u.groups = u.groups || refMentions(r, keyFacts, keyNodeGroups)
			// Imports are resolved by now: the data refs are the
			// packages (and rules) it uses.
			if r[0].Equal(ast.DefaultRootDocument) {
				u.deps = append(u.deps, r.ConstantPrefix())
			}
			return false
		})
		out = append(out, u)
	}
	return out
}

// usesInput reports whether a module of the package at path, or of a
// package it uses (transitively), mentions what mentions looks for.
func usesInput(mods []*moduleUses, path ast.Ref, mentions func(*moduleUses) bool) bool {
	seen := map[string]bool{}
	var visit func(p ast.Ref) bool
	visit = func(p ast.Ref) bool {
		if seen[p.String()] {
			return false
		}
		seen[p.String()] = true
		for _, m := range mods {
			if !m.path.HasPrefix(p) && !p.HasPrefix(m.path) {
				continue
			}
			if mentions(m) {
				return true
			}
			for _, d := range m.deps {
				if visit(d) {
					return true
				}
			}
		}
		return false
	}
	return visit(path)
}

// inputReads returns the parts of the input the deny rules of the package
// at path, and every rule they refer to (transitively), read: each an input
// key with the constant keys and indexes that follow it (input.podSpec.
// tolerations), none below another. ok is false when the rules read the
// input in a way such a list cannot say: input as a whole, input with a
// computed key, or a with modifier. The deny set is then a function of
// the values at those paths alone (policies reach no clock, network or
// randomness), which is what lets evaluate reuse findings.
func inputReads(c *ast.Compiler, path ast.Ref) (reads []ast.Ref, ok bool) {
	seen := map[*ast.Rule]bool{}
	ok = true
	var visit func(rs []*ast.Rule)
	visit = func(rs []*ast.Rule) {
		for _, r := range rs {
			if !ok || seen[r] {
				continue
			}
			seen[r] = true
			var deps []ast.Ref
			ast.WalkExprs(r, func(e *ast.Expr) bool {
				if len(e.With) > 0 {
					ok = false
				}
				return !ok
			})
			elems := elementVars(r)
			ast.WalkRefs(r, func(ref ast.Ref) bool {
				switch {
				case !ok:
				case ref[0].Equal(ast.InputRootDocument):
					if len(ref) < 2 {
						ok = false
						break
					}
					if _, isStr := ref[1].Value.(ast.String); !isStr {
						ok = false
						break
					}
					if suffixes, bound := elems[ref.String()]; bound {
						// V = input.p[K], V read only as V.a.b: input.p[*].a.b
						for _, s := range suffixes {
							reads = append(reads, append(ref[:len(ref)-1:len(ref)-1].Copy(), append(ast.Ref{anyElement}, s...)...))
						}
						break
					}
					reads = append(reads, constantPath(ref))
				case ref[0].Equal(ast.DefaultRootDocument):
					deps = append(deps, ref.ConstantPrefix())
				}
				return !ok
			})
			for _, d := range deps {
				visit(c.GetRules(d))
			}
		}
	}
	visit(c.GetRules(path.Append(ast.StringTerm("deny"))))
	if !ok {
		return nil, false
	}
	return minimalPaths(reads), true
}

// constantPath is ref up to its first part that is not a string or an
// integer constant; a variable that stands for any element of an input
// list or object (input.p[K].a, K not bound before) becomes anyElement
// when constant keys follow it, the part after it up to the next that
// is not a string constant.
func constantPath(ref ast.Ref) ast.Ref {
	for i, t := range ref {
		switch v := t.Value.(type) {
		case ast.String:
			continue
		case ast.Number:
			if _, isInt := v.Int(); isInt && i > 1 {
				continue
			}
		case ast.Var:
			if i == 0 {
				continue
			}
			// A superset of what a bound K reads: exact for memo keys,
			// and a pruned document keeps every element's keys.
			if i > 1 && i+1 < len(ref) && isString(ref[i+1]) {
				j := i + 1
				for j < len(ref) && isString(ref[j]) {
					j++
				}
				out := ref[:j].Copy()
				out[i] = anyElement
				return out
			}
		}
		return ref[:i].Copy()
	}
	return ref.Copy()
}

// anyElement stands in a read path for every element of the list (or
// object) before it: input.podSpec.volumes[*].hostPath.path is the
// hostPath.path of each volume. No variable of a policy has its name.
var anyElement = ast.VarTerm("*")

func isString(t *ast.Term) bool {
	_, ok := t.Value.(ast.String)
	return ok
}

// elementVars finds in r the variables bound to an element of an input
// list or object, V = input.p[K] (some V in input.p, as compiled), that r
// reads only through constant keys (V.a.b), at least once: for each, by
// the binding's input ref, the key paths read below V. Any other use of
// V (V itself, V[x], V passed to a function), or none (the rule counts
// the elements, or reads K alone), leaves it out: the whole input.p is
// read then.
func elementVars(r *ast.Rule) map[string][]ast.Ref {
	type binding struct {
		ref      ast.Ref
		suffixes []ast.Ref
		uses     int // occurrences besides the binding
		bad      bool
	}
	bound := map[ast.Var]*binding{}
	ast.WalkExprs(r, func(e *ast.Expr) bool {
		if !e.IsEquality() || len(e.Operands()) != 2 {
			return false
		}
		a, b := e.Operand(0), e.Operand(1)
		if _, isRef := a.Value.(ast.Ref); isRef {
			a, b = b, a
		}
		v, isVar := a.Value.(ast.Var)
		ref, isRef := b.Value.(ast.Ref)
		if !isVar || !isRef || !v.IsGenerated() || len(ref) < 3 || !ref[0].Equal(ast.InputRootDocument) {
			return false
		}
		if _, last := ref[len(ref)-1].Value.(ast.Var); !last {
			return false
		}
		for _, t := range ref[1 : len(ref)-1] {
			if !isString(t) {
				return false
			}
		}
		if _, twice := bound[v]; twice {
			bound[v] = &binding{bad: true}
			return false
		}
		bound[v] = &binding{ref: ref}
		return false
	})
	if len(bound) == 0 {
		return nil
	}
	ast.WalkRefs(r, func(ref ast.Ref) bool {
		v, isVar := ref[0].Value.(ast.Var)
		b := bound[v]
		if !isVar || b == nil {
			return false
		}
		b.uses++
		j := 1
		for j < len(ref) && isString(ref[j]) {
			j++
		}
		if j == 1 || j < len(ref) {
			b.bad = true // V[x], or a computed key below V
			return false
		}
		b.suffixes = append(b.suffixes, ref[1:].Copy())
		return false
	})
	counts := map[ast.Var]int{}
	ast.WalkVars(r, func(v ast.Var) bool {
		if bound[v] != nil {
			counts[v]++
		}
		return false
	})
	out := map[string][]ast.Ref{}
	for v, b := range bound {
		// Without a key read below V the rule reads something else of
		// the list (how long it is, its keys): the whole list, then.
		if b.bad || b.uses == 0 || counts[v] != b.uses+1 {
			continue
		}
		out[b.ref.String()] = b.suffixes
	}
	return out
}

// minimalPaths sorts and de-duplicates paths, dropping those below another.
func minimalPaths(ps []ast.Ref) []ast.Ref {
	sort.Slice(ps, func(i, j int) bool { return ps[i].Compare(ps[j]) < 0 })
	var out []ast.Ref
	for _, p := range ps {
		if len(out) > 0 && p.HasPrefix(out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// refMentions reports whether r is input.<path...>, a part of input above
// it as a whole, or input with a computed key on the way.
func refMentions(r ast.Ref, path ...string) bool {
	if !r[0].Equal(ast.InputRootDocument) {
		return false
	}
	for i, key := range path {
		if len(r) == i+1 {
			return true
		}
		if s, ok := r[i+1].Value.(ast.String); !ok || string(s) != key {
			return !ok
		}
	}
	return true
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

// resultVar is bound to a rule's deny set by its prepared query.
const resultVar = ast.Var("taintlint_deny")

// prepared is a rule's query, compiled once at load, and what Run needs
// beside it. Evaluating it is what rego.PreparedEvalQuery.Eval does (a
// topdown.Query over the compiled body), called directly: importing
// OPA's rego package links its bundle, Wasm, planner, protobuf and file
// loader code too, which made the binary 8 MB larger and every run about
// 3 ms slower to start, for nothing taintlint uses.
type prepared struct {
	compiler *ast.Compiler
	query    ast.Body // resultVar = data.<package>.deny, compiled once
	deny     ast.Ref  // data.<package>.deny
	kinds    []string
	where    string      // file:line of the deny rule, for errors
	rule     *rules.Rule // the rule it runs
	// denyLoc and denyFile are where the deny rule is, for prepare's
	// errors.
	denyLoc  *ast.Location
	denyFile string
	// usesFacts: the rule's package, or a package it imports, reads
	// input.facts (or input as a whole), so objects get their facts;
	// usesGroups: likewise input.facts.nodeGroups.
	usesFacts, usesGroups bool
	// reads are the parts of the input the rule reads (inputReads), and
	// memo whether that list is complete: the rule's findings on one
	// object then hold for every object with the same values there.
	reads []ast.Ref
	memo  bool
}

// engine is what the rules of one Load share: the run's context and the
// prerequisite that evaluates, in one pass over the objects, every rule of
// this engine the run runs.
type engine struct {
	ctx   context.Context
	lim   Limits
	store storage.Store // empty: policies see no data beyond their own rules
	eval  *rules.Prerequisite
	byID  map[string]*prepared
	// ready is closed when the rules are compiled and prepared
	// (compileAsync), compileErr then the error that stopped it.
	ready      chan struct{}
	compileErr error
	// shortcuts: the per-run facts cache (and the findings of facts-only
	// rules kept with it), and the evaluation of an object's rules in one
	// query. Off only in tests that compare runs with and without them.
	shortcuts bool
	// queries are the combined queries (see evalRules) by the ids of
	// their rules; compileMu serializes compiling them.
	queries   sync.Map
	compileMu sync.Mutex
}

// evaluation is what one run's evaluation found, by rule. Each object's
// input document (with its facts) is built, every rule that looks at its
// kind evaluated on it, and then dropped, so memory stays bounded by the
// findings; objects are spread over GOMAXPROCS workers and findings kept
// in object order.
type evaluation map[*prepared]*ruleResult

// ruleResult is what one rule found, in object order, or the error that
// stopped it.
type ruleResult struct {
	hits []hit
	err  error
}

// hit is one deny result on one object.
type hit struct {
	obj *loader.Object
	f   finding
}

// evaluateRun is e.eval's Run: it evaluates the rules of this engine that
// the run runs.
func (e *engine) evaluateRun(p *rules.PrereqPass) (any, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	var rs []*prepared
	for _, r := range p.Dependents {
		if q := e.byID[r.ID]; q != nil && q.rule == r {
			rs = append(rs, q)
		}
	}
	x := newObjects(p.Input, p.ResultOf[prereq.Placement].(*prereq.Placer), p.ResultOf[prereq.Workloads].([]prereq.Workload), p.Runs)
	x.memoize = e.shortcuts
	return evaluation(e.evaluate(x, rs)), nil
}

// run reports the deny results of pr through the pass, so positions come
// from the field path exactly as for Go rules.
func (e *engine) run(pass *rules.Pass, pr *prepared) error {
	res := pass.ResultOf[e.eval].(evaluation)[pr]
	if res == nil {
		return nil
	}
	if res.err != nil {
		return res.err
	}
	for _, h := range res.hits {
		var related []rules.Related
		for _, r := range h.f.related {
			related = append(related, rules.Related{Object: h.obj, Path: r.path, Message: r.msg})
		}
		pass.Report(rules.Diagnostic{Object: h.obj, Path: h.f.path, Message: h.f.msg, Related: related})
	}
	return nil
}

// evaluate runs rs over every object of x.
func (e *engine) evaluate(x *objects, rs []*prepared) map[*prepared]*ruleResult {
	in := x.in
	results := make(map[*prepared]*ruleResult, len(rs))
	var active []*prepared
	for _, pr := range rs {
		results[pr] = &ruleResult{}
		if pr.rule.NeedsInventory && !in.HasInventory() {
			continue
		}
		active = append(active, pr)
	}
	if len(active) == 0 {
		return results
	}
	// memos[k] keeps active[k]'s findings by what it reads (nil: the rule
	// reads the input in a way that cannot be keyed).
	memos := make([]*memo, len(active))
	for k, pr := range active {
		if pr.memo && e.shortcuts {
			memos[k] = &memo{found: map[string][]finding{}}
		}
	}
	rd := newReads(active, memos)
	type objResult struct {
		hits [][]finding // per active rule
		errs []error
	}
	out := make([]objResult, len(x.objs))
	ctx := e.ctx
	cancel, release := e.runCancel(ctx)
	defer release()
	const chunk = 16
	next := make(chan int)
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), (len(x.objs)+chunk-1)/chunk)
	var setupErr error
	var setupOnce sync.Once
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			txn, err := e.store.NewTransaction(ctx)
			if err != nil {
				setupOnce.Do(func() { setupErr = err })
				for range next {
				}
				return
			}
			defer e.store.Abort(ctx, txn)
			sc := &scratch{}
			for start := range next {
				for i := start; i < min(start+chunk, len(x.objs)); i++ {
					out[i].hits, out[i].errs = e.evalObject(ctx, txn, cancel, x, i, active, memos, rd, sc)
				}
			}
		}()
	}
	for start := 0; start < len(x.objs) && ctx.Err() == nil; start += chunk {
		next <- start
	}
	close(next)
	wg.Wait()
	for k, pr := range active {
		r := results[pr]
		switch {
		case setupErr != nil:
			r.err = fmt.Errorf("%s: %w", pr.where, setupErr)
			continue
		case cancel.over.Load():
			r.err = e.memoryError(cancel)
			continue
		case cancel.late.Load() != nil:
			// The rule that ran late fails the run; the others were
			// stopped with it and report nothing.
			if l := cancel.late.Load(); l.pr == pr {
				r.err = l.err
			}
			continue
		case ctx.Err() != nil:
			r.err = fmt.Errorf("%s: %w", pr.where, ctx.Err())
			continue
		}
		for i := range out {
			if out[i].errs != nil && out[i].errs[k] != nil {
				r.err, r.hits = out[i].errs[k], nil
				break
			}
			if out[i].hits == nil {
				continue
			}
			for _, f := range out[i].hits[k] {
				r.hits = append(r.hits, hit{obj: x.objs[i], f: f})
			}
		}
	}
	return results
}

// evalObject builds object i's input and evaluates every rule of rs that
// looks at its kind. The input is garbage once it returns.
func (e *engine) evalObject(ctx context.Context, txn storage.Transaction, cancel topdown.Cancel, x *objects, i int, rs []*prepared, memos []*memo, rd *reads, sc *scratch) (hits [][]finding, errs []error) {
	obj := x.objs[i]
	w := x.workloads[obj].Workload
	todo := sc.todo[:0] // the rules of rs that look at obj's kind
	defer func() { sc.todo = todo }()
	withFacts, withGroups := false, false
	for k, pr := range rs {
		if matchesKind(pr.kinds, obj.Kind, w != nil, x.placements[obj] != nil) {
			todo = append(todo, k)
			withFacts = withFacts || pr.usesFacts
			withGroups = withGroups || pr.usesGroups
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	var entry *factsEntry
	if withFacts {
		entry = x.factsFor(obj, withGroups)
	}
	put := func(k int, fs []finding) {
		if len(fs) > 0 {
			if hits == nil {
				hits = make([][]finding, len(rs))
			}
			hits[k] = fs
		}
	}
	// Rules whose findings on an object with the same values where they
	// look are known need no evaluation; when none is left, the input
	// document is never built.
	keys, memoized := sc.keysFor(len(rs))
	eval := sc.eval[:0]
	defer func() { sc.eval = eval }()
	or := objectReads{rd: rd, x: x, obj: obj, sc: sc}
	convertible := -1 // unknown
	converts := func() bool {
		if convertible < 0 {
			convertible = 0
			if j, err := obj.JSON(); err == nil && jsonConvertible(j) {
				convertible = 1
			}
		}
		return convertible == 1
	}
	for _, k := range todo {
		m := memos[k]
		if m != nil && m.enabled() {
			var ok bool
			if keys[k], ok = or.memoKey(k, entry, keys[k][:0]); ok && converts() {
				memoized[k] = true
				if fs, hit := m.get(keys[k]); hit {
					put(k, fs)
					continue
				}
			}
		}
		eval = append(eval, k)
	}
	if len(eval) == 0 {
		return hits, nil
	}
	// When every rule left says all it reads (a memo is kept for each),
	// the input holds only that: most of a manifest is read by none.
	var input ast.Value
	if want := rd.union(eval, memos); want != nil && converts() {
		input, _ = or.prunedInput(want, entry)
	}
	if input == nil {
		var err error
		if input, err = x.input(obj, entry); err != nil {
			return nil, nil // parse-error's business: no policy can judge it
		}
	}
	var all [][]finding // per eval index, when one query answered them all
	if len(eval) > 1 && e.shortcuts {
		all = e.evalRules(ctx, txn, cancel, rs, eval, input)
	}
	for j, k := range eval {
		pr := rs[k]
		var fs []finding
		if all != nil {
			fs = all[j]
		} else {
			var err error
			fs, err = e.evalRule(ctx, txn, cancel, pr, obj, input)
			if err != nil {
				if errs == nil {
					errs = make([]error, len(rs))
				}
				errs[k] = err
				continue
			}
		}
		if memoized[k] {
			memos[k].put(keys[k], fs)
		}
		put(k, fs)
	}
	return hits, errs
}

// scratch is storage one evaluation worker reuses from object to object:
// what evalObject makes of an object is garbage once it returns.
type scratch struct {
	todo, eval []int
	keys       [][]byte // per rule, its memo key on the object
	memoized   []bool
	vals       []readValue
	levels     [][]jsonscan.Field
	fields     []jsonscan.Field
	members    jsonscan.Known
}

// known are the places of w's containers in its pod spec's JSON
// (k8s.Workload.KnownMembers), which listing the pod spec's members need
// not pass over; nil when unknown.
func (sc *scratch) known(w *k8s.Workload) *jsonscan.Known {
	w.KnownMembers(&sc.members)
	if sc.members.At == nil {
		return nil
	}
	return &sc.members
}

// keysFor returns n memo key buffers (their storage reused) and n false
// flags.
func (sc *scratch) keysFor(n int) ([][]byte, []bool) {
	if cap(sc.keys) < n {
		sc.keys, sc.memoized = make([][]byte, n), make([]bool, n)
	}
	sc.keys, sc.memoized = sc.keys[:n], sc.memoized[:n]
	clear(sc.memoized)
	return sc.keys, sc.memoized
}

// evalRules evaluates the rules rs[eval...] on input in one query (each
// rule's deny set bound to a variable of its own), which saves the set-up
// of a query per rule. It returns nil when anything goes wrong (an error,
// a deny that is undefined, a finding of the wrong shape): the caller then
// evaluates the rules one by one, which says which rule failed and why.
func (e *engine) evalRules(ctx context.Context, txn storage.Transaction, cancel topdown.Cancel, rs []*prepared, eval []int, input ast.Value) (out [][]finding) {
	defer func() {
		if v := recover(); v != nil {
			out = nil
		}
	}()
	q := e.combined(rs, eval)
	if q == nil {
		return nil
	}
	tq := topdown.NewQuery(q).
		WithCompiler(rs[eval[0]].compiler).
		WithStore(e.store).
		WithTransaction(txn).
		WithInput(ast.NewTerm(input))
	c, stop := e.deadline(cancel)
	defer stop()
	tq = tq.WithCancel(c)
	stopped := cancel.Cancelled()
	res, err := tq.Run(ctx)
	if err != nil {
		if p, ok := cancel.(*passCancel); ok {
			var ids []string
			for _, k := range eval {
				ids = append(ids, rs[k].where)
			}
			p.blame(stopped, strings.Join(ids, ", ")+" (evaluated together)")
		}
	}
	if err != nil || len(res) != 1 {
		return nil // a deadline too: each rule then runs on its own, under its own
	}
	out = make([][]finding, len(eval))
	for j := range eval {
		t := res[0][combinedVar(j)]
		if t == nil {
			return nil
		}
		fs, err := findings(t.Value)
		if err != nil {
			return nil
		}
		out[j] = fs
	}
	return out
}

// combined is the compiled query binding the deny set of each rule of
// rs[eval...] to combinedVar(j), compiled once per set of rules; nil if it
// does not compile.
func (e *engine) combined(rs []*prepared, eval []int) ast.Body {
	var key strings.Builder
	for _, k := range eval {
		key.WriteString(rs[k].rule.ID)
		key.WriteByte(0)
	}
	if q, ok := e.queries.Load(key.String()); ok {
		return q.(ast.Body)
	}
	body := make(ast.Body, 0, len(eval))
	for j, k := range eval {
		if rs[k].compiler != rs[eval[0]].compiler {
			e.queries.Store(key.String(), ast.Body(nil))
			return nil
		}
		body = append(body, ast.Equality.Expr(ast.VarTerm(string(combinedVar(j))), ast.NewTerm(rs[k].deny)))
	}
	e.compileMu.Lock()
	q, err := rs[eval[0]].compiler.QueryCompiler().Compile(body)
	e.compileMu.Unlock()
	if err != nil {
		q = nil
	}
	e.queries.Store(key.String(), q)
	return q
}

// combinedVar is the variable rule j of a combined query binds.
func combinedVar(j int) ast.Var {
	return ast.Var("taintlint_deny_" + strconv.Itoa(j))
}

func (e *engine) evalRule(ctx context.Context, txn storage.Transaction, cancel topdown.Cancel, pr *prepared, obj *loader.Object, input ast.Value) (fs []finding, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%s: internal error evaluating the policy (please report it): %v", pr.where, v)
		}
	}()
	q := topdown.NewQuery(pr.query).
		WithCompiler(pr.compiler).
		WithStore(e.store).
		WithTransaction(txn).
		WithInput(ast.NewTerm(input))
	c, stop := e.deadline(cancel)
	defer stop()
	q = q.WithCancel(c)
	stopped := cancel.Cancelled()
	rs, err := q.Run(ctx)
	if err != nil {
		if p, ok := cancel.(*passCancel); ok {
			p.blame(stopped, fmt.Sprintf("%s: evaluating %s", pr.where, obj.Ref))
		}
		if c.timedOut.Load() {
			err := e.timeoutError(pr, obj.Ref)
			if p, ok := cancel.(*passCancel); ok {
				p.timedOut(pr, err)
			}
			return nil, err
		}
		return nil, fmt.Errorf("%s: evaluating %s: %w", pr.where, obj.Ref, err)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	t := rs[0][resultVar]
	if t == nil {
		return nil, fmt.Errorf("%s: evaluating %s: no result", pr.where, obj.Ref)
	}
	fs, err = findings(t.Value)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", pr.where, obj.Ref, err)
	}
	return fs, nil
}

// policyError is a problem with a policy at a place in its file.
type policyError struct {
	file      string
	line, col int
	msg       string
}

func (e *policyError) Error() string {
	switch {
	case e.line > 0 && e.col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg)
	case e.line > 0:
		return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
	}
	return e.file + ": " + e.msg
}

// policyErrors are every problem found while loading, in file order; its
// message is one line, the first few problems joined.
type policyErrors []*policyError

func (es policyErrors) Error() string {
	const show = 3
	sorted := append(policyErrors(nil), es...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].file != sorted[j].file {
			return sorted[i].file < sorted[j].file
		}
		return sorted[i].line < sorted[j].line
	})
	var parts []string
	for i, e := range sorted {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(sorted)-show))
			break
		}
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

func asPolicyErrors(err error) policyErrors {
	var pe *policyError
	if errors.As(err, &pe) {
		return policyErrors{pe}
	}
	return policyErrors{{msg: err.Error()}}
}

// at is a policyError at an OPA location (file from the location when it
// has one).
func at(loc *ast.Location, file, format string, args ...any) *policyError {
	e := &policyError{file: file, msg: fmt.Sprintf(format, args...)}
	if loc != nil {
		if loc.File != "" {
			e.file = loc.File
		}
		e.line, e.col = loc.Row, loc.Col
	}
	return e
}

// fromOPA turns OPA's parse and compile errors into policyErrors, saying
// why a built-in taken away from policies is undefined.
func fromOPA(err error, file string) policyErrors {
	var list ast.Errors
	var one *ast.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ast.Errors{one}
	default:
		return policyErrors{{file: file, msg: err.Error()}}
	}
	out := make(policyErrors, 0, len(list))
	hinted := false
	for _, e := range list {
		msg := e.Message
		if name, ok := strings.CutPrefix(msg, "undefined function "); ok && isDenied(name, ast.Builtins) {
			msg += " (taintlint policies may not reach the network, the process environment, the clock or files)"
		}
		if e.Code == ast.ParseErr && strings.Contains(msg, "keyword is required") && !hinted {
			msg += " (policies are Rego v1: deny contains {...} if { ... })"
			hinted = true
		}
		out = append(out, at(e.Location, file, "%s", msg))
	}
	return out
}

func locString(loc *ast.Location, file string) string {
	if loc == nil {
		return file
	}
	if loc.File != "" {
		file = loc.File
	}
	return fmt.Sprintf("%s:%d", file, loc.Row)
}

// pkgName is a package path as written in its package line.
func pkgName(p ast.Ref) string {
	return strings.TrimPrefix(p.String(), "data.")
}
