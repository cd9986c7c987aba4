package checker

import (
	"context"

	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
	"github.com/taintlint/taintlint/rules/builtin"
)

// Rules is every rule a run can select from: the built-in Go rules, the
// embedded Rego rules and the custom Rego rules in policyDirs, validated
// together. The list is explicit: no rule registers itself.
func Rules(ctx context.Context, policyDirs []string) ([]*rules.Rule, error) {
	return RulesLimited(ctx, policyDirs, rego.Limits{})
}

// RulesLimited is Rules with the Rego rules' evaluation bounded by lim.
func RulesLimited(ctx context.Context, policyDirs []string, lim rego.Limits) ([]*rules.Rule, error) {
	all := builtin.Rules()
	regoRules, err := rego.LoadLimited(ctx, policyDirs, lim)
	if err != nil {
		return nil, err
	}
	all = append(all, regoRules...)
	if err := rules.Validate(all); err != nil {
		return nil, err
	}
	return all, nil
}
