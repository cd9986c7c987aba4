package lint

import (
	"context"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// LoadInput loads the checked paths and the node inventory into the
// input rules see, without running any rule (taintlint explain).
func LoadInput(ctx context.Context, opts Options) (*rules.Input, error) {
	checked, err := loader.Load(ctx, opts.Paths, opts.Loader)
	if err != nil {
		return nil, err
	}
	inv := loadInventory(ctx, opts)
	if inv.err != nil {
		return nil, inv.err
	}
	in, built := buildInput(ctx, checked, inv.result, opts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return in, checkInventory(opts.Nodes, inv.result, built)
}
