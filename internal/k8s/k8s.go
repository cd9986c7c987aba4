// Package k8s gives rules typed views of loaded objects: the pod spec of
// every workload kind, Nodes and RuntimeClasses, decoded into k8s.io/api
// types once, and the feature gates that change Kubernetes' judgement.
package k8s

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
)

// Workload is an object that carries a pod spec: a Pod, a pod template, or
// a controller whose template the pods are made from.
type Workload struct {
	Object *loader.Object
	// SpecPath is where the pod spec sits: spec for a Pod,
	// spec.template.spec for controllers, spec.jobTemplate.spec.template.spec
	// for a CronJob, template.spec for a PodTemplate.
	SpecPath *field.Path
	Spec     v1.PodSpec
	// TolerationsAnnotation is the pod's (the template's, for controllers)
	// legacy scheduler.alpha.kubernetes.io/tolerations annotation, or "".
	// The rest of the pod's metadata is checked for its types, not kept.
	TolerationsAnnotation string
}

// IsDaemonSet reports whether pods of this workload are made by the
// DaemonSet controller.
func (w *Workload) IsDaemonSet() bool { return w.Object.Kind == "DaemonSet" }

// Node is a Node object of the inventory.
type Node struct {
	Object *loader.Object
	Node   v1.Node
}

// RuntimeClass is a node.k8s.io RuntimeClass.
type RuntimeClass struct {
	Object       *loader.Object
	RuntimeClass nodev1.RuntimeClass
}

// DecodeIssue is a field whose value does not fit its Kubernetes type.
type DecodeIssue struct {
	Object *loader.Object
	Path   string
	Msg    string
}

// Pod spec paths, built once: a field.Path is never changed after it is
// made (Child and Index make new ones), so every workload shares these.
var (
	podSpec         = field.NewPath("spec")
	templateSpec    = field.NewPath("template", "spec")
	cronJobSpec     = field.NewPath("spec", "jobTemplate", "spec", "template", "spec")
	controllerSpec  = field.NewPath("spec", "template", "spec")
	specPathStrings = map[*field.Path]string{}
	// specSteps are the field names of each pod spec path, as
	// loader.Object.JSONAt takes them.
	specSteps = map[*field.Path][]any{}
)

func init() {
	for _, p := range []*field.Path{podSpec, templateSpec, cronJobSpec, controllerSpec} {
		specPathStrings[p] = p.String()
		for name := range strings.SplitSeq(p.String(), ".") {
			specSteps[p] = append(specSteps[p], name)
		}
	}
}

// PodSpecPath returns where obj keeps its pod spec, or nil when it has none.
func PodSpecPath(obj *loader.Object) *field.Path {
	switch obj.Kind {
	case "Pod":
		return podSpec
	case "PodTemplate":
		return templateSpec
	case "CronJob":
		return cronJobSpec
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController":
		return controllerSpec
	}
	// Any other kind whose spec.template.spec holds containers is taken to
	// stamp out pods the same way (Argo Rollouts, OpenKruise, …).
	var probe struct {
		Containers []any `json:"containers"`
	}
	if err := obj.Decode("spec.template.spec", &probe); err == nil && len(probe.Containers) > 0 {
		return controllerSpec
	}
	return nil
}

// NewWorkload decodes obj's pod spec. It returns nil, nil for objects
// without one. A value of the wrong type yields the workload decoded as far
// as possible, and the issue.
func NewWorkload(obj *loader.Object) (*Workload, *DecodeIssue) {
	return newWorkload(obj, nil)
}

func newWorkload(obj *loader.Object, shared *Interner) (*Workload, *DecodeIssue) {
	p := PodSpecPath(obj)
	if p == nil {
		return nil, nil
	}
	w := &Workload{Object: obj, SpecPath: p}
	var issue *DecodeIssue
	path := specPathStrings[p]
	if err := obj.Decode(path, &w.Spec); err != nil {
		issue = toIssue(obj, path, err)
	}
	metaPath := "metadata"
	if obj.Kind != "Pod" {
		metaPath = strings.TrimSuffix(path, ".spec") + ".metadata"
	}
	var meta struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	}
	if err := obj.Decode(metaPath, &meta); err != nil && issue == nil {
		issue = toIssue(obj, metaPath, err)
	}
	w.TolerationsAnnotation = meta.Annotations[v1.TolerationsAnnotationKey]
	if shared != nil && issue == nil {
		shared.share(w)
	}
	return w, issue
}

// Interner lets the workloads of one run share the maps they would
// otherwise each hold a copy of: container resources and node selectors
// repeat across a repository, and a small map costs more than half a
// kilobyte. Shared maps are read only, as every typed view is. It is safe
// for concurrent use.
type Interner struct {
	mu        sync.Mutex
	resources map[string]v1.ResourceRequirements
	selectors map[string]map[string]string
}

// maxInterned bounds each table of an Interner: a repository whose values
// never repeat gains nothing from it.
const maxInterned = 1 << 14

// NewInterner returns an empty Interner.
func NewInterner() *Interner {
	return &Interner{resources: map[string]v1.ResourceRequirements{}, selectors: map[string]map[string]string{}}
}

// Workload is NewWorkload, sharing maps with the other workloads of in.
func (in *Interner) Workload(obj *loader.Object) (*Workload, *DecodeIssue) {
	return newWorkload(obj, in)
}

// share replaces w's maps by equal ones already held, keyed by their JSON
// (equal JSON decodes to equal values).
func (in *Interner) share(w *Workload) {
	spec, found, ok := w.Object.JSONAt(specSteps[w.SpecPath]...)
	if !ok || !found {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, list := range [...]struct {
		name string
		cs   []v1.Container
	}{{"containers", w.Spec.Containers}, {"initContainers", w.Spec.InitContainers}} {
		name, cs := list.name, list.cs
		for i := range cs {
			raw, found, _ := loader.WalkJSON(spec, name, i, "resources")
			if !found {
				continue
			}
			if r, ok := in.resources[string(raw)]; ok {
				cs[i].Resources = r
			} else if len(in.resources) < maxInterned {
				in.resources[string(raw)] = cs[i].Resources
			}
		}
	}
	if w.Spec.NodeSelector != nil {
		raw, found, _ := loader.WalkJSON(spec, "nodeSelector")
		if !found {
			return
		}
		if m, ok := in.selectors[string(raw)]; ok {
			w.Spec.NodeSelector = m
		} else if len(in.selectors) < maxInterned {
			in.selectors[string(raw)] = w.Spec.NodeSelector
		}
	}
}

// NewNode decodes a Node object.
func NewNode(obj *loader.Object) (*Node, *DecodeIssue) {
	n := &Node{Object: obj}
	var issue *DecodeIssue
	if err := obj.Decode("", &n.Node); err != nil {
		issue = toIssue(obj, "", err)
	}
	n.Node.Name = obj.Name
	return n, issue
}

// NewRuntimeClass decodes a RuntimeClass object.
func NewRuntimeClass(obj *loader.Object) (*RuntimeClass, *DecodeIssue) {
	rc := &RuntimeClass{Object: obj}
	var issue *DecodeIssue
	if err := obj.Decode("", &rc.RuntimeClass); err != nil {
		issue = toIssue(obj, "", err)
	}
	return rc, issue
}

// IsNode reports whether obj is a core/v1 Node.
func IsNode(obj *loader.Object) bool { return obj.Kind == "Node" && obj.APIVersion == "v1" }

// IsRuntimeClass reports whether obj is a node.k8s.io RuntimeClass.
func IsRuntimeClass(obj *loader.Object) bool {
	return obj.Kind == "RuntimeClass" && strings.HasPrefix(obj.APIVersion, "node.k8s.io/")
}

func toIssue(obj *loader.Object, path string, err error) *DecodeIssue {
	var de *loader.DecodeError
	if errors.As(err, &de) {
		return &DecodeIssue{Object: obj, Path: de.Path, Msg: de.Msg}
	}
	return &DecodeIssue{Object: obj, Path: path, Msg: err.Error()}
}

// FeatureGates are the Kubernetes feature gates that change how taints and
// tolerations are judged. The zero value is Kubernetes 1.37's default.
type FeatureGates struct {
	// TaintTolerationComparisonOperators allows the Lt and Gt toleration
	// operators (alpha, off by default in 1.35 to 1.37).
	TaintTolerationComparisonOperators bool
}

// KnownFeatureGates lists the gates taintlint models.
func KnownFeatureGates() []string { return []string{"TaintTolerationComparisonOperators"} }

// Set sets one gate by name.
func (g *FeatureGates) Set(name string, on bool) error {
	switch name {
	case "TaintTolerationComparisonOperators":
		g.TaintTolerationComparisonOperators = on
	default:
		return fmt.Errorf("unknown feature gate %q (known: %s)", name, strings.Join(KnownFeatureGates(), ", "))
	}
	return nil
}

// ParseFeatureGates applies a comma-separated NAME=BOOL list, the
// kube-apiserver --feature-gates syntax.
func (g *FeatureGates) Parse(s string) error {
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("feature gate %q: want NAME=true or NAME=false", kv)
		}
		on, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return fmt.Errorf("feature gate %q: %q is not a boolean", name, val)
		}
		if err := g.Set(strings.TrimSpace(name), on); err != nil {
			return err
		}
	}
	return nil
}

// String lists the gates that differ from the default, sorted.
func (g FeatureGates) String() string {
	var on []string
	if g.TaintTolerationComparisonOperators {
		on = append(on, "TaintTolerationComparisonOperators=true")
	}
	sort.Strings(on)
	return strings.Join(on, ",")
}
