package rego

import (
	"context"

	"github.com/taintlint/taintlint/rules"
)

// LoadWithoutShortcuts is Load with the per-run facts cache (and the
// findings of facts-only rules kept with it) and the evaluation of an
// object's rules in one query turned off, for tests that compare runs with
// and without them.
func LoadWithoutShortcuts(ctx context.Context, dirs []string) ([]*rules.Rule, error) {
	e, rs, err := load(ctx, dirs)
	if e != nil {
		e.shortcuts = false
	}
	return rs, err
}

// LoadCompiled is Load that returns once the embedded policies, which
// Load compiles in the background, are compiled and prepared too, for
// benchmarks of the whole cost.
func LoadCompiled(ctx context.Context, dirs []string) ([]*rules.Rule, error) {
	e, rs, err := load(ctx, dirs)
	if err != nil {
		return nil, err
	}
	return rs, e.wait()
}
