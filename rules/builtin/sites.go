package builtin

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// tolerationList is one list of tolerations the API server validates: a
// pod spec's, or a RuntimeClass's scheduling.tolerations.
type tolerationList struct {
	Object      *loader.Object
	Path        *field.Path // the list itself
	Tolerations []v1.Toleration
	// RuntimeClass lists never allow Lt/Gt and reject duplicates.
	RuntimeClass bool
}

// tolerationLists returns every toleration list of the input, in input order.
func tolerationLists(in *rules.Input) []tolerationList {
	var out []tolerationList
	for _, w := range in.Workloads {
		if len(w.Spec.Tolerations) > 0 {
			out = append(out, tolerationList{Object: w.Object, Path: w.SpecPath.Child("tolerations"), Tolerations: w.Spec.Tolerations})
		}
	}
	for _, rc := range in.RuntimeClasses {
		if s := rc.RuntimeClass.Scheduling; s != nil && len(s.Tolerations) > 0 {
			out = append(out, tolerationList{Object: rc.Object, Path: field.NewPath("scheduling", "tolerations"), Tolerations: s.Tolerations, RuntimeClass: true})
		}
	}
	return out
}

// forEachToleration calls fn for every toleration of the input.
func forEachToleration(in *rules.Input, fn func(l tolerationList, i int, t *v1.Toleration, path *field.Path)) {
	for _, l := range tolerationLists(in) {
		for i := range l.Tolerations {
			fn(l, i, &l.Tolerations[i], l.Path.Index(i))
		}
	}
}

// forEachTaint calls fn for every taint of every inventory node.
func forEachTaint(in *rules.Input, fn func(obj *loader.Object, i int, t *v1.Taint, path *field.Path)) {
	for _, n := range in.Nodes {
		for i := range n.Node.Spec.Taints {
			fn(n.Object, i, &n.Node.Spec.Taints[i], field.NewPath("spec", "taints").Index(i))
		}
	}
}

// validEffects are the taint effects the API server accepts, in its order.
var validEffects = []string{string(v1.TaintEffectNoSchedule), string(v1.TaintEffectPreferNoSchedule), string(v1.TaintEffectNoExecute)}

// supportedValues formats a list as field.NotSupported does.
func supportedValues(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "supported values: " + strings.Join(q, ", ")
}

// didYouMean suggests the valid value nearest to a misspelled one: a
// case-insensitive match first, then the closest within a small edit
// distance. It returns "" when nothing is close.
func didYouMean(bad string, valid []string) string {
	for _, v := range valid {
		if strings.EqualFold(bad, v) {
			return v
		}
	}
	best, bestD := "", 3
	lb := strings.ToLower(bad)
	for _, v := range valid {
		if d := levenshtein(lb, strings.ToLower(v)); d < bestD || d == bestD && best == "" && d <= 2 {
			best, bestD = v, d
		}
	}
	if bestD > 2 {
		return ""
	}
	return best
}

// levenshtein is the edit distance between a and b, in bytes.
func levenshtein(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return 1 << 30
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
