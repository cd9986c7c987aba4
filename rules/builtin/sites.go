package builtin

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// tolerationList is one list of tolerations the API server validates: a
// pod spec's, an operator's custom resource's (which the operator copies
// into a pod spec), or a RuntimeClass's scheduling.tolerations.
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
		if len(w.Spec.Tolerations) > 0 && !w.Merged() { // a merged pod's are validated in its placements
			out = append(out, tolerationList{Object: w.Object, Path: w.SpecPath.Child("tolerations"), Tolerations: w.Spec.Tolerations})
		}
	}
	for _, p := range in.Placements {
		if len(p.Tolerations) > 0 {
			out = append(out, tolerationList{Object: p.Object, Path: p.Path.Child("tolerations"), Tolerations: p.Tolerations})
		}
	}
	for _, rc := range in.RuntimeClasses {
		if s := rc.RuntimeClass.Scheduling; s != nil && len(s.Tolerations) > 0 {
			out = append(out, tolerationList{Object: rc.Object, Path: field.NewPath("scheduling", "tolerations"), Tolerations: s.Tolerations, RuntimeClass: true})
		}
	}
	return out
}

// validEffects are the taint effects the API server accepts, in its order.
var validEffects = []string{string(v1.TaintEffectNoSchedule), string(v1.TaintEffectPreferNoSchedule), string(v1.TaintEffectNoExecute)}

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
		if d := textdist.Levenshtein(lb, strings.ToLower(v)); d < bestD || d == bestD && best == "" && d <= 2 {
			best, bestD = v, d
		}
	}
	if bestD > 2 {
		return ""
	}
	return best
}
