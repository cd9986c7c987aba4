// Package builtin holds taintlint's Go rules, one file per family. Rules
// returns fresh values on every call: an explicit list, no init()
// registration and nothing shared to mutate.
package builtin

import (
	"github.com/taintlint/taintlint/rules"
)

// Rules returns every built-in Go rule.
func Rules() []*rules.Rule {
	all := []*rules.Rule{
		parseError(),
		taintEffectInvalid(),
		tolerationSecondsRequiresNoExecute(),
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
