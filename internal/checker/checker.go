// Package checker runs taintlint's rules over a run's inputs, as
// go/analysis's checker runs analyzers: it loads the inputs, selects and
// runs the rules after their prerequisites, locates the findings in the
// sources, withholds those that turn on what is not known of a node pool
// (unknown.go), then passes them through an ordered list of small steps
// (severity overrides, suppression, de-duplication, sorting). It knows
// no command line, baseline or report: internal/lint builds a run's
// report on it, and rules/rulestest checks rules with it.
package checker

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"

	"github.com/taintlint/taintlint/internal/pools"
	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/report"
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
	// Kinds are the custom kinds whose pod templates and placement fields
	// are read (nil: the operators' alone, k8s.OperatorKinds).
	Kinds *k8s.Kinds
	// NodeState says whether the inventory's transient taints and cordons
	// count ("" is NodeStateStable).
	NodeState NodeState

	// OpenFile opens a file that was read, to find its inline suppression
	// comments (nil: os.Open), from several goroutines at once; a file
	// that holds a comment is opened twice. The cli serves standard
	// input's bytes through it.
	OpenFile func(name string) (io.ReadCloser, error)
}

// Suppression is one suppression entry from the configuration.
type Suppression struct {
	Rules   []string // rule ids; empty means every rule
	Paths   []string // globs over finding file paths (** crosses directories)
	Objects []string // Kind/namespace/name or Kind/name patterns, * wildcards
	Reason  string
}

// Result is what a check found, and what it read to find it.
type Result struct {
	// Rules are the rules the run selected, sorted by id.
	Rules []*rules.Rule
	// Findings are sorted; a suppressed one says why (Suppressed).
	Findings []rules.Finding
	// Warnings are about the suppressions the manifests hold (an
	// annotation naming no rule, a directive that suppresses nothing).
	Warnings []string
	// Checked and Inventory are what the loader read (Inventory is nil
	// without nodes); Input is what the rules saw.
	Checked, Inventory *loader.Result
	Input              *rules.Input
	// InventorySummary says what the node inventory held (nil without
	// one); InventoryNotes are its builder's words on what it left out.
	InventorySummary *report.InventorySummary
	InventoryNotes   []string
}

// Run loads the inputs and runs the selected rules. The error is for a run
// that could not happen (a missing path, a rule that broke), never for
// findings.
func Run(ctx context.Context, opts Options) (*Result, error) {
	selected, err := Select(opts.Rules, opts.Enable, opts.Disable)
	if err != nil {
		return nil, err
	}
	if err := checkRuleIDs(opts); err != nil {
		return nil, err
	}

	ld, err := load(ctx, opts)
	if err != nil {
		return nil, err
	}
	var seeded map[*rules.Prerequisite]any
	if ld.placer != nil {
		seeded = map[*rules.Prerequisite]any{prereq.Placement: ld.placer}
	}
	findings, err := runRules(ctx, selected, ld.in, seeded)
	if err != nil {
		return nil, err
	}
	findings, withheld, err := withholdUnknown(ctx, selected, ld.in, ld.built.unknown, findings)
	if err != nil {
		return nil, err
	}
	if f := ld.checked.Focus; f != nil {
		kept := findings[:0]
		for _, x := range findings {
			if f.Keeps(x.Object, x.Pos) {
				kept = append(kept, x)
			}
		}
		findings = kept
	}
	res := &Result{
		Rules:            selected,
		Checked:          ld.checked,
		Inventory:        ld.inv,
		Input:            ld.in,
		InventorySummary: ld.built.summary,
		InventoryNotes:   append(ld.built.notes[:len(ld.built.notes):len(ld.built.notes)], withheld...),
	}
	for _, step := range steps(opts, ld.in, ld.directiveFiles(), res) {
		findings = step(findings)
	}
	res.Findings = findings
	return res, nil
}

// Ran says whether the rule of id ran and could find something:
// selected, and with the inventory it needs.
func (r *Result) Ran(id string) bool {
	for _, x := range r.Rules {
		if x.ID == id {
			return !x.NeedsInventory || r.Input.HasInventory()
		}
	}
	return false
}

// checkRuleIDs refuses severity overrides and suppressions that name no
// rule of the run's list.
func checkRuleIDs(opts Options) error {
	for id := range opts.Severity {
		if find(opts.Rules, id) == nil {
			return fmt.Errorf("severity override for unknown rule %q%s", id, Suggest(id, ruleIDs(opts.Rules)))
		}
	}
	for _, s := range opts.Suppress {
		for _, id := range s.Rules {
			if find(opts.Rules, id) == nil {
				return fmt.Errorf("suppression for unknown rule %q%s", id, Suggest(id, ruleIDs(opts.Rules)))
			}
		}
	}
	return nil
}

// buildInput decodes the typed views every rule shares, of the checked
// objects and of the inventory's Nodes (inv may be nil), and builds the
// node inventory from the latter alone.
func buildInput(ctx context.Context, checked, inv *loader.Result, opts Options) (*rules.Input, *inventory) {
	in := &rules.Input{Objects: checked.Objects, LoadErrors: checked.Errors, Gates: opts.Gates, Admission: opts.Admission, RuntimeTaintKeys: opts.RuntimeTaintKeys}
	objs := checked.Objects
	var invObjs []*loader.Object
	if inv != nil {
		in.LoadErrors = append(in.LoadErrors, inv.Errors...)
		invObjs = inv.Objects
		objs = objs[:len(objs):len(objs)]
		for _, obj := range inv.Objects {
			if k8s.IsNode(obj) {
				objs = append(objs, obj)
			}
		}
	}
	checkedPools, invPools, poolNote := readInputPools(in, checked.Objects, invObjs)
	var tfNotes []string
	var unknown map[*k8s.Node]*pools.Pool
	if inv != nil {
		var tfPools []*k8s.Node
		tfPools, tfNotes, unknown = readTerraformPools(in, inv.Terraform)
		invPools = append(invPools, tfPools...)
	}
	// Typed views are the costliest step after parsing: decode them on
	// every core, then file the results in input order.
	views := decodeViews(ctx, objs, opts.Kinds)
	var checkedNodes, invNodes []*k8s.Node
	seen := map[nodeSite]bool{}
	for i, obj := range objs {
		v := views[i]
		switch {
		case v.node != nil:
			if i < len(checked.Objects) {
				checkedNodes = append(checkedNodes, v.node)
			} else {
				invNodes = append(invNodes, v.node)
			}
			// A Node read twice (a file both checked and named by --nodes)
			// is validated once.
			if seen[siteOf(obj)] {
				continue
			}
			seen[siteOf(obj)] = true
			in.NodeObjects = append(in.NodeObjects, v.node)
		case v.rc != nil:
			in.RuntimeClasses = append(in.RuntimeClasses, v.rc)
		case v.workloads != nil:
			in.Workloads = append(in.Workloads, v.workloads...)
		}
		in.Placements = append(in.Placements, v.placements...)
		in.DecodeIssues = append(in.DecodeIssues, v.issues...)
	}
	built := buildInventory(invNodes, invPools, checkedNodes, checkedPools, opts.NodeState)
	if poolNote != "" {
		built.notes = append(built.notes, poolNote)
	}
	built.notes = append(built.notes, tfNotes...)
	built.unknown = unknown
	in.Nodes = built.nodes
	return in, built
}

// view is the typed view of one object.
type view struct {
	node       *k8s.Node
	rc         *k8s.RuntimeClass
	workloads  []*k8s.Workload
	placements []k8s.Placement
	issues     []*k8s.DecodeIssue
}

// decodeViews decodes every object's typed view in parallel.
func decodeViews(ctx context.Context, objs []*loader.Object, kinds *k8s.Kinds) []view {
	views := make([]view, len(objs))
	shared := k8s.NewInternerFor(kinds)
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
		v.workloads, v.issues = shared.Workloads(obj)
		var more []*k8s.DecodeIssue
		v.placements, more = shared.Placements(obj)
		v.issues = append(v.issues, more...)
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

// safePrereq is safeRun for a prerequisite.
func safePrereq(p *rules.Prerequisite, pp *rules.PrereqPass) (v any, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("internal error (please report it): %v", x)
		}
	}()
	return p.Run(pp)
}
