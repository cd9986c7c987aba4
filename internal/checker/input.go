package checker

import (
	"context"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// loaded is what a run reads before any rule runs: the checked objects,
// the inventory, the input rules see and the node groups. check and
// explain both get it from load, so they always see the same inputs.
type loaded struct {
	checked *loader.Result
	inv     *loader.Result // nil without --nodes
	in      *rules.Input
	built   *inventory
	// placer holds the node groups, built once per run for the summary
	// and every rule (the Placement prerequisite's value); nil without
	// an inventory.
	placer *prereq.Placer
}

// load reads the checked paths and the node inventory under one input
// budget, decodes the views every rule shares and builds the node groups.
func load(ctx context.Context, opts Options) (*loaded, error) {
	// The node inventory is read while the checked paths are: it is often
	// one big List, whose items the loader reads on every core too, and
	// reading both at once keeps every core busy to the end.
	loadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.Loader.Budget == nil { // one input budget for the paths and the inventory
		opts.Loader.Budget = loader.NewBudget(opts.Loader.Limits.InputBytes)
	}
	// The loader says which files hold no inline directive, while it
	// holds their bytes: those are not read again (suppressInline).
	opts.Loader.Marker = []byte(IgnoreDirective)
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
	in, built := buildInput(ctx, checked, inv.result, opts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkInventory(opts.Nodes, inv.result, built); err != nil {
		return nil, err
	}
	ld := &loaded{checked: checked, inv: inv.result, in: in, built: built}
	if in.HasInventory() {
		ld.placer = prereq.NewPlacer(in)
		if built.summary != nil {
			built.summary.Groups = len(ld.placer.Inventory.Groups)
		}
	}
	return ld, nil
}

// LoadInput loads the checked paths and the node inventory as Run does,
// without running any rule (taintlint explain): the input rules see and
// the run's placer (nil without an inventory).
func LoadInput(ctx context.Context, opts Options) (*rules.Input, *prereq.Placer, error) {
	ld, err := load(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	return ld.in, ld.placer, nil
}

// directiveFiles are the files read that may hold an inline directive:
// the loader listed those whose bytes do not (Result.Unmarked).
func (ld *loaded) directiveFiles() []string {
	unmarked := map[string]bool{}
	for _, r := range []*loader.Result{ld.checked, ld.inv} {
		if r != nil {
			for _, f := range r.Unmarked {
				unmarked[f] = true
			}
		}
	}
	var files []string
	for _, r := range []*loader.Result{ld.checked, ld.inv} {
		if r != nil {
			for _, f := range r.Files {
				if !unmarked[f] {
					files = append(files, f)
				}
			}
		}
	}
	return files
}
