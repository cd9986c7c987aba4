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
