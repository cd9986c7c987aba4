// Package k8s gives rules typed views of loaded objects: the pod spec of
// every workload kind, Nodes and RuntimeClasses, decoded into k8s.io/api
// types once, and the feature gates that change Kubernetes' judgement. A
// workload's view holds only the pod-spec fields rules and the models of
// Kubernetes here read (see Workload.Spec); the object's JSON stays the
// one full form, which the Rego rules read.
package k8s

import (
	"errors"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// Workload is an object that carries a pod spec: a Pod, a pod template, or
// a controller whose template the pods are made from.
type Workload struct {
	Object *loader.Object
	// SpecPath is where the pod spec sits: spec for a Pod,
	// spec.template.spec for controllers, spec.jobTemplate.spec.template.spec
	// for a CronJob, template.spec for a PodTemplate.
	SpecPath *field.Path
	// Spec holds the fields of the pod spec that scheduling, admission
	// and validation read: tolerations, nodeSelector, node affinity (not
	// pod affinity), nodeName, hostNetwork, priorityClassName,
	// preemptionPolicy, runtimeClassName, overhead, pod-level resources,
	// and each container's and init container's name, resources and
	// restartPolicy. The rest is zero: only these are decoded, and every
	// value of the spec is checked against its type.
	Spec v1.PodSpec
	// TolerationsAnnotation is the pod's (the template's, for controllers)
	// legacy scheduler.alpha.kubernetes.io/tolerations annotation, or "".
	// The rest of the pod's metadata is checked for its types, not kept.
	TolerationsAnnotation string
	// Requests is the class of Spec's requests among the workloads of one
	// Interner, or nil (RequestsClass).
	Requests *RequestsClass
	// containers are where the values of the pod spec's containers and
	// initContainers members sit in its JSON, the bytes at specAt
	// (KnownMembers).
	containers [2]jsonscan.Span
	specAt     *byte
	// Template names the pod template of an object with several (a
	// custom kind's Templates or Operands): its path. Empty for an
	// object's one pod spec.
	Template string
	// specPath is SpecPath.String(), shared by the workloads of a kind,
	// and specSteps its steps as loader.Object.JSONAt takes them.
	specPath  string
	specSteps []any
	// daemonSet: an operator makes a DaemonSet of the template.
	daemonSet bool
	// operatorTolerations: Spec.Tolerations are the operator's own, not
	// written in the object (Operands).
	operatorTolerations bool
	// merged: Spec is the operator's merge of placements written
	// elsewhere in the object (CustomKind.Merges).
	merged bool
}

// Merged reports whether w's pod spec is one an operator merges from
// placements written elsewhere in the object (CustomKind.Merges): nothing
// of it is written at SpecPath, and its placements are validated where
// written, so validation rules leave it alone; scheduling rules judge it.
func (w *Workload) Merged() bool { return w.merged }

// SpecSteps are the steps of SpecPath, as loader.Object.JSONAt takes
// them (read only).
func (w *Workload) SpecSteps() []any {
	if w.specSteps != nil {
		return w.specSteps
	}
	return PodSpecSteps(w.SpecPath)
}

// KnownMembers sets k to where decoding found the values of the pod
// spec's containers and initContainers in its JSON (for
// jsonscan.FieldsAlongIn): most of a manifest's bytes are there, and a
// reader of the other members need not pass over them. k.At is nil when
// the pod spec was not decoded so.
func (w *Workload) KnownMembers(k *jsonscan.Known) {
	k.At, k.Members = w.specAt, k.Members[:0]
	for i, name := range [...]string{"containers", "initContainers"} {
		if s := w.containers[i]; s != (jsonscan.Span{}) {
			k.Members = append(k.Members, jsonscan.KnownMember{Name: name, Span: s})
		}
	}
}

// SpecPathString is SpecPath.String(), without making it again.
func (w *Workload) SpecPathString() string {
	if w.specPath == "" {
		return w.SpecPath.String()
	}
	return w.specPath
}

// Named is msg, a finding's message on the field at path, beginning with
// the pod template it is about when w's object has several (Template)
// and path lies in w's pod spec.
func (w *Workload) Named(path, msg string) string {
	sp := w.SpecPathString()
	if w.Template == "" || path != sp && !strings.HasPrefix(path, sp+".") && !strings.HasPrefix(path, sp+"[") {
		return msg
	}
	if w.merged && path != sp {
		return msg // a field of a placement it is merged from: the placement's own finding
	}
	return "pod template " + w.Template + ": " + msg
}

// IsDaemonSet reports whether pods of this workload are made by the
// DaemonSet controller.
// An operator's template it makes a DaemonSet of counts too.
func (w *Workload) IsDaemonSet() bool { return w.daemonSet || w.Object.Kind == "DaemonSet" }

// Node is a Node object of the inventory, or a node an inventory source
// stands for (a node pool's template).
type Node struct {
	Object *loader.Object
	// Node holds what rules and the scheduling package read of a Node
	// object: its name, labels, annotations, taints, cordon and
	// allocatable resources (nodeViewOf), or all of it when a value has
	// the wrong type; Object's JSON is the full form.
	Node v1.Node
	// TaintPaths are where each of Node.Spec.Taints is written in Object,
	// when that is not spec.taints[i]: the inventory left a node's
	// transient taints out, or the node stands for a pool whose taints sit
	// elsewhere. nil: spec.taints[i].
	TaintPaths []*field.Path
	// TaintObjects, when set, are the objects each taint is written in,
	// where that is not Object (nil entries are Object): a Cluster API
	// pool's join taints sit in its KubeadmConfigTemplate.
	TaintObjects []*loader.Object
	// Compatible is set on a node that stands for a node pool whose label
	// values are open (a zone, an architecture, one of several instance
	// types): it decides whether a pod's nodeSelector and required node
	// affinity can be met there, in place of matching Node's labels, and
	// says why not. nil: the labels decide.
	Compatible func(selector map[string]string, affinity *v1.Affinity) error
	// DaemonCompatible, when set, stands in for Compatible for DaemonSet
	// pods: they are not provisioned for, so a provisioner's refusal of a
	// pod (Karpenter's restricted labels) does not apply to them.
	DaemonCompatible func(selector map[string]string, affinity *v1.Affinity) error
	// PartialAllocatable is set on a node that stands for a node pool
	// whose resources are known only in part (cpu, memory and GPUs from
	// its instance types): a resource Node.Status.Allocatable does not list
	// is unknown and not judged, where a Node object offers none of it.
	PartialAllocatable bool
	// AllocatableSource says, for such a node, where its allocatable
	// comes from, or why it is unknown.
	AllocatableSource string
}

// TaintObject is the object taint i of Node.Spec.Taints is written in.
func (n *Node) TaintObject(i int) *loader.Object {
	if i < len(n.TaintObjects) && n.TaintObjects[i] != nil {
		return n.TaintObjects[i]
	}
	return n.Object
}

// TaintPath is where taint i of Node.Spec.Taints is written in Object.
func (n *Node) TaintPath(i int) *field.Path {
	if n.TaintPaths != nil && i < len(n.TaintPaths) {
		return n.TaintPaths[i]
	}
	return field.NewPath("spec", "taints").Index(i)
}

// RuntimeClass is a node.k8s.io RuntimeClass.
type RuntimeClass struct {
	Object       *loader.Object
	RuntimeClass nodev1.RuntimeClass
}

// DecodeIssue is a field whose value does not fit its Kubernetes type.
type DecodeIssue struct {
	Object *loader.Object
	Path   string // field path in manifest terms: spec.template.spec.volumes[0].fc.lun
	Msg    string // what was expected and what the manifest has
	// InView: the field belongs to the typed view rules read (the pod spec
	// and its pod's metadata, a Node, a RuntimeClass), which holds it
	// zero. A field outside it (a Deployment's replicas) changes nothing
	// the rules see.
	InView bool
	// AtValue: the value is of the wrong type; findings point at it rather
	// than at its key (an object that cannot be expanded points at its key).
	AtValue bool
}

// specPath is a place a kind keeps its pod spec, in the forms the
// decoders take. Built once: a field.Path is never changed after it is
// made (Child and Index make new ones), so every workload shares these.
type specPath struct {
	path    *field.Path
	str     string
	steps   []any  // field names, as loader.Object.JSONAt takes them
	meta    []any  // the metadata of the pod (template) the spec belongs to
	metaStr string // meta as a field path
	parsed  jsonscan.FieldPath
}

func newSpecPath(names ...string) *specPath {
	p := &specPath{path: field.NewPath(names[0], names[1:]...), str: strings.Join(names, ".")}
	for _, n := range names {
		p.steps = append(p.steps, n)
	}
	p.meta = append(append([]any{}, p.steps[:len(p.steps)-1]...), "metadata")
	p.metaStr = strings.Join(append(names[:len(names)-1:len(names)-1], "metadata"), ".")
	p.parsed, _ = jsonscan.ParseFieldPath(p.str) // names are plain: never an error
	return p
}

var (
	podSpec        = newSpecPath("spec")
	templateSpec   = newSpecPath("template", "spec")
	cronJobSpec    = newSpecPath("spec", "jobTemplate", "spec", "template", "spec")
	controllerSpec = newSpecPath("spec", "template", "spec")
)

// PodSpecSteps are the field names of p, a path PodSpecPath returned, as
// loader.Object.JSONAt takes them (read only).
func PodSpecSteps(p *field.Path) []any {
	for _, s := range [...]*specPath{controllerSpec, podSpec, cronJobSpec, templateSpec} {
		if s.path == p {
			return s.steps
		}
	}
	var steps []any
	for name := range strings.SplitSeq(p.String(), ".") {
		steps = append(steps, name)
	}
	return steps
}

// PodSpecPath returns where obj keeps its pod spec, or nil when it has none.
func PodSpecPath(obj *loader.Object) *field.Path {
	if p := podSpecPath(obj, nil); p != nil {
		return p.path
	}
	return nil
}

func podSpecPath(obj *loader.Object, kinds *Kinds) *specPath {
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
	if kp := kinds.lookup(obj); kp != nil {
		return kp.podTemplate // an operator's kind, or the user's: its table entry says
	}
	// Any other kind whose spec.template.spec holds containers is taken to
	// stamp out pods the same way (Argo Rollouts, OpenKruise, …).
	var probe struct {
		Containers []any `json:"containers"`
	}
	if err := obj.Decode(controllerSpec.str, &probe); err == nil && len(probe.Containers) > 0 {
		return controllerSpec
	}
	return nil
}

// NewWorkload decodes the fields of obj's pod spec that the view holds
// (Workload.Spec), after checking every value of the spec against its
// type. It returns nil, nil for objects without one. Values of the wrong
// type yield the workload decoded as far as possible, and an issue for
// each. For the built-in workload kinds the
// rest of the object is checked for its types too (spec.replicas: true is
// an issue), without decoding it.
func NewWorkload(obj *loader.Object) (*Workload, []*DecodeIssue) {
	return newWorkload(obj, nil)
}

func newWorkload(obj *loader.Object, shared *Interner) (*Workload, []*DecodeIssue) {
	sp := podSpecPath(obj, shared.customKinds())
	if sp == nil {
		return nil, nil
	}
	return newWorkloadAt(obj, sp, shared)
}

// newWorkloadAt is newWorkload for the pod spec at sp.
func newWorkloadAt(obj *loader.Object, sp *specPath, shared *Interner) (*Workload, []*DecodeIssue) {
	w := &Workload{Object: obj, SpecPath: sp.path, specPath: sp.str, specSteps: sp.steps}
	var issues []*DecodeIssue
	var spec []byte
	schemas := viewSchemas()
	schema := schemas.kinds[obj.APIVersion+"/"+obj.Kind]
	if schema != nil {
		// Everything but the pod spec, which is decoded next.
		var errs []*jsonscan.DecodeError
		errs, spec = obj.Check(schema, sp.parsed)
		for _, e := range errs {
			inView := e.Path == sp.metaStr || strings.HasPrefix(e.Path, sp.metaStr+".") || strings.HasPrefix(e.Path, sp.metaStr+"[")
			issues = append(issues, &DecodeIssue{Object: obj, Path: e.Path, Msg: e.Msg, InView: inView, AtValue: e.Value})
		}
	}
	if spec == nil {
		all, err := obj.JSON() // kept by the loader, or made from the tree
		if err != nil {
			issues = decodeSpec(issues, obj, sp, nil, w) // no JSON form: the error that says why
		} else {
			spec, _, _ = jsonscan.Walk(all, sp.steps...) // absent: left zero
		}
	}
	if spec != nil {
		// Every value of the spec is checked against its type, without
		// decoding it; when all fit (nearly always), only the fields the
		// view holds are decoded.
		var v podSpecView
		if len(jsonscan.Check(spec, schemas.podSpec, sp.str, jsonscan.FieldPath{})) == 0 && v.decode(spec, shared) == nil {
			w.Spec = v.spec()
			w.Requests = shared.requestsClass(&v)
			if _, _, kept := obj.JSONAt(); kept { // spec is in the JSON the object keeps
				w.containers, w.specAt = v.containersAt, &spec[0]
			}
		} else {
			// A value of the wrong type: the whole spec is decoded, to
			// hold the rest as far as it decodes and name every such value.
			issues = decodeSpec(issues, obj, sp, spec, w)
		}
	}
	ann, ok := templateAnnotation(obj, sp.meta)
	if !ok {
		// Not plain JSON of the expected shape: decode the maps, for the
		// errors that name the fields (the object's Schema named them
		// already for a built-in kind).
		var meta struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		}
		if err := obj.Decode(sp.metaStr, &meta); err != nil && schema == nil {
			issues = appendIssues(issues, obj, sp.metaStr, err)
		}
		ann = meta.Annotations[v1.TolerationsAnnotationKey]
	}
	w.TolerationsAnnotation = ann
	return w, issues
}

// decodeSpec decodes the whole pod spec (spec, its JSON, or nil to read
// it from the object) into w and keeps the fields the view holds, with an
// issue for each value of the wrong type.
func decodeSpec(issues []*DecodeIssue, obj *loader.Object, sp *specPath, spec []byte, w *Workload) []*DecodeIssue {
	var full v1.PodSpec
	var err error
	if spec != nil {
		err = obj.DecodeJSON(spec, sp.str, &full, viewSchemas().podSpec)
	} else {
		err = decodeAt(obj, sp.str, sp.steps, &full, viewSchemas().podSpec)
	}
	if err != nil {
		issues = appendIssues(issues, obj, sp.str, err)
	}
	w.Spec = viewOf(&full).spec()
	return issues
}

// appendIssues adds an issue for each field err names (a decode of the
// view at path failed): every one, not only the first encoding/json met.
func appendIssues(issues []*DecodeIssue, obj *loader.Object, path string, err error) []*DecodeIssue {
	var all jsonscan.DecodeErrors
	if errors.As(err, &all) {
		for _, de := range all {
			issues = append(issues, &DecodeIssue{Object: obj, Path: de.Path, Msg: de.Msg, InView: true, AtValue: de.Value})
		}
		return issues
	}
	var de *jsonscan.DecodeError
	if errors.As(err, &de) {
		return append(issues, &DecodeIssue{Object: obj, Path: de.Path, Msg: de.Msg, InView: true, AtValue: de.Value})
	}
	return append(issues, &DecodeIssue{Object: obj, Path: path, Msg: err.Error(), InView: true})
}

// TaintList is a list of taints as a definition writes it, for the
// validation rules: they check it with the rules the API server applies to
// Node taints, at the taints' own lines (Path.Index(i); kOps strings
// included, whose key, value and effect findings point at the string).
type TaintList struct {
	Object *loader.Object
	Path   *field.Path
	Taints []v1.Taint
}
