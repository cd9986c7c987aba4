package rego

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
	"github.com/taintlint/taintlint/rules"
)

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
				if w := x.ws[i]; w != nil {
					f.msg = w.Named(f.path, f.msg)
				}
				r.hits = append(r.hits, hit{obj: x.objs[i], f: f})
			}
		}
	}
	return results
}

// evalObject builds object i's input and evaluates every rule of rs that
// looks at its kind. The input is garbage once it returns.
func (e *engine) evalObject(ctx context.Context, txn storage.Transaction, cancel topdown.Cancel, x *objects, i int, rs []*prepared, memos []*memo, rd *reads, sc *scratch) (hits [][]finding, errs []error) {
	obj, w := x.objs[i], x.ws[i]
	todo := sc.todo[:0] // the rules of rs that look at obj's kind
	defer func() { sc.todo = todo }()
	withFacts, withGroups := false, false
	for k, pr := range rs {
		if matchesKind(pr.kinds, obj.Kind, w != nil && w.IsDaemonSet(), w != nil, x.pls[i] != nil) {
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
		entry = x.factsFor(i, withGroups)
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
	or := objectReads{rd: rd, x: x, obj: obj, w: w, pl: x.pls[i], sc: sc}
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
		if input, err = x.input(i, entry); err != nil {
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
	res, _, err := e.runQuery(ctx, txn, cancel, rs[eval[0]].compiler, q, input, func() string {
		var ids []string
		for _, k := range eval {
			ids = append(ids, rs[k].where)
		}
		return strings.Join(ids, ", ") + " (evaluated together)"
	})
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

// runQuery evaluates the compiled query q on input under the pass's
// cancel and the policy deadline. When it fails and the pass was
// cancelled, the pass is told what was running (what()); timedOut says
// the deadline, not the pass, stopped it.
func (e *engine) runQuery(ctx context.Context, txn storage.Transaction, cancel topdown.Cancel, compiler *ast.Compiler, q ast.Body, input ast.Value, what func() string) (rs topdown.QueryResultSet, timedOut bool, err error) {
	c, stop := e.deadline(cancel)
	defer stop()
	stopped := cancel.Cancelled()
	rs, err = topdown.NewQuery(q).
		WithCompiler(compiler).
		WithStore(e.store).
		WithTransaction(txn).
		WithInput(ast.NewTerm(input)).
		WithCancel(c).
		Run(ctx)
	if err != nil {
		if p, ok := cancel.(*passCancel); ok {
			p.blame(stopped, what())
		}
		return nil, c.timedOut.Load(), err
	}
	return rs, false, nil
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
	rs, timedOut, err := e.runQuery(ctx, txn, cancel, pr.compiler, pr.query, input, func() string {
		return fmt.Sprintf("%s: evaluating %s", pr.where, obj.Ref)
	})
	if err != nil {
		if timedOut {
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
