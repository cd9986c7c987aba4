package builtin

import (
	"fmt"
	"slices"

	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/rules"
)

func fieldUnknown() *rules.Rule {
	return rule(rules.Rule{
		ID:       "field-unknown",
		Summary:  "Field the object's Kubernetes type does not have",
		Severity: rules.Error,
		Doc: `A member that a built-in object's type does not have is refused by kubectl
apply, whose field validation is strict by default: "strict decoding error:
unknown field "spec.template.spec.containers[0].tolerations"". Tools that apply
without strict validation (Helm, Argo CD, kubectl --validate=false) get at most
a warning, and the API server drops the member: a toleration written under a
container, a nodeSelector written beside the pod template, or a misspelled
"toleration:" leaves the pods without it, and they land nowhere or in the wrong
place.

taintlint finds unknown members as the API server does, by strict decoding into
the Kubernetes 1.37 types (k8s.io/api), and reports each at its key with the
path the API server's error names. A name close to a member the type has is
given as a did-you-mean; a pod placement field (tolerations, nodeSelector,
affinity, topologySpreadConstraints, priorityClassName, runtimeClassName,
nodeName, schedulerName) written at another level is named with the path where
it takes effect (spec.template.spec.tolerations).

The kinds checked are those taintlint reads with their types: Pod, PodTemplate,
ReplicationController, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
CronJob (their stable API versions), Node and RuntimeClass. Custom resources
and other kinds are never checked: their schemas live in the cluster. An object
with a value of the wrong type is a parse-error, and its unknown members are
reported once it decodes, as the API server reports them.

It is a rule of its own, not part of parse-error, though kubectl refuses both:
a manifest written for a Kubernetes version newer than taintlint's may hold
fields a newer cluster accepts, and this rule can then be turned off alone.`,
		Bad: `spec:
  template:
    spec:
      containers:
      - name: app
        image: app:1
        tolerations:        # under the container: dropped
        - key: dedicated
          operator: Exists`,
		Good: `spec:
  template:
    spec:
      tolerations:
      - key: dedicated
        operator: Exists
      containers:
      - name: app
        image: app:1`,
		Run: func(p *rules.Pass) error {
			for _, obj := range p.Input.Objects {
				for _, u := range k8s.UnknownFields(obj) {
					p.Reportf(obj, u.Path, "%s", unknownFieldMessage(u))
				}
			}
			return nil
		},
	})
}

// unknownFieldMessage is the API server's error for u, then where the
// member belongs: a pod placement field at its place in the pod spec, a
// name close to a member of its own level, or close to a placement field.
func unknownFieldMessage(u k8s.UnknownField) string {
	msg := fmt.Sprintf("unknown field %q", u.Path.String())
	if u.PodSpec != nil && slices.Contains(k8s.PlacementFields, u.Name) {
		return msg + fmt.Sprintf(" (belongs at %s)", u.PodSpec.Child(u.Name))
	}
	if near := textdist.Nearest(u.Name, u.Known); near != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", near)
	}
	if u.PodSpec != nil {
		if near := textdist.Nearest(u.Name, k8s.PlacementFields); near != "" {
			return msg + fmt.Sprintf(" (did you mean %s?)", u.PodSpec.Child(near))
		}
	}
	return msg
}
