package k8s

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	kjson "sigs.k8s.io/json"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

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
