package builtin

import (
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// selectorIssues validates everything that selects nodes or that nodes are
// selected by: pod spec nodeSelector and node affinity, the placements of
// custom resources (whose fields decoded, or they are left zero), RuntimeClass
// scheduling.nodeSelector, and Node metadata.labels.
func selectorIssues(in *rules.Input) []issue {
	g := newDecodeGuard(in)
	valid := newValidLabels()
	var out []issue
	for _, w := range in.Workloads {
		if w.Merged() {
			continue // validated in the placements it is merged from
		}
		// Most selectors are clean: no path is made for them.
		if !g.clean(w.Object) || !valid.allValid(w.Spec.NodeSelector) {
			sel := w.SpecPath.Child("nodeSelector")
			if g.ok(w.Object, sel, &map[string]string{}) {
				out = append(out, valid.validate(w.Object, w.Spec.NodeSelector, sel, "nodeSelector")...)
			}
		}
		if a := w.Spec.Affinity; a != nil && a.NodeAffinity != nil {
			na := w.SpecPath.Child("affinity", "nodeAffinity")
			if g.ok(w.Object, na, &v1.NodeAffinity{}) {
				out = append(out, validateNodeAffinity(w.Object, a.NodeAffinity, na)...)
			}
		}
	}
	for _, p := range in.Placements {
		if p.NodeSelector != nil && !valid.allValid(p.NodeSelector) {
			out = append(out, valid.validate(p.Object, p.NodeSelector, p.Path.Child("nodeSelector"), "nodeSelector")...)
		}
		if p.NodeAffinity != nil {
			out = append(out, validateNodeAffinity(p.Object, p.NodeAffinity, p.NodeAffinityPath)...)
		}
	}
	for _, rc := range in.RuntimeClasses {
		if s := rc.RuntimeClass.Scheduling; s != nil {
			sel := field.NewPath("scheduling", "nodeSelector")
			if g.ok(rc.Object, sel, &map[string]string{}) {
				out = append(out, valid.validate(rc.Object, s.NodeSelector, sel, "RuntimeClass nodeSelector")...)
			}
		}
	}
	labels := field.NewPath("metadata", "labels") // read only: shared by the issues
	for _, n := range in.NodeObjects {
		if g.clean(n.Object) && valid.allValid(n.Node.Labels) {
			continue // most nodes
		}
		if g.ok(n.Object, labels, &map[string]string{}) {
			out = append(out, valid.validate(n.Object, n.Node.Labels, labels, "node label")...)
		}
	}
	return out
}

// validateLabels is apimachinery ValidateLabels: every error names the map
// itself, not the key; findings point at the key. Keys are walked in order,
// where upstream walks the map at random.
func validateLabels(obj *loader.Object, m map[string]string, path *field.Path, what string) []issue {
	return newValidLabels().validate(obj, m, path, what)
}

// validLabels are the label keys and values found valid so far: node
// labels and selectors repeat the same few across thousands of objects,
// and a valid one gives no issue wherever it is. Invalid ones are judged
// each time (their issues name the object and path).
type validLabels struct{ keys, values map[string]bool }

func newValidLabels() *validLabels {
	return &validLabels{keys: map[string]bool{}, values: map[string]bool{}}
}

// validate is validateLabels, remembering what is valid.
func (vl *validLabels) validate(obj *loader.Object, m map[string]string, path *field.Path, what string) []issue {
	if vl.allValid(m) { // most labels: no issue, so no order to keep
		return nil
	}
	var out []issue
	for _, k := range sortedKeys(m) {
		v := m[k]
		if vl.keys[k] && vl.values[v] {
			continue
		}
		if errs := metav1validation.ValidateLabelName(k, path); len(errs) > 0 {
			out = append(out, issue{rule: "selector-invalid", obj: obj, path: path.Key(k), errs: errs,
				msg: fmt.Sprintf("%s key %q is not a valid label key: %s", what, k, explainLabelKey(k, validLabelKey(k)))})
		} else {
			vl.keys[k] = true
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			var errs field.ErrorList
			for _, m := range msgs {
				errs = append(errs, field.Invalid(path, v, m))
			}
			out = append(out, issue{rule: "selector-invalid", obj: obj, path: path.Key(k), errs: errs,
				msg: fmt.Sprintf("%s %s=%q: the value is not a valid label value: %s", what, k, v, explainLabelValue(v, msgs))})
		} else {
			vl.values[v] = true
		}
	}
	return out
}

// allValid reports whether every key and value of m is valid, judging
// those not found valid before (a node's hostname is new on every node)
// and remembering the valid ones.
func (vl *validLabels) allValid(m map[string]string) bool {
	for k, v := range m {
		if !vl.keys[k] {
			if !plainLabelKey(k) && len(metav1validation.ValidateLabelName(k, nil)) > 0 {
				return false
			}
			vl.keys[k] = true
		}
		if !plainLabelValue(v) && !vl.values[v] {
			if len(validation.IsValidLabelValue(v)) > 0 {
				return false
			}
			vl.values[v] = true
		}
	}
	return true
}

// plainLabelKey reports whether k is a valid label key as
// validation.IsQualifiedName (and so metav1validation.ValidateLabelName)
// judges it, without its regular expressions: a name as plainLabelValue
// reads one, not empty, after an optional DNS-1123 subdomain and '/'.
func plainLabelKey(k string) bool {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		name = k
	} else if strings.IndexByte(name, '/') >= 0 || !dnsSubdomain(prefix) {
		return false
	}
	return name != "" && plainLabelValue(name)
}

// dnsSubdomain reports whether s is a DNS-1123 subdomain (at most 253
// bytes of dot-separated labels of lower-case alphanumerics and '-',
// each starting and ending with an alphanumeric), as
// validation.IsDNS1123Subdomain judges it.
func dnsSubdomain(s string) bool {
	if s == "" || len(s) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || !alnum(label[0]) || !alnum(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !alnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

// labelValueIssues is validation.IsValidLabelValue, without its regular
// expression for a value valid at a glance (plainLabelValue).
func labelValueIssues(v string) []string {
	if plainLabelValue(v) {
		return nil
	}
	return validation.IsValidLabelValue(v)
}

// plainLabelValue reports whether v is a valid label value as
// validation.IsValidLabelValue judges it (at most 63 bytes matching
// (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?), without its regular
// expression: a node's hostname label is new on every node.
func plainLabelValue(v string) bool {
	if len(v) > validation.LabelValueMaxLength {
		return false
	}
	if v == "" {
		return true
	}
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	if !alnum(v[0]) || !alnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// validateNodeAffinity is pkg/apis/core/validation validateNodeAffinity
// (v1.37.1) for a new object, plus taintlint's own check that a Gt or Lt
// value is an integer, which the API server does not make but without
// which the requirement never matches.
func validateNodeAffinity(obj *loader.Object, na *v1.NodeAffinity, path *field.Path) []issue {
	var out []issue
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		rp := path.Child("requiredDuringSchedulingIgnoredDuringExecution")
		terms := rp.Child("nodeSelectorTerms")
		if len(req.NodeSelectorTerms) == 0 {
			out = append(out, issue{rule: "selector-invalid", obj: obj, path: terms,
				msg:  "required node affinity has no nodeSelectorTerms: add at least one term (terms are ORed), or remove requiredDuringSchedulingIgnoredDuringExecution",
				errs: field.ErrorList{field.Required(terms, "must have at least one node selector term")}})
		}
		for i := range req.NodeSelectorTerms {
			out = append(out, validateNodeSelectorTerm(obj, &req.NodeSelectorTerms[i], terms.Index(i), false)...)
		}
	}
	pp := path.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		t := &na.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if t.Weight <= 0 || t.Weight > 100 {
			wp := pp.Index(i).Child("weight")
			out = append(out, issue{rule: "selector-invalid", obj: obj, path: wp,
				msg:  fmt.Sprintf("preferred node affinity weight %d is outside 1-100: use a weight from 1 (slight preference) to 100 (strong)", t.Weight),
				errs: field.ErrorList{field.Invalid(wp, t.Weight, "must be in the range 1-100")}})
		}
		// Upstream always allows invalid label values in preferred terms.
		out = append(out, validateNodeSelectorTerm(obj, &t.Preference, pp.Index(i).Child("preference"), true)...)
	}
	return out
}

var (
	selectorOps = []string{string(v1.NodeSelectorOpIn), string(v1.NodeSelectorOpNotIn), string(v1.NodeSelectorOpExists), string(v1.NodeSelectorOpDoesNotExist), string(v1.NodeSelectorOpGt), string(v1.NodeSelectorOpLt)}
	fieldOps    = []string{string(v1.NodeSelectorOpIn), string(v1.NodeSelectorOpNotIn)}
)

// validateNodeSelectorTerm is ValidateNodeSelectorTerm: its
// matchExpressions (ValidateNodeSelectorRequirement) then its matchFields
// (ValidateNodeFieldSelectorRequirement).
func validateNodeSelectorTerm(obj *loader.Object, term *v1.NodeSelectorTerm, path *field.Path, allowInvalidValues bool) []issue {
	var out []issue
	add := func(at *field.Path, msg string, errs ...*field.Error) {
		out = append(out, issue{rule: "selector-invalid", obj: obj, path: at, msg: msg, errs: errs})
	}
	for j := range term.MatchExpressions {
		rq := &term.MatchExpressions[j]
		p := path.Child("matchExpressions").Index(j)
		vp := p.Child("values")
		switch rq.Operator {
		case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
			if len(rq.Values) == 0 {
				add(vp, fmt.Sprintf("node selector requirement on %q with operator %s has no values: list the values to match, or use operator Exists", rq.Key, rq.Operator),
					field.Required(vp, "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
			if len(rq.Values) > 0 {
				add(vp, fmt.Sprintf("node selector requirement on %q with operator %s takes no values: remove values, or use operator In to match them", rq.Key, rq.Operator),
					field.Forbidden(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
			if len(rq.Values) != 1 {
				add(vp, fmt.Sprintf("node selector requirement on %q with operator %s takes exactly one value, an integer, but has %d", rq.Key, rq.Operator, len(rq.Values)),
					field.Required(vp, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
			} else if _, err := strconv.ParseInt(rq.Values[0], 10, 64); err != nil {
				// Not an API error: labels.NewRequirement refuses it when
				// the scheduler parses the term, which then never matches.
				add(vp.Index(0), fmt.Sprintf("node selector requirement %s %s %q never matches: %s compares the node's label as an integer, and %q is not one (the API server accepts it, but the scheduler cannot parse the requirement: for 'Gt', 'Lt' operators, the value must be an integer); write the threshold as a plain integer in the label's own unit, such as %q", rq.Key, rq.Operator, rq.Values[0], rq.Operator, rq.Values[0], integerHint(rq.Values[0])))
			}
		default:
			op := p.Child("operator")
			add(op, fmt.Sprintf("node selector operator %q is not supported%s", rq.Operator, suggest(string(rq.Operator), selectorOps)),
				field.Invalid(op, rq.Operator, "not a valid selector operator"))
		}
		if errs := metav1validation.ValidateLabelName(rq.Key, p.Child("key")); len(errs) > 0 {
			add(p.Child("key"), fmt.Sprintf("node selector key %q is not a valid label key: %s", rq.Key, explainLabelKey(rq.Key, validLabelKey(rq.Key))), errs...)
		}
		if !allowInvalidValues {
			for k, v := range rq.Values {
				if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
					var errs field.ErrorList
					for _, m := range msgs {
						errs = append(errs, field.Invalid(vp.Index(k), v, m))
					}
					add(vp.Index(k), fmt.Sprintf("node selector value %q is not a valid label value: %s; no node label can have it", v, explainLabelValue(v, msgs)), errs...)
				}
			}
		}
	}
	for j := range term.MatchFields {
		rq := &term.MatchFields[j]
		p := path.Child("matchFields").Index(j)
		switch rq.Operator {
		case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
			if len(rq.Values) != 1 {
				add(p.Child("values"), fmt.Sprintf("matchFields requirement with operator %s must have exactly one value (one node name), but has %d: write one term per node instead, terms are ORed", rq.Operator, len(rq.Values)),
					field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			add(p.Child("operator"), fmt.Sprintf("matchFields operator %q is not supported%s", rq.Operator, suggest(string(rq.Operator), fieldOps)),
				field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
		}
		if rq.Key != "metadata.name" {
			add(p.Child("key"), fmt.Sprintf("matchFields key %q is not supported: the only node field is metadata.name; select on labels with matchExpressions", rq.Key),
				field.Invalid(p.Child("key"), rq.Key, "not a valid field selector key"))
			continue
		}
		for k, v := range rq.Values {
			if msgs := apivalidation.NameIsDNSSubdomain(v, false); len(msgs) > 0 {
				var errs field.ErrorList
				for _, m := range msgs {
					errs = append(errs, field.Invalid(p.Child("values").Index(k), v, m))
				}
				add(p.Child("values").Index(k), fmt.Sprintf("matchFields value %q is not a valid node name (a lower-case DNS subdomain), so no node has it", v), errs...)
			}
		}
	}
	return out
}

// integerHint suggests an integer for a Gt/Lt value that is not one: its
// leading digits ("40Gi" -> "40"), or 4.
func integerHint(v string) string {
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || end == 0 && v[end] == '-') {
		end++
	}
	if _, err := strconv.ParseInt(v[:end], 10, 64); err == nil {
		return v[:end]
	}
	return "4"
}

func selectorInvalid(src issueSource) *rules.Rule {
	return validationRule(rules.Rule{
		ID:       "selector-invalid",
		Summary:  "Node selector, node affinity or node label the API server rejects, or that can never match",
		Severity: rules.Error,
		Doc: `Checks what selects nodes the way the API server does: spec.nodeSelector
keys and values (label keys and label values), RuntimeClass
scheduling.nodeSelector, Node metadata.labels, and node affinity. Required
node affinity needs at least one term. In a matchExpressions requirement, In
and NotIn need values, Exists and DoesNotExist take none, Gt and Lt take
exactly one, the key is a label key and (in required terms) every value a
label value; other operators are rejected. matchFields knows only the key
metadata.name, the operators In and NotIn, and exactly one value, a node
name. Preferred terms need a weight from 1 to 100.

taintlint goes one step further than the API server: a Gt or Lt value that is
not an integer is admitted, but the scheduler cannot parse the requirement,
so the term never matches any node. It is reported too.`,
		Bad: `affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions:
        - key: topology.kubernetes.io/zone
          operator: In`,
		Good: `affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions:
        - key: topology.kubernetes.io/zone
          operator: In
          values: [eu-west-1a, eu-west-1b]`,
	}, src)
}
