// Package builtin holds taintlint's Go rules, one file per family. Rules
// returns fresh values on every call: an explicit list, no init()
// registration and nothing shared to mutate.
package builtin

import (
	"github.com/taintlint/taintlint/rules"
)

// Rules returns every built-in Go rule.
func Rules() []*rules.Rule {
	// The validation rules of a family share one computation per run.
	taints, tols, sels := memo(taintIssues), memo(tolerationIssues), memo(selectorIssues)
	all := []*rules.Rule{
		parseError(),
		selectorInvalid(sels),
		taintDuplicate(taints),
		taintEffectInvalid(taints),
		taintKeyInvalid(taints),
		taintValueInvalid(taints),
		tolerationDuplicate(tols),
		tolerationEffectInvalid(tols),
		tolerationEmptyKeyRequiresExists(tols),
		tolerationKeyInvalid(tols),
		tolerationOperatorInvalid(tols),
		tolerationSecondsRequiresNoExecute(tols),
		tolerationValueInvalid(tols),
	}
	return append(all, schedulingRules()...)
}

// rule fills the fields every built-in rule shares.
func rule(r rules.Rule) *rules.Rule {
	r.Source = rules.Go
	r.URL = rules.RuleURL(r.ID)
	r.Default = true // every built-in rule is on unless disabled
	return &r
}
