package builtin

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/rules"
)

func tolerationSecondsRequiresNoExecute() *rules.Rule {
	return rule(rules.Rule{
		ID:       "toleration-seconds-requires-noexecute",
		Summary:  "Toleration sets tolerationSeconds but its effect is not NoExecute",
		Severity: rules.Error,
		Doc: `tolerationSeconds says how long a pod may stay on a node after a NoExecute
taint appears; it means nothing for other effects, and the API server rejects
it unless effect is NoExecute (an empty effect included). Set effect:
NoExecute, or remove tolerationSeconds.`,
		Bad: `tolerations:
- key: node.kubernetes.io/unreachable
  operator: Exists
  tolerationSeconds: 60`,
		Good: `tolerations:
- key: node.kubernetes.io/unreachable
  operator: Exists
  effect: NoExecute
  tolerationSeconds: 60`,
		Run: func(p *rules.Pass) error {
			forEachToleration(p.Input, func(l tolerationList, i int, t *v1.Toleration, path *field.Path) {
				if t.TolerationSeconds == nil || t.Effect == v1.TaintEffectNoExecute {
					return
				}
				effect := "effect is empty"
				if t.Effect != "" {
					effect = "effect is " + string(t.Effect)
				}
				p.Reportf(l.Object, path.Child("effect"), "tolerationSeconds: %d applies only to NoExecute taints, but %s: set effect: NoExecute, or remove tolerationSeconds (API server: %s: Invalid value: %q: effect must be 'NoExecute' when `tolerationSeconds` is set)", *t.TolerationSeconds, effect, path.Child("effect"), t.Effect)
			})
			return nil
		},
	})
}
