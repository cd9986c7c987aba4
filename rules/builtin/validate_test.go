package builtin

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func seconds(n int64) *int64 { return &n }

// diffLists describes how got differs from want, or returns "".
func diffLists(want, got []string) string {
	var b strings.Builder
	for i := 0; i < max(len(want), len(got)); i++ {
		w, g := "(none)", "(none)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			b.WriteString("\n  [" + strconv.Itoa(i) + "] want " + w + "\n      got  " + g)
		}
	}
	return b.String()
}

// The API server's messages, spelt out in full once (SEMANTICS.md §4.5),
// so the vectors below compare with literal text and not with what the
// code under test builds.
const (
	nameRegexMsg   = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	labelValueMsg  = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	labelKeyMsg    = "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
	prefixRegexMsg = `prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	emptyKeyMsg    = "operator must be Exists when `key` is empty, which means \"match all values and all keys\""
)

var (
	a64  = strings.Repeat("a", 64)
	a250 = strings.Repeat("a", 250)
)

// TestTolerationVectors is SEMANTICS.md §9.4 V1 to V23: upstream
// ValidateTolerations' exact err.Error() strings at v1.37.1.
func TestTolerationVectors(t *testing.T) {
	tests := []struct {
		id    string
		tol   v1.Toleration
		gate  bool
		rc    bool // a RuntimeClass list
		rules []string
		want  []string
	}{
		{id: "V1", tol: v1.Toleration{}, rules: []string{"toleration-empty-key-requires-exists"},
			want: []string{`spec.tolerations[0].operator: Invalid value: "": ` + emptyKeyMsg}},
		{id: "V2", tol: v1.Toleration{Operator: "Equal", Value: "x"}, rules: []string{"toleration-empty-key-requires-exists"},
			want: []string{`spec.tolerations[0].operator: Invalid value: "Equal": ` + emptyKeyMsg}},
		{id: "V3", tol: v1.Toleration{Key: "foo", Operator: "Exists", Value: "bar"}, rules: []string{"toleration-exists-with-value"},
			want: []string{"spec.tolerations[0].operator: Invalid value: \"bar\": value must be empty when `operator` is 'Exists'"}},
		{id: "V4", tol: v1.Toleration{Key: "a/b/c", Operator: "Exists"}, rules: []string{"toleration-key-invalid"},
			want: []string{`spec.tolerations[0].key: Invalid value: "a/b/c": ` + labelKeyMsg}},
		{id: "V5", tol: v1.Toleration{Key: "/foo", Operator: "Exists"}, rules: []string{"toleration-key-invalid"},
			want: []string{`spec.tolerations[0].key: Invalid value: "/foo": prefix part must be non-empty`}},
		{id: "V6", tol: v1.Toleration{Key: "example.com/", Operator: "Exists"}, rules: []string{"toleration-key-invalid"},
			want: []string{`spec.tolerations[0].key: Invalid value: "example.com/": name part must be non-empty`, `spec.tolerations[0].key: Invalid value: "example.com/": ` + nameRegexMsg}},
		{id: "V7", tol: v1.Toleration{Key: "Example.com/foo", Operator: "Exists"}, rules: []string{"toleration-key-invalid"},
			want: []string{`spec.tolerations[0].key: Invalid value: "Example.com/foo": ` + prefixRegexMsg}},
		{id: "V8", tol: v1.Toleration{Key: a64, Operator: "Exists"}, rules: []string{"toleration-key-invalid"},
			want: []string{`spec.tolerations[0].key: Invalid value: "` + a64 + `": name part must be no more than 63 bytes`}},
		{id: "V9", tol: v1.Toleration{Key: a250 + ".com/x", Operator: "Exists"}, rules: []string{"toleration-key-invalid"},
			want: []string{`spec.tolerations[0].key: Invalid value: "` + a250 + `.com/x": prefix part must be no more than 253 bytes`}},
		{id: "V10", tol: v1.Toleration{Key: "foo", Operator: "Equal", Value: "bad value"}, rules: []string{"toleration-value-invalid"},
			want: []string{`spec.tolerations[0].operator: Invalid value: "bad value": ` + labelValueMsg}},
		{id: "V11", tol: v1.Toleration{Key: "foo", Value: a64}, rules: []string{"toleration-value-invalid"},
			want: []string{`spec.tolerations[0].operator: Invalid value: "` + a64 + `": must be no more than 63 bytes`}},
		{id: "V12", tol: v1.Toleration{Key: "foo", Operator: "In", Value: "x"}, rules: []string{"toleration-operator-invalid"},
			want: []string{`spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"`}},
		{id: "V13", tol: v1.Toleration{Key: "foo", Operator: "Lt", Value: "5"}, rules: []string{"toleration-operator-invalid"},
			want: []string{`spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`}},
		{id: "V14", tol: v1.Toleration{Key: "foo", Operator: "Gt", Value: "5", Effect: "NoSchedule"}, gate: true},
		{id: "V15", tol: v1.Toleration{Key: "foo", Operator: "Gt", Value: "abc"}, gate: true, rules: []string{"toleration-value-invalid"},
			want: []string{`spec.tolerations[0].value: Invalid value: "abc": must be a valid decimal integer in canonical form`, `spec.tolerations[0].value: Invalid value: "abc": strconv.ParseInt: parsing "abc": invalid syntax`}},
		{id: "V16", tol: v1.Toleration{Key: "foo", Operator: "Gt", Value: "0100"}, gate: true, rules: []string{"toleration-value-invalid"},
			want: []string{`spec.tolerations[0].value: Invalid value: "0100": must be a valid decimal integer in canonical form`}},
		{id: "V17", tol: v1.Toleration{Key: "foo", Operator: "Gt"}, gate: true, rules: []string{"toleration-value-invalid"},
			want: []string{`spec.tolerations[0].value: Invalid value: "": must be non-empty`, `spec.tolerations[0].value: Invalid value: "": strconv.ParseInt: parsing "": invalid syntax`}},
		{id: "V18", tol: v1.Toleration{Key: "foo", Operator: "Lt", Value: "99999999999999999999"}, gate: true, rules: []string{"toleration-value-invalid"},
			want: []string{`spec.tolerations[0].value: Invalid value: "99999999999999999999": strconv.ParseInt: parsing "99999999999999999999": value out of range`}},
		{id: "V19", tol: v1.Toleration{Operator: "Lt", Value: "5"}, gate: true, rules: []string{"toleration-empty-key-requires-exists"},
			want: []string{`spec.tolerations[0].operator: Invalid value: "Lt": ` + emptyKeyMsg}},
		{id: "V20", tol: v1.Toleration{Key: "foo", Operator: "Exists", Effect: "NoSchedule", TolerationSeconds: seconds(60)}, rules: []string{"toleration-seconds-requires-noexecute"},
			want: []string{"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"}},
		{id: "V21", tol: v1.Toleration{Key: "foo", Operator: "Exists", TolerationSeconds: seconds(60)}, rules: []string{"toleration-seconds-requires-noexecute"},
			want: []string{"spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set"}},
		{id: "V22", tol: v1.Toleration{Key: "foo", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: seconds(-5)}},
		{id: "V23", tol: v1.Toleration{Key: "foo", Operator: "Exists", Effect: "NoScheduleNoAdmit"}, rules: []string{"toleration-effect-invalid"},
			want: []string{`spec.tolerations[0].effect: Unsupported value: "NoScheduleNoAdmit": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		// Beyond §9.4: co-occurrence, the gate off with an empty key, and
		// RuntimeClass lists, which never allow Lt/Gt.
		{id: "both", tol: v1.Toleration{Operator: "Lt", Value: "5"}, rules: []string{"toleration-empty-key-requires-exists", "toleration-operator-invalid"},
			want: []string{`spec.tolerations[0].operator: Invalid value: "Lt": ` + emptyKeyMsg, `spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`}},
		{id: "many", tol: v1.Toleration{Key: "a b", Operator: "exists", Effect: "noschedule", TolerationSeconds: seconds(1)},
			rules: []string{"toleration-key-invalid", "toleration-seconds-requires-noexecute", "toleration-operator-invalid", "toleration-effect-invalid"},
			want: []string{
				`spec.tolerations[0].key: Invalid value: "a b": ` + nameRegexMsg,
				"spec.tolerations[0].effect: Invalid value: \"noschedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
				`spec.tolerations[0].operator: Unsupported value: "exists": supported values: "Equal", "Exists"`,
				`spec.tolerations[0].effect: Unsupported value: "noschedule": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			}},
		{id: "rc-gt", tol: v1.Toleration{Key: "foo", Operator: "Gt", Value: "5"}, gate: true, rc: true, rules: []string{"toleration-operator-invalid"},
			want: []string{`spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt"`}},
		{id: "gate-on-unknown", tol: v1.Toleration{Key: "foo", Operator: "Ge", Value: "5"}, gate: true, rules: []string{"toleration-operator-invalid"},
			want: []string{`spec.tolerations[0].operator: Unsupported value: "Ge": supported values: "Equal", "Exists"`}},
		{id: "lt-negative", tol: v1.Toleration{Key: "foo", Operator: "Lt", Value: "-1"}, gate: true},
		{id: "lt-minus-zero", tol: v1.Toleration{Key: "foo", Operator: "Lt", Value: "-0"}, gate: true, rules: []string{"toleration-value-invalid"},
			want: []string{`spec.tolerations[0].value: Invalid value: "-0": must be a valid decimal integer in canonical form`}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			issues := validateTolerations(nil, []v1.Toleration{tc.tol}, field.NewPath("spec", "tolerations"), tc.gate && !tc.rc, tc.rc, nil)
			checkIssues(t, issues, tc.rules, tc.want)
		})
	}
}

// TestRuntimeClassDuplicates: pkg/apis/node/validation rejects repeated
// tolerations by key, operator, value and effect.
func TestRuntimeClassDuplicates(t *testing.T) {
	tols := []v1.Toleration{
		{Key: "a", Operator: "Exists", Effect: "NoSchedule"},
		{Key: "a", Operator: "Exists", Effect: "NoSchedule", TolerationSeconds: seconds(5)},
		{Key: "a", Operator: "Exists"},
		{Key: "a", Operator: "Equal"},
		{Key: "a"},
	}
	path := field.NewPath("scheduling", "tolerations")
	issues := validateTolerations(nil, tols, path, false, true, nil)
	checkIssues(t, issues,
		[]string{"toleration-seconds-requires-noexecute", "toleration-duplicate"},
		[]string{
			"scheduling.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
			`scheduling.tolerations[1]: Duplicate value: {"Key":"a","Operator":"Exists","Value":"","Effect":"NoSchedule","TolerationSeconds":5}`,
		})
	if got := validateTolerations(nil, tols, path, false, false, nil); len(got) != 1 {
		t.Errorf("pod spec tolerations have no uniqueness check, got %d issues", len(got))
	}
}

// TestTaintVectors is SEMANTICS.md §9.4 V24 to V29 (validateNodeTaints).
func TestTaintVectors(t *testing.T) {
	tests := []struct {
		id     string
		taints []v1.Taint
		rules  []string
		want   []string
	}{
		{id: "V24", taints: []v1.Taint{{Effect: "NoSchedule"}}, rules: []string{"taint-key-invalid"},
			want: []string{`metadata.taints[0].key: Invalid value: "": name part must be non-empty`, `metadata.taints[0].key: Invalid value: "": ` + nameRegexMsg}},
		{id: "V25", taints: []v1.Taint{{Key: "foo", Value: "bar baz", Effect: "NoSchedule"}}, rules: []string{"taint-value-invalid"},
			want: []string{`metadata.taints[0].value: Invalid value: "bar baz": ` + labelValueMsg}},
		{id: "V26", taints: []v1.Taint{{Key: "foo", Value: "bar"}}, rules: []string{"taint-effect-invalid"},
			want: []string{`metadata.taints[0].effect: Required value`}},
		{id: "V27", taints: []v1.Taint{{Key: "foo", Value: "bar", Effect: "NoScheduleNoAdmit"}}, rules: []string{"taint-effect-invalid"},
			want: []string{`metadata.taints[0].effect: Unsupported value: "NoScheduleNoAdmit": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{id: "V28", taints: []v1.Taint{{Key: "foo", Value: "bar", Effect: "NoSchedule"}, {Key: "foo", Value: "baz", Effect: "NoSchedule"}}, rules: []string{"taint-duplicate"},
			want: []string{`metadata.taints[1]: Duplicate value: {"Key":"foo","Value":"baz","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`}},
		{id: "V29", taints: []v1.Taint{{Key: "foo", Value: "bar", Effect: "NoSchedule"}, {Key: "foo", Value: "bar", Effect: "NoExecute"}}},
		{id: "no-effect-twice", taints: []v1.Taint{{Key: "foo"}, {Key: "foo"}}, rules: []string{"taint-effect-invalid", "taint-effect-invalid", "taint-duplicate"},
			want: []string{`metadata.taints[0].effect: Required value`, `metadata.taints[1].effect: Required value`, `metadata.taints[1]: Duplicate value: {"Key":"foo","Value":"","Effect":"","TimeAdded":null}: taints must be unique by key and effect pair`}},
		{id: "numeric-value", taints: []v1.Taint{{Key: "sla", Value: "0950", Effect: "NoSchedule"}}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			issues := validateTaints(nil, tc.taints, field.NewPath("spec", "taints"), nil)
			checkIssues(t, issues, tc.rules, tc.want)
			for _, is := range issues {
				if !strings.HasPrefix(is.path.String(), "spec.taints[") {
					t.Errorf("finding path %s: want the manifest's spec.taints", is.path)
				}
			}
		})
	}
}

// TestSelectorVectors is SEMANTICS.md §9.4 V30 to V41
// (ValidateNodeSelector, ValidatePreferredSchedulingTerms, ValidateLabels)
// and the never-matching Gt/Lt values taintlint adds.
func TestSelectorVectors(t *testing.T) {
	const req = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
	expr := func(key string, op v1.NodeSelectorOperator, vals ...string) *v1.NodeAffinity {
		return &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}}}}}}
	}
	fieldReq := func(key string, op v1.NodeSelectorOperator, vals ...string) *v1.NodeAffinity {
		return &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}}}}}}
	}
	tests := []struct {
		id       string
		affinity *v1.NodeAffinity
		selector map[string]string
		want     []string
		own      int // taintlint's own findings, beyond the API server
	}{
		{id: "V30", affinity: expr("zone", "In"), want: []string{req + ".nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{id: "V31", affinity: expr("zone", "Exists", "a"), want: []string{req + ".nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"}},
		{id: "V32", affinity: expr("cpu", "Gt", "1", "2"), want: []string{req + ".nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"}},
		{id: "V33", affinity: expr("cpu", "Gt", "abc"), own: 1},
		{id: "V34", affinity: expr("zone", "Equals", "a"), want: []string{req + `.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator`}},
		{id: "V35", affinity: fieldReq("metadata.labels", "In", "a"), want: []string{req + `.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.labels": not a valid field selector key`}},
		{id: "V36", affinity: fieldReq("metadata.name", "In", "a", "b"), want: []string{req + ".nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"}},
		{id: "V37", affinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{}}},
			want: []string{req + ".nodeSelectorTerms: Required value: must have at least one node selector term"}},
		{id: "V38", affinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{}}}}},
		{id: "V39", affinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 0, Preference: v1.NodeSelectorTerm{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a b"}}}}}}},
			want: []string{"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"}},
		{id: "V40", selector: map[string]string{"a/b/c": "x"}, want: []string{`spec.nodeSelector: Invalid value: "a/b/c": ` + labelKeyMsg}},
		{id: "V41", selector: map[string]string{"zone": "a b"}, want: []string{`spec.nodeSelector: Invalid value: "a b": ` + labelValueMsg}},
		// Beyond §9.4.
		{id: "gt-leading-zero", affinity: expr("kernel", "Gt", "0204")},
		// "+3" parses as an integer but is not a label value: rejected
		// in required terms, where values are label values.
		{id: "lt-plus", affinity: expr("cpu", "Lt", "+3"),
			want: []string{req + `.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "+3": ` + labelValueMsg}},
		{id: "lt-preferred-nonint", affinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1, Preference: v1.NodeSelectorTerm{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: "cpu", Operator: "Lt", Values: []string{"1.5"}}}}}}}, own: 1},
		{id: "required-bad-value", affinity: expr("zone", "NotIn", "invalid value: ___@#$%^"),
			want: []string{req + `.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "invalid value: ___@#$%^": ` + labelValueMsg}},
		{id: "field-bad-name", affinity: fieldReq("metadata.name", "NotIn", "Node_1"),
			want: []string{req + `.nodeSelectorTerms[0].matchFields[0].values[0]: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{id: "field-exists", affinity: fieldReq("metadata.name", "Exists"),
			want: []string{req + `.nodeSelectorTerms[0].matchFields[0].operator: Invalid value: "Exists": not a valid selector operator`}},
		{id: "clean", affinity: fieldReq("metadata.name", "In", "node-1"), selector: map[string]string{"kubernetes.io/os": "linux", "empty": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			spec := field.NewPath("spec")
			var issues []issue
			issues = append(issues, validateLabels(nil, tc.selector, spec.Child("nodeSelector"), "nodeSelector")...)
			if tc.affinity != nil {
				issues = append(issues, validateNodeAffinity(nil, tc.affinity, spec.Child("affinity", "nodeAffinity"))...)
			}
			own := 0
			for _, is := range issues {
				if is.rule != "selector-invalid" {
					t.Errorf("issue with rule %s", is.rule)
				}
				if len(is.errs) == 0 {
					own++
				}
			}
			if own != tc.own {
				t.Errorf("taintlint's own findings: got %d, want %d", own, tc.own)
			}
			if diff := diffLists(tc.want, errorStrings(apiErrors(issues))); diff != "" {
				t.Errorf("API errors differ:%s", diff)
			}
		})
	}
}

func checkIssues(t *testing.T, issues []issue, wantRules, wantErrs []string) {
	t.Helper()
	var gotRules []string
	for _, is := range issues {
		gotRules = append(gotRules, is.rule)
		if is.msg == "" || strings.Contains(is.msg, "\n") {
			t.Errorf("%s: bad message %q", is.rule, is.msg)
		}
		for _, e := range is.errs {
			if !strings.Contains(is.message(), e.Error()) {
				t.Errorf("%s: message does not quote the API server: %s", is.rule, is.message())
			}
		}
	}
	if diff := diffLists(wantRules, gotRules); diff != "" {
		t.Errorf("rules differ:%s", diff)
	}
	if diff := diffLists(wantErrs, errorStrings(apiErrors(issues))); diff != "" {
		t.Errorf("API errors differ:%s", diff)
	}
}

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// TestTolerationProduct checks every combination of a few keys, operators,
// values, effects and tolerationSeconds, with the gate off and on, in pod
// specs and RuntimeClasses, against SEMANTICS.md §4.2 restated as plain
// predicates, and checks the CONTRACT's path convention for each finding.
func TestTolerationProduct(t *testing.T) {
	canonical := regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)
	pathSuffix := map[string]string{
		"toleration-key-invalid":                ".key",
		"toleration-empty-key-requires-exists":  ".operator",
		"toleration-seconds-requires-noexecute": ".effect",
		"toleration-value-invalid":              ".value",
		"toleration-exists-with-value":          ".value",
		"toleration-operator-invalid":           ".operator",
		"toleration-effect-invalid":             ".effect",
	}
	keys := []string{"", "foo", "a/b/c", "Example.com/x", "example.com/x"}
	ops := []v1.TolerationOperator{"", "Equal", "Exists", "Lt", "Gt", "equal", "In"}
	values := []string{"", "x", "bad value", "5", "0100", "-0", "-7", "abc", a64}
	effects := []v1.TaintEffect{"", "NoSchedule", "PreferNoSchedule", "NoExecute", "noschedule"}
	n := 0
	valid := newValidLabels()
	for _, key := range keys {
		for _, op := range ops {
			for _, val := range values {
				for _, eff := range effects {
					for _, secs := range []*int64{nil, seconds(30)} {
						for _, gate := range []bool{false, true} {
							for _, rc := range []bool{false, true} {
								n++
								tol := v1.Toleration{Key: key, Operator: op, Value: val, Effect: eff, TolerationSeconds: secs}
								allowCmp := gate && !rc
								cmpOp := op == "Lt" || op == "Gt"
								want := map[string]bool{
									"toleration-key-invalid":                key != "" && len(validation.IsQualifiedName(key)) > 0,
									"toleration-empty-key-requires-exists":  key == "" && op != "Exists",
									"toleration-seconds-requires-noexecute": secs != nil && eff != "NoExecute",
									"toleration-value-invalid": (op == "" || op == "Equal") && len(validation.IsValidLabelValue(val)) > 0 ||
										cmpOp && allowCmp && !(canonical.MatchString(val) && fitsInt64(val)),
									"toleration-exists-with-value": op == "Exists" && val != "",
									"toleration-operator-invalid":  !(op == "" || op == "Equal" || op == "Exists" || cmpOp) || cmpOp && !allowCmp,
									"toleration-effect-invalid":    eff != "" && eff != "NoSchedule" && eff != "PreferNoSchedule" && eff != "NoExecute",
								}
								got := map[string]bool{}
								for _, is := range validateTolerations(nil, []v1.Toleration{tol}, field.NewPath("spec", "tolerations"), allowCmp, rc, nil) {
									if got[is.rule] {
										t.Errorf("%+v: %s reported twice", tol, is.rule)
									}
									got[is.rule] = true
									if !strings.HasSuffix(is.path.String(), pathSuffix[is.rule]) {
										t.Errorf("%+v: %s at %s, want a path ending %s", tol, is.rule, is.path, pathSuffix[is.rule])
									}
									if len(is.errs) == 0 {
										t.Errorf("%+v: %s without the API server's error", tol, is.rule)
									}
								}
								for id, w := range want {
									if got[id] != w {
										t.Errorf("%+v gate=%v runtimeClass=%v: %s got %v, want %v", tol, gate, rc, id, got[id], w)
									}
								}
								// The shortcut that passes over plain tolerations
								// (twice: the second time from what it remembers).
								for range 2 {
									if valid.plainToleration(&tol) && len(got) > 0 {
										t.Errorf("%+v gate=%v runtimeClass=%v: plainToleration passes over %v", tol, gate, rc, got)
									}
								}
								if !rc && !cmpOp && len(got) == 0 && !valid.plainToleration(&tol) {
									t.Errorf("%+v: no issue, but not plain", tol)
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d combinations", n)
}

func fitsInt64(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// TestSelectorRequirementProduct checks combinations of key, operator and
// values, in required and preferred terms, against SEMANTICS.md §4.4
// restated as plain predicates.
func TestSelectorRequirementProduct(t *testing.T) {
	keys := []string{"zone", "a/b/c", "", "Zone.Example/x"}
	ops := []v1.NodeSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equals", "in"}
	valueSets := [][]string{nil, {"a"}, {"1", "2"}, {"abc"}, {"a b"}, {"5"}, {"0204"}, {"-5"}}
	for _, key := range keys {
		for _, op := range ops {
			for _, vals := range valueSets {
				for _, required := range []bool{true, false} {
					rq := v1.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}
					term := v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{rq}}
					na := &v1.NodeAffinity{}
					if required {
						na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{term}}
					} else {
						na.PreferredDuringSchedulingIgnoredDuringExecution = []v1.PreferredSchedulingTerm{{Weight: 10, Preference: term}}
					}
					want := map[string]int{}
					switch op {
					case "In", "NotIn":
						if len(vals) == 0 {
							want[".values"]++
						}
					case "Exists", "DoesNotExist":
						if len(vals) > 0 {
							want[".values"]++
						}
					case "Gt", "Lt":
						if len(vals) != 1 {
							want[".values"]++
						} else if !fitsInt64(vals[0]) {
							want["own"]++
						}
					default:
						want[".operator"]++
					}
					if len(validation.IsQualifiedName(key)) > 0 {
						want[".key"]++
					}
					if required {
						for _, v := range vals {
							if len(validation.IsValidLabelValue(v)) > 0 {
								want["]"]++ // .values[j]
							}
						}
					}
					got := map[string]int{}
					for _, is := range validateNodeAffinity(nil, na, field.NewPath("spec", "affinity", "nodeAffinity")) {
						p := is.path.String()
						switch {
						case len(is.errs) == 0:
							got["own"]++
						case strings.HasSuffix(p, ".values"):
							got[".values"]++
						case strings.HasSuffix(p, ".operator"):
							got[".operator"]++
						case strings.HasSuffix(p, ".key"):
							got[".key"]++
						case strings.HasSuffix(p, "]"):
							got["]"]++
						default:
							t.Errorf("%+v: unexpected path %s", rq, p)
						}
					}
					for k := range want {
						if got[k] != want[k] {
							t.Errorf("%+v required=%v: %s findings: got %d, want %d", rq, required, k, got[k], want[k])
						}
					}
					for k := range got {
						if want[k] == 0 && got[k] > 0 {
							t.Errorf("%+v required=%v: unexpected %s findings: %d", rq, required, k, got[k])
						}
					}
				}
			}
		}
	}
}

// TestTaintProduct checks key, value and effect combinations, and
// duplicates by key and effect, against SEMANTICS.md §4.3.
func TestTaintProduct(t *testing.T) {
	keys := []string{"", "dedicated", "a/b/c", "Example.com/x"}
	values := []string{"", "gpu", "bar baz", "0950", a64}
	effects := []v1.TaintEffect{"", "NoSchedule", "PreferNoSchedule", "NoExecute", "noschedule"}
	for _, key := range keys {
		for _, val := range values {
			for _, eff := range effects {
				for _, twice := range []bool{false, true} {
					taints := []v1.Taint{{Key: key, Value: val, Effect: eff}}
					if twice {
						taints = append(taints, v1.Taint{Key: key, Value: "other", Effect: eff})
					}
					want := map[string]int{
						"taint-key-invalid":    boolInt(len(validation.IsQualifiedName(key)) > 0),
						"taint-value-invalid":  boolInt(len(validation.IsValidLabelValue(val)) > 0),
						"taint-effect-invalid": boolInt(eff != "NoSchedule" && eff != "PreferNoSchedule" && eff != "NoExecute"),
						"taint-duplicate":      0,
					}
					if twice {
						want["taint-key-invalid"] *= 2
						want["taint-effect-invalid"] *= 2
						want["taint-duplicate"] = 1
					}
					got := map[string]int{}
					for _, is := range validateTaints(nil, taints, field.NewPath("spec", "taints"), nil) {
						got[is.rule]++
					}
					for id, w := range want {
						if got[id] != w {
							t.Errorf("%+v: %s: got %d, want %d", taints, id, got[id], w)
						}
					}
				}
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
