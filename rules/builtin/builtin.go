// Package builtin holds taintlint's Go rules, one file per family. Rules
// returns fresh values on every call: an explicit list, no init()
// registration and nothing shared to mutate.
package builtin

import (
	"fmt"

	"github.com/taintlint/taintlint/rules"
)

// Rules returns every built-in Go rule.
func Rules() []*rules.Rule {
	// The validation rules of a family share one computation per run.
	taints, tols, sels := issues("taint validation", taintIssues), issues("toleration validation", tolerationIssues), issues("selector validation", selectorIssues)
	all := []*rules.Rule{
		parseError(),
		fieldUnknown(),
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
	for _, r := range all {
		r.Doc += falsePositives(r.ID)
	}
	return append(all, schedulingRules()...)
}

// falsePositives is the closing paragraph of a validation rule's doc: the
// false positives it knows of, and how to suppress one.
func falsePositives(id string) string {
	var shapes string
	switch id {
	case "parse-error":
		shapes = "a template (Helm, Jinja, envsubst) that is YAML only once rendered, in a directory taintlint walks; render it first, or suppress the path in .taintlint.yaml"
	case "field-unknown":
		shapes = "a field Kubernetes added after 1.37, which a newer cluster accepts; an older cluster refuses fields added after it, which taintlint does not report"
	case "selector-invalid":
		shapes = "none known for what the API server rejects; requirements it accepts but the scheduler never matches (a non-integer Gt or Lt value) are reported too, on purpose"
	default:
		shapes = "none known: the check is the API server's own validation in Kubernetes 1.37 (apimachinery's validators), so the API server rejects what it reports; the Lt and Gt operators follow --feature-gates TaintTolerationComparisonOperators"
	}
	return fmt.Sprintf("\n\nKnown false positives: %s. To accept a finding, suppress it on the object with ignore-check.taintlint.io/%s: \"<reason>\", or by object or path in .taintlint.yaml.", shapes, id)
}

// rule fills the fields every built-in rule shares.
func rule(r rules.Rule) *rules.Rule {
	r.Source = rules.Go
	r.URL = rules.RuleURL(r.ID)
	r.Default = true // every built-in rule is on unless disabled
	return &r
}
