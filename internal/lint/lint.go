// Package lint is taintlint's driver: it loads the inputs, selects and runs
// the rules, then passes the findings through an ordered list of small
// steps (severity overrides, suppression, de-duplication, sorting) and
// summarises the result. It is the only place that orchestrates; loader,
// rules and report each do one job.
package lint

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/taintlint/taintlint/internal/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// Options are everything a run needs, already parsed.
type Options struct {
	Paths  []string // paths to check; "-" is standard input
	Nodes  []string // node inventory paths
	Loader loader.Options

	// Rules is every rule available (built-in Go, embedded Rego, custom).
	Rules []*rules.Rule
	// Enable turns on rules that are off by default ("all" for every
	// rule); Disable turns rules off. Disable wins.
	Enable, Disable []string
	// Severity overrides the default severity of rules by id.
	Severity map[string]rules.Severity
	// Suppress suppresses findings by rule, path and object.
	Suppress []Suppression

	Gates k8s.FeatureGates
	// Admission models admission plugins that are off by default.
	Admission k8s.Admission
	// RuntimeTaintKeys are taint keys nodes carry only at run time
	// (.taintlint.yaml runtimeTaints).
	RuntimeTaintKeys []string

	// Baseline, when set, holds findings accepted earlier: they are not
	// counted, only summarised. BaselineFile names it in notices.
	Baseline     *Baseline
	BaselineFile string
	// OpenFile opens a file that was read, to find its inline suppression
	// comments (nil: os.Open). The cli serves standard input's bytes
	// through it.
	OpenFile func(name string) (io.ReadCloser, error)
}

// Suppression is one suppression entry from the configuration.
type Suppression struct {
	Rules   []string // rule ids; empty means every rule
	Paths   []string // globs over finding file paths (** crosses directories)
	Objects []string // Kind/namespace/name or Kind/name patterns, * wildcards
	Reason  string
}

// Summary counts what a run saw and found.
type Summary struct {
	Files      int                    `json:"files"`
	Objects    int                    `json:"objects"`
	Nodes      int                    `json:"nodes"`
	Skipped    int                    `json:"skipped"`
	Findings   map[rules.Severity]int `json:"-"`
	Suppressed int                    `json:"suppressed"`
	// Baselined counts findings the baseline accepted.
	Baselined int `json:"baselined"`
}

// Result is a finished run.
type Result struct {
	// Findings are the findings that count, in a total order (file, line,
	// column, rule, message).
	Findings []rules.Finding
	// Suppressed are the findings that annotations or the configuration
	// suppressed, in the same order.
	Suppressed []rules.Finding
	// Baselined are the findings the baseline accepted, in the same order;
	// BaselineAbsent are the baseline's entries that no longer occur.
	// Baseline is whether a baseline was in use.
	Baselined      []rules.Finding
	BaselineAbsent []BaselineEntry
	Baseline       bool
	// Rules are the rules that ran, sorted by id.
	Rules   []*rules.Rule
	Summary Summary
	// Warnings are problems with the run's own inputs that are not
	// findings, such as an annotation that names no rule.
	Warnings []string
	// Notices say what the run could not do, such as scheduling rules that
	// had no node inventory.
	Notices []string
}

// ExitCode is 1 when a finding is at or above threshold, else 0. A zero
// threshold never fails.
func (r *Result) ExitCode(threshold rules.Severity) int {
	if threshold == 0 {
		return 0
	}
	for _, f := range r.Findings {
		if f.Severity >= threshold {
			return 1
		}
	}
	return 0
}

// Run loads the inputs and runs the selected rules. The error is for a run
// that could not happen (a missing path, a rule that broke), never for
// findings.
func Run(ctx context.Context, opts Options) (*Result, error) {
	selected, err := Select(opts.Rules, opts.Enable, opts.Disable)
	if err != nil {
		return nil, err
	}
	for id := range opts.Severity {
		if find(opts.Rules, id) == nil {
			return nil, fmt.Errorf("severity override for unknown rule %q%s", id, Suggest(id, ruleIDs(opts.Rules)))
		}
	}
	for _, s := range opts.Suppress {
		for _, id := range s.Rules {
			if find(opts.Rules, id) == nil {
				return nil, fmt.Errorf("suppression for unknown rule %q%s", id, Suggest(id, ruleIDs(opts.Rules)))
			}
		}
	}

	// The node inventory is read while the checked paths are: it is often
	// one big List, parsed by one core, which the files to check keep the
	// other cores busy with.
	loadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.Loader.Budget == nil { // one input budget for the paths and the inventory
		opts.Loader.Budget = loader.NewBudget(opts.Loader.Limits.InputBytes)
	}
	inventory := make(chan inventoryResult, 1)
	go func() { inventory <- loadInventory(loadCtx, opts) }()
	checked, err := loader.Load(loadCtx, opts.Paths, opts.Loader)
	if err != nil {
		return nil, err
	}
	inv := <-inventory
	if inv.err != nil {
		return nil, inv.err
	}
	in, nfiles := buildInput(ctx, checked, inv.result, opts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	res := &Result{Rules: selected, Baseline: opts.Baseline != nil}
	in.Selected = selected
	findings, err := runRules(ctx, selected, in)
	if err != nil {
		return nil, err
	}
	if f := checked.Focus; f != nil {
		kept := findings[:0]
		for _, x := range findings {
			if f.Keeps(x.Object, x.Pos) {
				kept = append(kept, x)
			}
		}
		findings = kept
	}
	files := checked.Files
	if inv.result != nil {
		files = append(files[:len(files):len(files)], inv.result.Files...)
	}
	for _, step := range steps(opts, in, files, res) {
		findings = step(findings)
	}
	for _, f := range findings {
		if f.Suppressed != nil {
			res.Suppressed = append(res.Suppressed, f)
		} else {
			res.Findings = append(res.Findings, f)
		}
	}
	res.Summary = Summary{
		Files:      nfiles,
		Objects:    len(checked.Objects),
		Nodes:      len(in.Nodes),
		Skipped:    checked.Skipped,
		Findings:   map[rules.Severity]int{rules.Error: 0, rules.Warning: 0, rules.Note: 0},
		Suppressed: len(res.Suppressed),
		Baselined:  len(res.Baselined),
	}
	for _, f := range res.Findings {
		res.Summary.Findings[f.Severity]++
	}
	if n := len(checked.Hidden); n > 0 {
		names := checked.Hidden
		more := ""
		if n > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", n-3)
		}
		res.Notices = append(res.Notices, fmt.Sprintf("%d hidden file(s) not checked: %s%s (names that start with a dot are left out of directory walks; name a file to check it)", n, strings.Join(names, ", "), more))
	}
	res.Notices = append(res.Notices, checked.Notes...)
	if in.HasInventory() {
		res.Notices = append(res.Notices, inventoryNotice(in.Nodes))
	} else {
		var needs []string
		for _, r := range selected {
			if r.NeedsInventory {
				needs = append(needs, r.ID)
			}
		}
		if len(needs) > 0 {
			res.Notices = append(res.Notices, fmt.Sprintf("no node inventory: %s did not run; give nodes with --nodes PATH (kubectl get nodes -o yaml > nodes.yaml) or nodes: in .taintlint.yaml", strings.Join(needs, ", ")))
		}
	}
	if n := len(res.BaselineAbsent); n > 0 {
		name := opts.BaselineFile
		if name == "" {
			name = "the baseline"
		}
		var gone []string
		for i, e := range res.BaselineAbsent {
			if i == 5 {
				gone = append(gone, fmt.Sprintf("and %d more", n-i))
				break
			}
			gone = append(gone, e.String())
		}
		res.Notices = append(res.Notices, fmt.Sprintf("%d of %d entries in %s no longer occur (fixed, or the object or field moved); write it again with --write-baseline to drop them: %s", n, len(opts.Baseline.Findings), name, strings.Join(gone, "; ")))
	}
	return res, nil
}

// inventoryNotice says where the node inventory came from, since nodes
// are read from --nodes, nodes: in the configuration and the checked paths
// alike: "node inventory: 6 node(s) from cluster/nodes.yaml".
func inventoryNotice(nodes []*k8s.Node) string {
	count := map[string]int{}
	var files []string
	for _, n := range nodes {
		f := n.Object.File
		if count[f] == 0 {
			files = append(files, f)
		}
		count[f]++
	}
	var parts []string
	for i, f := range files {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more file(s)", len(files)-i))
			break
		}
		part := f
		if len(files) > 1 {
			part = fmt.Sprintf("%s (%d)", f, count[f])
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("node inventory: %d node(s) from %s", len(nodes), strings.Join(parts, ", "))
}

type inventoryResult struct {
	result *loader.Result // nil without --nodes
	err    error
}

// loadInventory reads the node inventory paths, if any.
func loadInventory(ctx context.Context, opts Options) inventoryResult {
	if len(opts.Nodes) == 0 {
		return inventoryResult{}
	}
	nodeOpts := opts.Loader
	nodeOpts.Stdin = nil
	nodeOpts.KustomizeFileRoots = false // a file named as nodes is nodes
	inv, err := loader.Load(ctx, opts.Nodes, nodeOpts)
	if err != nil {
		return inventoryResult{err: fmt.Errorf("node inventory: %w", err)}
	}
	return inventoryResult{result: inv}
}

// buildInput decodes the typed views every rule shares, of the checked
// objects and of the inventory's Nodes (inv may be nil).
func buildInput(ctx context.Context, checked, inv *loader.Result, opts Options) (*rules.Input, int) {
	in := &rules.Input{Objects: checked.Objects, LoadErrors: checked.Errors, Gates: opts.Gates, Admission: opts.Admission, RuntimeTaintKeys: opts.RuntimeTaintKeys}
	files := len(checked.Files)
	objs := checked.Objects
	if inv != nil {
		files += len(inv.Files)
		in.LoadErrors = append(in.LoadErrors, inv.Errors...)
		objs = objs[:len(objs):len(objs)]
		for _, obj := range inv.Objects {
			if k8s.IsNode(obj) {
				objs = append(objs, obj)
			}
		}
	}
	// Typed views are the costliest step after parsing: decode them on
	// every core, then file the results in input order.
	views := decodeViews(ctx, objs)
	seenNode := map[string]bool{}
	for i, obj := range objs {
		v := views[i]
		in.DecodeIssues = append(in.DecodeIssues, v.issues...)
		switch {
		case v.node != nil:
			// The first Node of a name wins: the checked paths, then --nodes.
			if !seenNode[obj.Name] {
				seenNode[obj.Name] = true
				in.Nodes = append(in.Nodes, v.node)
			}
		case v.rc != nil:
			in.RuntimeClasses = append(in.RuntimeClasses, v.rc)
		case v.workload != nil:
			in.Workloads = append(in.Workloads, v.workload)
		}
	}
	return in, files
}

// view is the typed view of one object.
type view struct {
	node     *k8s.Node
	rc       *k8s.RuntimeClass
	workload *k8s.Workload
	issues   []*k8s.DecodeIssue
}

// decodeViews decodes every object's typed view in parallel.
func decodeViews(ctx context.Context, objs []*loader.Object) []view {
	views := make([]view, len(objs))
	shared := k8s.NewInterner()
	const chunk = 64
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (len(objs)+chunk-1)/chunk) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for start := range next {
				for i := start; i < min(start+chunk, len(objs)); i++ {
					views[i] = decodeView(objs[i], shared)
				}
			}
		}()
	}
	for start := 0; start < len(objs) && ctx.Err() == nil; start += chunk {
		next <- start
	}
	close(next)
	wg.Wait()
	return views
}

func decodeView(obj *loader.Object, shared *k8s.Interner) view {
	var v view
	switch {
	case k8s.IsNode(obj):
		v.node, v.issues = k8s.NewNode(obj)
	case k8s.IsRuntimeClass(obj):
		v.rc, v.issues = k8s.NewRuntimeClass(obj)
	default:
		v.workload, v.issues = shared.Workload(obj)
	}
	return v
}

// Select returns the rules a run uses, sorted by id.
func Select(all []*rules.Rule, enable, disable []string) ([]*rules.Rule, error) {
	on := map[string]bool{}
	allOn := false
	for _, id := range enable {
		if id == "all" {
			allOn = true
			continue
		}
		if find(all, id) == nil {
			return nil, fmt.Errorf("--enable: unknown rule %q%s (taintlint rules lists them)", id, Suggest(id, ruleIDs(all)))
		}
		on[id] = true
	}
	off := map[string]bool{}
	for _, id := range disable {
		if id == "all" {
			for _, r := range all {
				off[r.ID] = true
			}
			continue
		}
		if find(all, id) == nil {
			return nil, fmt.Errorf("--disable: unknown rule %q%s (taintlint rules lists them)", id, Suggest(id, ruleIDs(all)))
		}
		off[id] = true
	}
	var out []*rules.Rule
	for _, r := range all {
		if off[r.ID] || !(r.Default || allOn || on[r.ID]) {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func find(all []*rules.Rule, id string) *rules.Rule {
	for _, r := range all {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// runRules runs every rule, in parallel; the order of findings is fixed
// later by sorting.
func runRules(ctx context.Context, selected []*rules.Rule, in *rules.Input) ([]rules.Finding, error) {
	var (
		mu       sync.Mutex
		findings []rules.Finding
		errs     []error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, r := range selected {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(r *rules.Rule) {
			defer wg.Done()
			defer func() { <-sem }()
			var local []rules.Finding
			err := safeRun(r, rules.NewPass(r, in, func(f rules.Finding) { local = append(local, f) }))
			mu.Lock()
			defer mu.Unlock()
			findings = append(findings, local...)
			if err != nil {
				errs = append(errs, fmt.Errorf("rule %s: %w", r.ID, err))
			}
		}(r)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return nil, errs[0]
	}
	return findings, nil
}

// safeRun turns a panicking rule into an error naming it, so one broken
// rule cannot crash the run with a goroutine dump.
func safeRun(r *rules.Rule, p *rules.Pass) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error (please report it): %v", v)
		}
	}()
	return r.Run(p)
}
