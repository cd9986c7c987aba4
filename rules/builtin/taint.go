package builtin

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// taintIssues validates the taints of every inventory node.
func taintIssues(in *rules.Input) []issue {
	g := newDecodeGuard(in)
	var out []issue
	for _, n := range in.NodeObjects {
		path := field.NewPath("spec", "taints")
		skip := func(i int) bool { return !g.ok(n.Object, path.Index(i), &v1.Taint{}) }
		out = append(out, validateTaints(n.Object, n.Node.Spec.Taints, path, skip)...)
	}
	for _, l := range in.PoolTaints {
		out = append(out, validateTaintsAt(l.Object, l.Taints, l.Path, l.Path, nil)...)
	}
	for _, is := range legacyAnnotationIssues(in) {
		if is.rule != "parse-error" && !strings.HasPrefix(is.rule, "toleration-") {
			out = append(out, is)
		}
	}
	return out
}

// validateTaints is pkg/apis/core/validation validateNodeTaints (v1.37.1).
// The API server validates node taints under metadata.taints (ValidateNode
// builds the path from "metadata"), so its errors say metadata.taints while
// findings point at the manifest's spec.taints.
func validateTaints(obj *loader.Object, taints []v1.Taint, path *field.Path, skip func(int) bool) []issue {
	return validateTaintsAt(obj, taints, path, field.NewPath("metadata", "taints"), skip)
}

// validateTaintsAt is validateTaints with the path the API server names.
func validateTaintsAt(obj *loader.Object, taints []v1.Taint, path, api *field.Path, skip func(int) bool) []issue {
	var out []issue
	add := func(ruleID string, at *field.Path, msg string, errs ...*field.Error) {
		out = append(out, issue{rule: ruleID, obj: obj, path: at, msg: msg, errs: errs})
	}
	type keyEffect struct{ key, effect string }
	first := map[keyEffect]int{}
	for i := range taints {
		if skip != nil && skip(i) {
			continue
		}
		t := &taints[i]
		p, ap := path.Index(i), api.Index(i)

		if errs := labelKeyIssues(t.Key, ap); len(errs) > 0 {
			msg := fmt.Sprintf("taint key %q is not a valid label key: %s", t.Key, explainLabelKey(t.Key, validLabelKey(t.Key)))
			if t.Key == "" {
				msg = "taint has no key: every taint needs one, a label key such as dedicated or example.com/gpu"
			}
			add("taint-key-invalid", p.Child("key"), msg, errs...)
		}

		if msgs := labelValueIssues(t.Value); len(msgs) > 0 {
			fix := "fix the value, or leave it empty"
			if like := labelValueLike(t.Value); like != "" {
				fix = fmt.Sprintf("use a value such as %q, or none", like)
			}
			add("taint-value-invalid", p.Child("value"),
				fmt.Sprintf("taint value %q is not a valid label value: %s; %s", t.Value, explainLabelValue(t.Value, msgs), fix),
				field.Invalid(ap.Child("value"), t.Value, strings.Join(msgs, ";")))
		}

		switch {
		case t.Effect == "":
			add("taint-effect-invalid", p.Child("effect"),
				fmt.Sprintf("taint %q has no effect: set effect to one of NoSchedule, PreferNoSchedule or NoExecute", t.ToString()),
				field.Required(ap.Child("effect"), ""))
		case !validTaintEffect(t.Effect):
			add("taint-effect-invalid", p.Child("effect"),
				fmt.Sprintf("taint effect %q is not supported%s", t.Effect, suggest(string(t.Effect), validEffects)),
				field.NotSupported(ap.Child("effect"), t.Effect, validEffects))
		}

		k := keyEffect{t.Key, string(t.Effect)}
		if j, dup := first[k]; dup {
			e := field.Duplicate(ap, internalTaint{Key: t.Key, Value: t.Value, Effect: t.Effect, TimeAdded: t.TimeAdded})
			e.Detail = "taints must be unique by key and effect pair"
			prev := &taints[j]
			values := fmt.Sprintf("both with value %q", t.Value)
			if prev.Value != t.Value {
				values = fmt.Sprintf("values %q and %q", prev.Value, t.Value)
			}
			add("taint-duplicate", p,
				fmt.Sprintf("taint %s repeats %s (%s): a node holds one taint per key and effect; keep one, or give them different effects", describeTaint(t), path.Index(j), values), e)
			continue
		}
		first[k] = i
	}
	return out
}

// labelKeyIssues is metav1validation.ValidateLabelName of key at
// api.key, without its regular expressions for a key valid at a glance
// (plainLabelKey).
func labelKeyIssues(key string, api *field.Path) field.ErrorList {
	if plainLabelKey(key) {
		return nil
	}
	return metav1validation.ValidateLabelName(key, api.Child("key"))
}

// internalTaint has the shape of k8s.io/kubernetes pkg/apis/core Taint,
// the type the API server validates: without JSON tags, it prints with
// capitalised field names in a Duplicate value error.
type internalTaint struct {
	Key       string
	Value     string
	Effect    v1.TaintEffect
	TimeAdded *metav1.Time
}

// describeTaint names a taint by key and effect, quoted.
func describeTaint(t *v1.Taint) string {
	if t.Effect == "" {
		return fmt.Sprintf("%q", t.Key)
	}
	return fmt.Sprintf("%q", t.Key+":"+string(t.Effect))
}

func taintEffectInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
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
	}, src)
}

func taintKeyInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "taint-key-invalid",
		Summary:  "Node taint key that is empty or not a valid label key",
		Severity: rules.Error,
		Doc: `A taint key is a label key: a name of up to 63 bytes (letters, digits, '-',
'_' and '.', starting and ending with a letter or digit), optionally after a
lower-case DNS subdomain prefix of up to 253 bytes and a single '/'. Unlike a
toleration's, a taint's key may not be empty. The API server rejects the Node
otherwise (validateNodeTaints; its error names metadata.taints, taintlint the
manifest's spec.taints).`,
		Bad: `spec:
  taints:
  - key: example.com/GPU type
    effect: NoSchedule`,
		Good: `spec:
  taints:
  - key: example.com/gpu-type
    effect: NoSchedule`,
	}, src)
}

func taintValueInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "taint-value-invalid",
		Summary:  "Node taint value that is not a valid label value",
		Severity: rules.Error,
		Doc: `A taint value is a label value: empty, or up to 63 bytes of letters, digits,
'-', '_' and '.', starting and ending with a letter or digit. Any such value
is allowed, numbers included; a taint does not need a numeric value even when
tolerations compare it with Lt or Gt (those then simply do not match). The API
server rejects the Node otherwise.`,
		Bad: `spec:
  taints:
  - key: dedicated
    value: team a
    effect: NoSchedule`,
		Good: `spec:
  taints:
  - key: dedicated
    value: team-a
    effect: NoSchedule`,
	}, src)
}

func taintDuplicate(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "taint-duplicate",
		Summary:  "Node has two taints with the same key and effect",
		Severity: rules.Error,
		Doc: `A node holds at most one taint per key and effect, whatever the values: the
API server rejects a Node whose spec.taints repeats a key and effect pair
("taints must be unique by key and effect pair"). The same key with different
effects is fine. Keep one of the two, or give them different effects.`,
		Bad: `spec:
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: dedicated, value: ml, effect: NoSchedule}`,
		Good: `spec:
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: dedicated, value: gpu, effect: NoExecute}`,
	}, src)
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
