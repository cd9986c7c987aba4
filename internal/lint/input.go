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
	in, _, err := buildInput(ctx, checked, opts)
	return in, err
}
