package builtin

import (
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// tolerationIssues validates every toleration list of the input: pod specs
// as ValidatePodSpec does (Lt/Gt only with the feature gate), RuntimeClass
// scheduling.tolerations as the node.k8s.io validation does (never Lt/Gt,
// no duplicates).
func tolerationIssues(in *rules.Input) []issue {
	g := newDecodeGuard(in)
	valid := newValidLabels()
	var out []issue
	for _, l := range tolerationLists(in) {
		allowCmp := in.Gates.TaintTolerationComparisonOperators && !l.RuntimeClass
		if !l.RuntimeClass && valid.allPlain(l.Tolerations) {
			continue // no issue to find: most lists
		}
		skip := func(i int) bool { return !g.ok(l.Object, l.Path.Index(i), &v1.Toleration{}) }
		out = append(out, validateTolerations(l.Object, l.Tolerations, l.Path, allowCmp, l.RuntimeClass, skip)...)
	}
	for _, is := range legacyAnnotationIssues(in) {
		if strings.HasPrefix(is.rule, "toleration-") {
			out = append(out, is)
		}
	}
	return out
}

// allPlain reports whether every toleration of tols is plainToleration.
func (vl *validLabels) allPlain(tols []v1.Toleration) bool {
	for i := range tols {
		if !vl.plainToleration(&tols[i]) {
			return false
		}
	}
	return true
}

// plainToleration reports whether t is valid the plain way (a valid key,
// or none with Exists; Equal with a valid value, or Exists with none;
// tolerationSeconds only with NoExecute; a valid effect or none), which
// validateTolerations finds no issue with, remembering valid keys and
// values. Lt and Gt are left to validateTolerations.
func (vl *validLabels) plainToleration(t *v1.Toleration) bool {
	switch {
	case t.Key == "" && t.Operator != v1.TolerationOpExists:
		return false
	case t.TolerationSeconds != nil && t.Effect != v1.TaintEffectNoExecute:
		return false
	case t.Effect != "" && !validTaintEffect(t.Effect):
		return false
	}
	switch t.Operator {
	case v1.TolerationOpExists:
		if t.Value != "" {
			return false
		}
	case v1.TolerationOpEqual, "":
		if !vl.values[t.Value] {
			if !plainLabelValue(t.Value) {
				return false
			}
			vl.values[t.Value] = true
		}
	default:
		return false
	}
	if t.Key != "" && !vl.keys[t.Key] {
		if len(metav1validation.ValidateLabelName(t.Key, nil)) > 0 {
			return false
		}
		vl.keys[t.Key] = true
	}
	return true
}

// The operators ValidateTolerations names, in its order: the two it
// always accepts, and the list its Lt/Gt error prints.
var (
	tolerationOpsBasic = []string{string(v1.TolerationOpEqual), string(v1.TolerationOpExists)}
	tolerationOpsAll   = []string{string(v1.TolerationOpEqual), string(v1.TolerationOpExists), string(v1.TolerationOpLt), string(v1.TolerationOpGt)}
)

// validateTolerations is pkg/apis/core/validation ValidateTolerations
// (v1.37.1), and with runtimeClass also the uniqueness check of
// pkg/apis/node/validation validateTolerations. skip, if not nil, leaves
// out tolerations that did not decode.
func validateTolerations(obj *loader.Object, tols []v1.Toleration, path *field.Path, allowCmp, runtimeClass bool, skip func(int) bool) []issue {
	var out []issue
	add := func(ruleID string, at *field.Path, msg string, errs ...*field.Error) {
		out = append(out, issue{rule: ruleID, obj: obj, path: at, msg: msg, errs: errs})
	}
	for i := range tols {
		if skip != nil && skip(i) {
			continue
		}
		t := &tols[i]
		p := path.Index(i)

		// 1. The key, when there is one, is a label key.
		if t.Key != "" {
			if errs := metav1validation.ValidateLabelName(t.Key, p.Child("key")); len(errs) > 0 {
				add("toleration-key-invalid", p.Child("key"), fmt.Sprintf("toleration key %q is not a valid label key: %s; taint keys follow the same rules, so no taint has this key: write it as the node's taint spells it", t.Key, explainLabelKey(t.Key, validLabelKey(t.Key))), errs...)
			}
		}

		// 2. An empty key is the wildcard, and only with Exists.
		if t.Key == "" && t.Operator != v1.TolerationOpExists {
			op := fmt.Sprintf("operator is %s", t.Operator)
			if t.Operator == "" {
				op = "operator is empty, which means Equal"
			}
			add("toleration-empty-key-requires-exists", p.Child("operator"),
				fmt.Sprintf("toleration has no key, and %s: a toleration without a key must use operator Exists, which tolerates every taint (narrowed by effect, if set); set operator: Exists, or set key to the taint to tolerate", op),
				field.Invalid(p.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}

		// 3. tolerationSeconds only with NoExecute.
		if t.TolerationSeconds != nil && t.Effect != v1.TaintEffectNoExecute {
			effect := "effect is empty"
			if t.Effect != "" {
				effect = "effect is " + string(t.Effect)
			}
			add("toleration-seconds-requires-noexecute", p.Child("effect"),
				fmt.Sprintf("tolerationSeconds: %d applies only to NoExecute taints, but %s: set effect: NoExecute, or remove tolerationSeconds", *t.TolerationSeconds, effect),
				field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}

		// 4. Operator and value.
		switch t.Operator {
		case v1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				msg := fmt.Sprintf("toleration value %q is not a valid label value: %s; the value must equal the taint's value, which follows the same rules: write it as the taint has it, or use operator Exists to tolerate every value of the key", t.Value, explainLabelValue(t.Value, msgs))
				if before, after, ok := strings.Cut(t.Value, ":"); ok && len(validation.IsValidLabelValue(before)) == 0 {
					if e := didYouMean(after, validEffects); e != "" {
						msg = fmt.Sprintf("toleration value %q is not a valid label value: it looks like the value:effect form of kubectl taint; write value: %q and effect: %s", t.Value, before, e)
					}
				}
				add("toleration-value-invalid", p.Child("value"), msg,
					field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case v1.TolerationOpExists:
			if t.Value != "" {
				// Reported by the embedded Rego rule of this id; kept here
				// so the error list is upstream's in full.
				add("toleration-exists-with-value", p.Child("value"),
					fmt.Sprintf("toleration operator is Exists, so value %q is ignored by matching and rejected by the API server: remove value, or use operator Equal", t.Value),
					field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case v1.TolerationOpLt, v1.TolerationOpGt:
			if !allowCmp {
				msg := fmt.Sprintf("toleration operator %s needs the TaintTolerationComparisonOperators feature gate (alpha, off by default in Kubernetes 1.35 to 1.37): without it the API server rejects the object and the scheduler never matches %s; use Equal or Exists, or, if the cluster's kube-apiserver and kube-scheduler run with the gate, tell taintlint with --feature-gates TaintTolerationComparisonOperators=true", t.Operator, t.Operator)
				if runtimeClass {
					msg = fmt.Sprintf("RuntimeClass tolerations never allow operator %s, even with the TaintTolerationComparisonOperators feature gate: use Equal or Exists here, or put the %s toleration in the pod spec", t.Operator, t.Operator)
				}
				add("toleration-operator-invalid", p.Child("operator"), msg,
					field.NotSupported(p.Child("operator"), t.Operator, tolerationOpsAll))
				break
			}
			var errs field.ErrorList
			for _, m := range content.IsDecimalInteger(t.Value) {
				errs = append(errs, field.Invalid(p.Child("value"), t.Value, m))
			}
			n, err := strconv.ParseInt(t.Value, 10, 64)
			if err != nil {
				errs = append(errs, field.Invalid(p.Child("value"), t.Value, err.Error()))
			}
			if len(errs) > 0 {
				fix := "write a plain decimal integer like 950 (no sign but '-', no leading zeros, no spaces, within 64 bits)"
				if err == nil && strconv.FormatInt(n, 10) != t.Value {
					fix = fmt.Sprintf("write it as %q", strconv.FormatInt(n, 10))
				}
				add("toleration-value-invalid", p.Child("value"),
					fmt.Sprintf("toleration operator %s compares numbers, but value %q is not a decimal integer in canonical form: %s", t.Operator, t.Value, fix), errs...)
			}
		default:
			valid := tolerationOpsBasic
			if allowCmp {
				valid = tolerationOpsAll
			}
			note := ""
			if s := didYouMean(string(t.Operator), valid); s != "" && strings.EqualFold(s, string(t.Operator)) {
				note = " (operators are case-sensitive)"
			}
			add("toleration-operator-invalid", p.Child("operator"),
				fmt.Sprintf("toleration operator %q is not supported%s%s", t.Operator, suggest(string(t.Operator), valid), note),
				field.NotSupported(p.Child("operator"), t.Operator, tolerationOpsBasic))
		}

		// 5. The effect, when there is one.
		if t.Effect != "" && !validTaintEffect(t.Effect) {
			add("toleration-effect-invalid", p.Child("effect"),
				fmt.Sprintf("toleration effect %q is not supported (effect may also be left empty, which matches every effect)%s", t.Effect, suggest(string(t.Effect), validEffects)),
				field.NotSupported(p.Child("effect"), t.Effect, validEffects))
		}
	}
	if runtimeClass {
		// pkg/apis/node/validation: unique by key, operator, value and
		// effect (tolerationSeconds aside).
		type listKey struct {
			key, op, value, effect string
		}
		first := map[listKey]int{}
		for i := range tols {
			if skip != nil && skip(i) {
				continue
			}
			t := &tols[i]
			k := listKey{t.Key, string(t.Operator), t.Value, string(t.Effect)}
			j, dup := first[k]
			if !dup {
				first[k] = i
				continue
			}
			add("toleration-duplicate", path.Index(i),
				fmt.Sprintf("RuntimeClass toleration %s repeats %s (same key, operator, value and effect): remove one", describeToleration(t), path.Index(j)),
				field.Duplicate(path.Index(i), internalToleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect, TolerationSeconds: t.TolerationSeconds}))
		}
	}
	return out
}

// internalToleration has the shape of k8s.io/kubernetes pkg/apis/core
// Toleration, the type the API server validates: without JSON tags, it
// prints with capitalised field names in a Duplicate value error.
type internalToleration struct {
	Key               string
	Operator          v1.TolerationOperator
	Value             string
	Effect            v1.TaintEffect
	TolerationSeconds *int64
}

// describeToleration names a toleration briefly, for messages.
func describeToleration(t *v1.Toleration) string {
	key := t.Key
	if key == "" {
		key = "(any key)"
	}
	s := key
	switch t.Operator {
	case v1.TolerationOpExists:
		s += " Exists"
	case "", v1.TolerationOpEqual:
		s += "=" + t.Value
	default:
		s += " " + string(t.Operator) + " " + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return strconv.Quote(s)
}

func tolerationKeyInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "toleration-key-invalid",
		Summary:  "Toleration key that is not a valid label key",
		Severity: rules.Error,
		Doc: `A toleration's key names a taint key, and taint keys are label keys: a name
of up to 63 bytes (letters, digits, '-', '_' and '.', starting and ending with
a letter or digit), optionally after a lower-case DNS subdomain prefix of up to
253 bytes and a single '/'. The API server rejects a toleration whose key is
anything else (ValidateTolerations calls ValidateLabelName), and no taint could
ever have such a key. An empty key is allowed: it is the wildcard (see
toleration-empty-key-requires-exists).`,
		Bad: `tolerations:
- key: Example.com/gpu
  operator: Exists`,
		Good: `tolerations:
- key: example.com/gpu
  operator: Exists`,
	}, src)
}

func tolerationEmptyKeyRequiresExists(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "toleration-empty-key-requires-exists",
		Summary:  "Toleration without a key whose operator is not Exists",
		Severity: rules.Error,
		Doc: `A toleration without a key matches every taint key, and the API server
allows that only with operator: Exists ("match all values and all keys"). An
empty operator means Equal, so a bare toleration such as {} or {effect:
NoSchedule} is rejected, as are Equal, Lt and Gt without a key. Set operator:
Exists for a wildcard (an effect still narrows it), or name the taint's key.`,
		Bad: `tolerations:
- effect: NoSchedule`,
		Good: `tolerations:
- operator: Exists
  effect: NoSchedule`,
	}, src)
}

func tolerationSecondsRequiresNoExecute(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
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
	}, src)
}

func tolerationValueInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "toleration-value-invalid",
		Summary:  "Toleration value the API server rejects for its operator",
		Severity: rules.Error,
		Doc: `With operator Equal (or no operator), a toleration's value must equal the
taint's value, and both are label values: up to 63 bytes of letters, digits,
'-', '_' and '.', starting and ending with a letter or digit, or empty. The API
server rejects anything else (it reports the error at .operator; taintlint
points at the value).

With operator Lt or Gt (feature gate TaintTolerationComparisonOperators), the
value is compared as a number and must be a decimal integer in canonical form:
0, or an optional '-' and digits without a leading zero, within 64 bits. "0100",
"+5", "1.5" and an empty value are rejected.

A value under operator Exists is toleration-exists-with-value.`,
		Bad: `tolerations:
- key: dedicated
  operator: Equal
  value: team a`,
		Good: `tolerations:
- key: dedicated
  operator: Equal
  value: team-a`,
	}, src)
}

func tolerationOperatorInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "toleration-operator-invalid",
		Summary:  "Toleration operator that is not Equal or Exists (or Lt/Gt behind their feature gate)",
		Severity: rules.Error,
		Doc: `Tolerations know two operators, Equal (the default) and Exists, spelt
exactly so. Lt and Gt compare numbers, but only where the alpha feature gate
TaintTolerationComparisonOperators is on (off by default in Kubernetes 1.35 to
1.37): without it the API server rejects them and the scheduler never matches
them. Run taintlint with --feature-gates TaintTolerationComparisonOperators=true
(or featureGates in .taintlint.yaml) when your cluster has the gate on.
RuntimeClass scheduling.tolerations never allow Lt or Gt.

Node affinity's In, NotIn and DoesNotExist are not toleration operators.`,
		Bad: `tolerations:
- key: dedicated
  operator: equal
  value: gpu`,
		Good: `tolerations:
- key: dedicated
  operator: Equal
  value: gpu`,
	}, src)
}

func tolerationEffectInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "toleration-effect-invalid",
		Summary:  "Toleration effect that is not NoSchedule, PreferNoSchedule or NoExecute",
		Severity: rules.Error,
		Doc: `A toleration's effect, when set, must be one of the taint effects
NoSchedule, PreferNoSchedule or NoExecute, spelt exactly so
(NoScheduleNoAdmit was never enabled). An empty effect matches every effect.
The API server rejects any other value.`,
		Bad: `tolerations:
- key: dedicated
  operator: Exists
  effect: noschedule`,
		Good: `tolerations:
- key: dedicated
  operator: Exists
  effect: NoSchedule`,
	}, src)
}

func tolerationDuplicate(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "toleration-duplicate",
		Summary:  "RuntimeClass lists the same toleration twice",
		Severity: rules.Error,
		Doc: `The API server requires a RuntimeClass's scheduling.tolerations to be
unique by key, operator, value and effect (tolerationSeconds aside), and
rejects the RuntimeClass otherwise. Pod specs have no such check. Remove the
repeated entry.`,
		Bad: `scheduling:
  tolerations:
  - {key: sandbox, operator: Exists, effect: NoSchedule}
  - {key: sandbox, operator: Exists, effect: NoSchedule}`,
		Good: `scheduling:
  tolerations:
  - {key: sandbox, operator: Exists, effect: NoSchedule}`,
	}, src)
}
