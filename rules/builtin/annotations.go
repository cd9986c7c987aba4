package builtin

import (
	"encoding/json"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// The API server still validates two alpha-era annotations that hold
// tolerations and taints as JSON, though nothing reads them any more:
// pkg/apis/core/validation ValidateTolerationsInPodAnnotations (pods and
// pod templates) and ValidateTaintsInNodeAnnotations (Nodes). The JSON is
// decoded into the internal types, which have no JSON tags, so field names
// match case-insensitively, as encoding/json does here.

// legacyAnnotationIssues validates those annotations. JSON that does not
// decode is a parse-error issue; the rest are the toleration and taint
// rules' issues, all pointing at the annotation.
func legacyAnnotationIssues(in *rules.Input) []issue {
	var out []issue
	for _, w := range in.Workloads {
		s := w.TolerationsAnnotation
		if s == "" {
			continue
		}
		apiBase, at := podAnnotationPaths(w)
		at = at.Key(v1.TolerationsAnnotationKey)
		var tols []internalToleration
		if err := json.Unmarshal([]byte(s), &tols); err != nil {
			out = append(out, annotationJSONIssue(w.Object, at, apiBase, v1.TolerationsAnnotationKey, "tolerations", err))
			continue
		}
		list := make([]v1.Toleration, len(tols))
		for i, t := range tols {
			list[i] = v1.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect, TolerationSeconds: t.TolerationSeconds}
		}
		issues := validateTolerations(w.Object, list, apiBase.Child(v1.TolerationsAnnotationKey), in.Gates.TaintTolerationComparisonOperators, false, nil)
		out = append(out, inAnnotation(issues, at, v1.TolerationsAnnotationKey, w.SpecPath.Child("tolerations").String())...)
	}
	for _, n := range in.NodeObjects {
		s := n.Node.Annotations[v1.TaintsAnnotationKey]
		if s == "" {
			continue
		}
		apiBase := field.NewPath("metadata", "annotations")
		at := apiBase.Key(v1.TaintsAnnotationKey)
		var taints []internalTaint
		if err := json.Unmarshal([]byte(s), &taints); err != nil {
			out = append(out, annotationJSONIssue(n.Object, at, apiBase, v1.TaintsAnnotationKey, "taints", err))
			continue
		}
		list := make([]v1.Taint, len(taints))
		for i, t := range taints {
			list[i] = v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect, TimeAdded: t.TimeAdded}
		}
		issues := validateTaintsAt(n.Object, list, apiBase.Child(v1.TaintsAnnotationKey), apiBase.Child(v1.TaintsAnnotationKey), nil)
		out = append(out, inAnnotation(issues, at, v1.TaintsAnnotationKey, "spec.taints")...)
	}
	return out
}

// podAnnotationPaths returns where the API server says a workload's pod
// annotations are (metadata.annotations for a Pod, <template>.annotations
// for a template, as ValidatePodTemplateSpec names them) and where they
// are in the manifest.
func podAnnotationPaths(w *k8s.Workload) (api, manifest *field.Path) {
	switch w.Object.Kind {
	case "Pod":
		p := field.NewPath("metadata", "annotations")
		return p, p
	case "PodTemplate":
		return field.NewPath("template", "annotations"), field.NewPath("template", "metadata", "annotations")
	case "CronJob":
		t := field.NewPath("spec", "jobTemplate", "spec", "template")
		return t.Child("annotations"), t.Child("metadata", "annotations")
	}
	t := field.NewPath("spec", "template")
	return t.Child("annotations"), t.Child("metadata", "annotations")
}

// inAnnotation re-points issues found inside an annotation's JSON at the
// annotation, and says so in the message.
func inAnnotation(issues []issue, at *field.Path, key, instead string) []issue {
	for i := range issues {
		issues[i].path = at
		issues[i].msg = fmt.Sprintf("in annotation %s: %s (the annotation is an alpha-era leftover nothing reads: use %s instead)", key, issues[i].msg, instead)
	}
	return issues
}

// internalTypeNames renames this package's stand-ins for the internal
// types in JSON errors, so they read as the API server's do.
var internalTypeNames = strings.NewReplacer(
	"builtin.internalToleration", "core.Toleration",
	"builtin.internalTaint", "core.Taint",
	"internalToleration.", "Toleration.",
	"internalTaint.", "Taint.",
	"v1.TolerationOperator", "core.TolerationOperator",
	"v1.TaintEffect", "core.TaintEffect",
)

func annotationJSONIssue(obj *loader.Object, at, apiBase *field.Path, key, what string, err error) issue {
	text := internalTypeNames.Replace(err.Error())
	return issue{rule: "parse-error", obj: obj, path: at,
		msg:  fmt.Sprintf("annotation %s is not a JSON list of %s: %s; fix the JSON, or better, remove the annotation, which nothing reads any more", key, what, text),
		errs: field.ErrorList{field.Invalid(apiBase, key, text)}}
}
