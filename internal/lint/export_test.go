package lint

import (
	"context"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// BuildInput exposes the driver's input stage to its benchmarks.
func BuildInput(ctx context.Context, checked *loader.Result, opts Options) (*rules.Input, error) {
	in, _ := buildInput(ctx, checked, nil, opts)
	return in, ctx.Err()
}
