package rego_test

import (
	"context"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/rules"
)

// runRules runs rs on in as the driver runs them (prerequisites first,
// the Rego rules in one pass over the objects) and returns their findings
// by rule, each rule's in the order it reported them.
func runRules(ctx context.Context, rs []*rules.Rule, in *rules.Input) (map[string][]rules.Finding, error) {
	fs, err := checker.RunRules(ctx, rs, in)
	if err != nil {
		return nil, err
	}
	out := map[string][]rules.Finding{}
	for _, f := range fs {
		out[f.Rule] = append(out[f.Rule], f)
	}
	return out, nil
}
