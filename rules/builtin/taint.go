package builtin

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

func taintEffectInvalid() *rules.Rule {
	return rule(rules.Rule{
		ID:       "taint-effect-invalid",
		Summary:  "Node taint without an effect or with an effect Kubernetes does not know",
		Severity: rules.Error,
		Doc: `Every node taint needs an effect, and only NoSchedule, PreferNoSchedule and
NoExecute exist (matching is case-sensitive; NoScheduleNoAdmit was never
enabled). The API server rejects the Node otherwise (validateNodeTaints).`,
		Bad: `spec:
  taints:
  - key: dedicated
    value: gpu
    effect: noschedule`,
		Good: `spec:
  taints:
  - key: dedicated
    value: gpu
    effect: NoSchedule`,
		Run: func(p *rules.Pass) error {
			forEachTaint(p.Input, func(obj *loader.Object, i int, t *v1.Taint, path *field.Path) {
				if t.Effect == "" {
					p.Reportf(obj, path.Child("effect"), "taint %q has no effect: set effect to one of NoSchedule, PreferNoSchedule or NoExecute (API server: %s: Required value)", t.ToString(), apiPath(path.Child("effect")))
					return
				}
				if !validTaintEffect(t.Effect) {
					p.Reportf(obj, path.Child("effect"), "taint effect %q is not supported%s (API server: %s: Unsupported value: %q: %s)", t.Effect, suggest(string(t.Effect), validEffects), apiPath(path.Child("effect")), t.Effect, supportedValues(validEffects))
				}
			})
			return nil
		},
	})
}

func validTaintEffect(e v1.TaintEffect) bool {
	switch e {
	case v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
		return true
	}
	return false
}

// suggest formats a did-you-mean clause, or a list of valid values.
func suggest(bad string, valid []string) string {
	if s := didYouMean(bad, valid); s != "" {
		return fmt.Sprintf(": did you mean %s?", s)
	}
	return ": use one of " + joinOr(valid)
}

func joinOr(vals []string) string {
	switch len(vals) {
	case 0:
		return ""
	case 1:
		return vals[0]
	}
	s := ""
	for i, v := range vals {
		switch {
		case i == 0:
			s = v
		case i == len(vals)-1:
			s += " or " + v
		default:
			s += ", " + v
		}
	}
	return s
}

// apiPath is the field path the API server names in its error: it
// validates node taints under metadata.taints, not spec.taints.
func apiPath(p *field.Path) string {
	s := p.String()
	if len(s) >= len("spec.taints") && s[:len("spec.taints")] == "spec.taints" {
		return "metadata.taints" + s[len("spec.taints"):]
	}
	return s
}
