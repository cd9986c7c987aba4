package checker

import (
	"context"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// BuildInput and RunRules expose the driver's stages to its benchmarks.
func BuildInput(ctx context.Context, checked, inv *loader.Result, opts Options) (*rules.Input, error) {
	in, _ := buildInput(ctx, checked, inv, opts)
	return in, ctx.Err()
}
