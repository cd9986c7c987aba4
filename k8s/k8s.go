// Package k8s gives rules typed views of loaded objects: the pod spec of
// every workload kind, Nodes and RuntimeClasses, decoded into k8s.io/api
// types once, and the feature gates that change Kubernetes' judgement. A
// workload's view holds only the pod-spec fields rules and the models of
// Kubernetes here read (see Workload.Spec); the object's JSON stays the
// one full form, which the Rego rules read.
package k8s

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

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
	// specPath is SpecPath.String(), shared by the workloads of a kind.
	specPath string
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

// IsDaemonSet reports whether pods of this workload are made by the
// DaemonSet controller.
func (w *Workload) IsDaemonSet() bool { return w.Object.Kind == "DaemonSet" }

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
	w := &Workload{Object: obj, SpecPath: sp.path, specPath: sp.str}
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

// podSpecView is the part of a pod spec that scheduling, admission and
// validation read, and so what Workload.Spec holds: tolerations,
// nodeSelector, node affinity, nodeName, hostNetwork, priority class and
// preemption policy, runtime class, overhead, pod-level resources, and
// each container's and init container's name, resources and restart
// policy. Decoding only these (with the types of k8s.io/api) leaves
// environment, commands, probes, volumes, ports, security contexts and
// pod (anti-)affinity undecoded: most of a realistic pod spec. A new
// reader of another field adds it here and in viewOf.
type podSpecView struct {
	Tolerations       []v1.Toleration          `json:"tolerations"`
	NodeSelector      map[string]string        `json:"nodeSelector"`
	Affinity          *affinityView            `json:"affinity"`
	NodeName          string                   `json:"nodeName"`
	HostNetwork       bool                     `json:"hostNetwork"`
	PriorityClassName string                   `json:"priorityClassName"`
	PreemptionPolicy  *v1.PreemptionPolicy     `json:"preemptionPolicy"`
	RuntimeClassName  *string                  `json:"runtimeClassName"`
	Overhead          v1.ResourceList          `json:"overhead"`
	Resources         *v1.ResourceRequirements `json:"resources"`
	Containers        []containerView          `json:"containers"`
	InitContainers    []containerView          `json:"initContainers"`

	// containersAt is Workload.Containers.
	containersAt [2]jsonscan.Span
}

// affinityView is the node affinity of a pod's affinity: the pod
// (anti-)affinity terms place pods relative to other pods, which no rule
// models.
type affinityView struct {
	NodeAffinity *v1.NodeAffinity `json:"nodeAffinity"`
}

type containerView struct {
	Name          string                     `json:"name"`
	Resources     v1.ResourceRequirements    `json:"resources"`
	RestartPolicy *v1.ContainerRestartPolicy `json:"restartPolicy"`
	// resID is Resources' number in the Interner's table (0: none, or
	// not numbered when hasResources).
	resID        uint32
	hasResources bool
}

// viewOf keeps the fields of a decoded pod spec that podSpecView holds.
func viewOf(s *v1.PodSpec) podSpecView {
	v := podSpecView{
		Tolerations: s.Tolerations, NodeSelector: s.NodeSelector, NodeName: s.NodeName,
		HostNetwork: s.HostNetwork, PriorityClassName: s.PriorityClassName, PreemptionPolicy: s.PreemptionPolicy,
		RuntimeClassName: s.RuntimeClassName, Overhead: s.Overhead, Resources: s.Resources,
	}
	if s.Affinity != nil {
		v.Affinity = &affinityView{NodeAffinity: s.Affinity.NodeAffinity}
	}
	containers := func(cs []v1.Container) []containerView {
		if cs == nil {
			return nil
		}
		out := make([]containerView, len(cs))
		for i, c := range cs {
			out[i] = containerView{Name: c.Name, Resources: c.Resources, RestartPolicy: c.RestartPolicy}
		}
		return out
	}
	v.Containers, v.InitContainers = containers(s.Containers), containers(s.InitContainers)
	return v
}

// spec is the view as a k8s.io/api pod spec, with the other fields zero.
func (v podSpecView) spec() v1.PodSpec {
	s := v1.PodSpec{
		Tolerations: v.Tolerations, NodeSelector: v.NodeSelector, NodeName: v.NodeName,
		HostNetwork: v.HostNetwork, PriorityClassName: v.PriorityClassName, PreemptionPolicy: v.PreemptionPolicy,
		RuntimeClassName: v.RuntimeClassName, Overhead: v.Overhead, Resources: v.Resources,
	}
	if v.Affinity != nil {
		s.Affinity = &v1.Affinity{NodeAffinity: v.Affinity.NodeAffinity}
	}
	containers := func(cs []containerView) []v1.Container {
		if cs == nil {
			return nil
		}
		out := make([]v1.Container, len(cs))
		for i, c := range cs {
			out[i] = v1.Container{Name: c.Name, Resources: c.Resources, RestartPolicy: c.RestartPolicy}
		}
		return out
	}
	s.Containers, s.InitContainers = containers(v.Containers), containers(v.InitContainers)
	return s
}

// decode fills v from spec, the JSON of a pod spec whose every value fits
// its type (CheckJSON found none that does not): the members the view
// holds are decoded as sigs.k8s.io/json decodes them, the others passed
// over unread, which is most of the cost a whole decode had. shared, when
// not nil, gives container resources and node selectors seen before.
func (v *podSpecView) decode(spec []byte, shared *Interner) error {
	var buf [32]jsonscan.Field
	for _, f := range jsonscan.Fields(spec, buf[:0]) {
		if string(f.Value) == "null" {
			continue // leaves the field zero, as decoding does
		}
		var err error
		switch jsonKey(f.Key) {
		case "tolerations":
			err = unmarshal(f.Value, &v.Tolerations)
		case "nodeSelector":
			v.NodeSelector, err = shared.selector(f.Value)
		case "affinity":
			v.Affinity = &affinityView{}
			var fields [4]jsonscan.Field
			for _, a := range jsonscan.Fields(f.Value, fields[:0]) {
				if a.Is("nodeAffinity") {
					err = unmarshal(a.Value, &v.Affinity.NodeAffinity)
				}
			}
		case "nodeName":
			v.NodeName, err = jsonString(f.Value)
		case "hostNetwork":
			err = unmarshal(f.Value, &v.HostNetwork)
		case "priorityClassName":
			v.PriorityClassName, err = jsonString(f.Value)
		case "preemptionPolicy":
			err = unmarshal(f.Value, &v.PreemptionPolicy)
		case "runtimeClassName":
			err = unmarshal(f.Value, &v.RuntimeClassName)
		case "overhead":
			err = unmarshal(f.Value, &v.Overhead)
		case "resources":
			err = unmarshal(f.Value, &v.Resources)
		case "containers":
			v.Containers, err = decodeContainers(f.Value, shared)
			v.containersAt[0] = jsonscan.SpanOf(spec, f.Value)
		case "initContainers":
			v.InitContainers, err = decodeContainers(f.Value, shared)
			v.containersAt[1] = jsonscan.SpanOf(spec, f.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeContainers decodes the name, resources and restart policy of each
// container of the JSON list data.
func decodeContainers(data []byte, shared *Interner) ([]containerView, error) {
	var buf [8][]byte
	elems := jsonscan.Elems(data, buf[:0])
	out := make([]containerView, len(elems))
	for i, e := range elems {
		var fields [16]jsonscan.Field
		for _, f := range jsonscan.Fields(e, fields[:0]) {
			if string(f.Value) == "null" {
				continue
			}
			var err error
			switch jsonKey(f.Key) {
			case "name":
				out[i].Name, err = jsonString(f.Value)
			case "resources":
				out[i].hasResources = true
				out[i].Resources, out[i].resID, err = shared.resources(f.Value)
			case "restartPolicy":
				err = unmarshal(f.Value, &out[i].RestartPolicy)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func unmarshal(data []byte, v any) error { return kjson.UnmarshalCaseSensitivePreserveInts(data, v) }

// jsonKey is the member name a quoted JSON key spells.
func jsonKey(q []byte) string {
	if len(q) >= 2 && bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1])
	}
	var k string
	_ = json.Unmarshal(q, &k)
	return k
}

// jsonString decodes a JSON string; one without escapes, nearly every
// one, is its bytes.
func jsonString(data []byte) (string, error) {
	if len(data) >= 2 && data[0] == '"' && bytes.IndexByte(data, '\\') < 0 && utf8.Valid(data) {
		return string(data[1 : len(data)-1]), nil
	}
	var s string
	err := unmarshal(data, &s)
	return s, err
}

// decodeAt decodes the object's JSON at path (steps, the same path) into
// v, whose type's Schema s finds every value of the wrong type if it fails.
func decodeAt(obj *loader.Object, path string, steps []any, v any, s *jsonscan.Schema) error {
	all, err := obj.JSON() // kept by the loader, or made from the tree
	if err != nil {
		return obj.Decode(path, v) // no JSON form: the error that says why
	}
	data, found, _ := jsonscan.Walk(all, steps...)
	if !found {
		return nil // absent, or another type on the way: left zero
	}
	return obj.DecodeJSON(data, path, v, s)
}

// schemas are the Schemas of the typed views: made once, read only after
// (a Schema of a pod spec costs a millisecond to make).
type schemas struct {
	// kinds are the built-in kinds that carry a pod spec, by
	// apiVersion/kind: the whole object is checked.
	kinds                       map[string]*jsonscan.Schema
	podSpec, node, runtimeClass *jsonscan.Schema
}

var viewSchemas = sync.OnceValue(func() *schemas {
	var kinds []builtinKind
	for _, k := range builtinKinds {
		if k.pods {
			kinds = append(kinds, k)
		}
	}
	types := []reflect.Type{reflect.TypeFor[v1.PodSpec](), reflect.TypeFor[v1.Node](), reflect.TypeFor[nodev1.RuntimeClass]()}
	for _, k := range kinds {
		types = append(types, k.t)
	}
	all := jsonscan.SchemasOf(types...)
	s := &schemas{podSpec: all[0], node: all[1], runtimeClass: all[2], kinds: make(map[string]*jsonscan.Schema, len(kinds))}
	for i, k := range kinds {
		s.kinds[k.name] = all[3+i]
	}
	return s
})

// templateAnnotation reads the legacy tolerations annotation of the pod
// (template) metadata at meta from the object's JSON, where decoding its
// labels and annotations into maps would cost a map each. ok is false
// when the object keeps no JSON or the metadata would not decode (a
// label or annotation that is not a string).
func templateAnnotation(obj *loader.Object, meta []any) (ann string, ok bool) {
	raw, found, ok := obj.JSONAt(meta...)
	if !ok {
		return "", false
	}
	if !found || string(raw) == "null" {
		return "", true
	}
	if raw[0] != '{' {
		return "", false
	}
	var buf [8]jsonscan.Field
	for _, f := range jsonscan.Fields(raw, buf[:0]) {
		annotations := f.Is("annotations")
		if !annotations && !f.Is("labels") || string(f.Value) == "null" {
			continue
		}
		if f.Value[0] != '{' {
			return "", false
		}
		var entries [16]jsonscan.Field
		for _, e := range jsonscan.Fields(f.Value, entries[:0]) {
			if string(e.Value) == "null" {
				continue
			}
			if e.Value[0] != '"' {
				return "", false
			}
			if annotations && e.Is(v1.TolerationsAnnotationKey) && json.Unmarshal(e.Value, &ann) != nil {
				return "", false
			}
		}
	}
	return ann, true
}

// Interner lets the workloads of one run share the maps they would
// otherwise each hold a copy of: container resources and node selectors
// repeat across a repository, and a small map costs more than half a
// kilobyte. Shared maps are read only, as every typed view is. It is safe
// for concurrent use.
type Interner struct {
	kinds         *Kinds // read only
	mu            sync.Mutex
	resourceTable map[string]interned
	selectors     map[string]map[string]string
	requests      map[string]*RequestsClass
}

// interned is a container's resources, and their number in the table
// (from 1).
type interned struct {
	r  v1.ResourceRequirements
	id uint32
}

// RequestsClass stands for what resource.PodRequests reads of the pod
// specs of one Interner's workloads (each container's and init
// container's resources and restart policy; no overhead and no pod-level
// resources): workloads with one class have equal requests, so they are
// worked out once per class. The pointer is the identity.
type RequestsClass struct{ _ byte }

// maxInterned bounds each table of an Interner: a repository whose values
// never repeat gains nothing from it.
const maxInterned = 1 << 14

// NewInterner returns an empty Interner.
func NewInterner() *Interner {
	return &Interner{resourceTable: map[string]interned{}, selectors: map[string]map[string]string{}, requests: map[string]*RequestsClass{}}
}

// NewInternerFor is NewInterner for a run whose custom kinds are kinds
// (nil: the operators' alone).
func NewInternerFor(kinds *Kinds) *Interner {
	in := NewInterner()
	in.kinds = kinds
	return in
}

func (in *Interner) customKinds() *Kinds {
	if in == nil {
		return nil
	}
	return in.kinds
}

// Placements are obj's placements outside a pod spec (Kinds.Placements),
// for the custom kinds of in.
func (in *Interner) Placements(obj *loader.Object) ([]Placement, []*DecodeIssue) {
	return in.customKinds().Placements(obj)
}

// Workload is NewWorkload, sharing maps with the other workloads of in.
func (in *Interner) Workload(obj *loader.Object) (*Workload, []*DecodeIssue) {
	return newWorkload(obj, in)
}

// resources decodes container resources, the JSON data, or gives an
// equal value decoded before (equal JSON decodes to equal values), with
// its number in the table; 0 when the table is full.
func (in *Interner) resources(data []byte) (v1.ResourceRequirements, uint32, error) {
	var r v1.ResourceRequirements
	if in == nil {
		err := unmarshal(data, &r)
		return r, 0, err
	}
	in.mu.Lock()
	e, ok := in.resourceTable[string(data)]
	in.mu.Unlock()
	if ok {
		return e.r, e.id, nil
	}
	if err := unmarshal(data, &r); err != nil {
		return r, 0, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if e, ok := in.resourceTable[string(data)]; ok { // another worker was first
		return e.r, e.id, nil
	}
	if len(in.resourceTable) >= maxInterned {
		return r, 0, nil
	}
	e = interned{r: r, id: uint32(len(in.resourceTable) + 1)}
	in.resourceTable[string(data)] = e
	return r, e.id, nil
}

// requestsClass is the class of v's requests, nil when v has overhead or
// pod-level resources, or a container whose resources were not numbered.
func (in *Interner) requestsClass(v *podSpecView) *RequestsClass {
	if in == nil || v.Overhead != nil || v.Resources != nil {
		return nil
	}
	var buf [64]byte
	key := buf[:0]
	for i, cs := range [][]containerView{v.Containers, v.InitContainers} {
		if i == 1 {
			key = append(key, 0xff)
		}
		for _, c := range cs {
			if c.resID == 0 && c.hasResources {
				return nil
			}
			key = binary.AppendUvarint(key, uint64(c.resID))
			if c.RestartPolicy == nil {
				key = append(key, 0)
			} else {
				key = binary.AppendUvarint(key, uint64(len(*c.RestartPolicy))+1)
				key = append(key, *c.RestartPolicy...)
			}
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	c := in.requests[string(key)]
	if c == nil {
		if len(in.requests) >= maxInterned {
			return nil
		}
		c = &RequestsClass{}
		in.requests[string(key)] = c
	}
	return c
}

// selector is resources for a node selector.
func (in *Interner) selector(data []byte) (map[string]string, error) {
	var m map[string]string
	if in == nil {
		err := unmarshal(data, &m)
		return m, err
	}
	in.mu.Lock()
	m, ok := in.selectors[string(data)]
	in.mu.Unlock()
	if ok {
		return m, nil
	}
	if err := unmarshal(data, &m); err != nil {
		return m, err
	}
	in.mu.Lock()
	if len(in.selectors) < maxInterned {
		in.selectors[string(data)] = m
	}
	in.mu.Unlock()
	return m, nil
}

// NewNode decodes a Node object, with an issue for each value of the
// wrong type. A Node whose every value has its type (nearly all) holds
// only what rules and the scheduling package read (nodeViewOf); one with
// a wrong-typed value anywhere is decoded whole, as the issues say.
func NewNode(obj *loader.Object) (*Node, []*DecodeIssue) {
	n := &Node{Object: obj}
	var issues []*DecodeIssue
	s := viewSchemas().node
	// A Node read lean (NodeLean) fits s, and part holds the members
	// decodeNodeView reads.
	part, ok := obj.LeanJSON(s)
	if !ok {
		if all, err := obj.JSON(); err == nil && len(jsonscan.Check(all, s, "", jsonscan.FieldPath{})) == 0 {
			part, ok = all, true
		}
	}
	if ok {
		if decodeNodeView(part, &n.Node) == nil {
			n.Node.Name = obj.Name
			return n, nil
		}
		n = &Node{Object: obj}
	}
	if err := decodeAt(obj, "", nil, &n.Node, s); err != nil {
		issues = appendIssues(issues, obj, "", err)
	}
	n.Node.Name = obj.Name
	return n, issues
}

// nodeViewOf keeps the fields of a decoded Node that rules and the
// scheduling package read: its name, labels and annotations (the legacy
// taints annotation), its taints and cordon, and its allocatable
// resources. The rest of a kubectl-shaped Node (conditions, capacity,
// images, node info, addresses, timestamps) is most of its bytes, and
// the object's JSON, which the Rego rules read, keeps it. A new reader of
// another field adds it here and in decodeNodeView (TestNodeView).
func nodeViewOf(n *v1.Node) v1.Node {
	return v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations},
		Spec:       v1.NodeSpec{Taints: n.Spec.Taints, Unschedulable: n.Spec.Unschedulable},
		Status:     v1.NodeStatus{Allocatable: n.Status.Allocatable},
	}
}

// decodeNodeView fills n with the fields nodeViewOf keeps from all, the
// JSON of a Node whose every value fits its type (CheckJSON found none
// that does not), decoded as sigs.k8s.io/json decodes them, but the
// name, which NewNode sets; the other members are passed over unread.
func decodeNodeView(all []byte, n *v1.Node) error {
	var top, members [8]jsonscan.Field
	for _, f := range jsonscan.Fields(all, top[:0]) {
		metadata, spec, status := f.Is("metadata"), f.Is("spec"), f.Is("status")
		if !metadata && !spec && !status || string(f.Value) == "null" {
			continue // a null part leaves the field zero, as decoding does
		}
		for _, m := range jsonscan.Fields(f.Value, members[:0]) {
			if string(m.Value) == "null" {
				continue
			}
			var err error
			switch {
			case metadata && m.Is("labels"):
				n.Labels, err = stringMap(m.Value)
			case metadata && m.Is("annotations"):
				n.Annotations, err = stringMap(m.Value)
			case spec && m.Is("taints"):
				if t, ok := taintsOf(m.Value); ok {
					n.Spec.Taints = t
				} else {
					err = unmarshal(m.Value, &n.Spec.Taints)
				}
			case spec && m.Is("unschedulable"):
				switch string(m.Value) {
				case "true", "false":
					n.Spec.Unschedulable = string(m.Value) == "true"
				default:
					err = unmarshal(m.Value, &n.Spec.Unschedulable)
				}
			case status && m.Is("allocatable"):
				n.Status.Allocatable, err = resourceList(m.Value)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// resourceList decodes a JSON object of quantities as decoding it into a
// v1.ResourceList does: each value goes to Quantity.UnmarshalJSON, null
// included, and the last of a name given twice wins.
func resourceList(data []byte) (v1.ResourceList, error) {
	fields := jsonscan.Fields(data, make([]jsonscan.Field, 0, 8))
	l := make(v1.ResourceList, len(fields))
	for _, f := range fields {
		var q resource.Quantity
		if err := q.UnmarshalJSON(f.Value); err != nil {
			return nil, err
		}
		l[v1.ResourceName(jsonKey(f.Key))] = q
	}
	return l, nil
}

// stringMap decodes a JSON object of strings, as decoding it into a
// map[string]string does (a null value is "").
func stringMap(data []byte) (map[string]string, error) {
	fields := jsonscan.Fields(data, make([]jsonscan.Field, 0, 16))
	m := make(map[string]string, len(fields))
	for _, f := range fields {
		if string(f.Value) == "null" {
			m[jsonKey(f.Key)] = ""
			continue
		}
		v, err := jsonString(f.Value)
		if err != nil {
			return nil, err
		}
		m[jsonKey(f.Key)] = v
	}
	return m, nil
}

// NewRuntimeClass decodes a RuntimeClass object, with an issue for each
// value of the wrong type.
func NewRuntimeClass(obj *loader.Object) (*RuntimeClass, []*DecodeIssue) {
	rc := &RuntimeClass{Object: obj}
	var issues []*DecodeIssue
	if err := decodeAt(obj, "", nil, &rc.RuntimeClass, viewSchemas().runtimeClass); err != nil {
		issues = appendIssues(issues, obj, "", err)
	}
	return rc, issues
}

// IsNode reports whether obj is a core/v1 Node.
func IsNode(obj *loader.Object) bool { return obj.Kind == "Node" && obj.APIVersion == "v1" }

// IsRuntimeClass reports whether obj is a node.k8s.io RuntimeClass.
func IsRuntimeClass(obj *loader.Object) bool {
	return obj.Kind == "RuntimeClass" && strings.HasPrefix(obj.APIVersion, "node.k8s.io/")
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

// TaintList is a list of taints as a definition writes it, for the
// validation rules: they check it with the rules the API server applies to
// Node taints, at the taints' own lines (Path.Index(i); kOps strings
// included, whose key, value and effect findings point at the string).
type TaintList struct {
	Object *loader.Object
	Path   *field.Path
	Taints []v1.Taint
}
