package k8s

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// builtinKinds are the built-in kinds taintlint reads, by
// apiVersion/kind, with their k8s.io/api types: the workload kinds, whose
// types Check judges, and Node and RuntimeClass. A table, never written.
var builtinKinds = []builtinKind{
	{"v1/Pod", reflect.TypeFor[v1.Pod](), true},
	{"v1/PodTemplate", reflect.TypeFor[v1.PodTemplate](), true},
	{"v1/ReplicationController", reflect.TypeFor[v1.ReplicationController](), true},
	{"apps/v1/Deployment", reflect.TypeFor[appsv1.Deployment](), true},
	{"apps/v1/ReplicaSet", reflect.TypeFor[appsv1.ReplicaSet](), true},
	{"apps/v1/StatefulSet", reflect.TypeFor[appsv1.StatefulSet](), true},
	{"apps/v1/DaemonSet", reflect.TypeFor[appsv1.DaemonSet](), true},
	{"batch/v1/Job", reflect.TypeFor[batchv1.Job](), true},
	{"batch/v1/CronJob", reflect.TypeFor[batchv1.CronJob](), true},
	{"v1/Node", reflect.TypeFor[v1.Node](), false},
	{"node.k8s.io/v1/RuntimeClass", reflect.TypeFor[nodev1.RuntimeClass](), false},
}

type builtinKind struct {
	name string
	t    reflect.Type
	pods bool // the kind carries a pod spec
}

// builtinType is the k8s.io/api type of obj's kind, or nil when taintlint
// does not know the kind's type (a custom resource, a kind it does not read).
func builtinType(obj *loader.Object) reflect.Type {
	name := obj.APIVersion + "/" + obj.Kind
	for _, k := range builtinKinds {
		if k.name == name {
			return k.t
		}
	}
	return nil
}

// PlacementFields are the pod spec fields that decide where a pod runs: a
// manifest that writes one at another level (under a container, beside a
// pod template) leaves the pod without it.
var PlacementFields = []string{"tolerations", "nodeSelector", "affinity", "topologySpreadConstraints", "priorityClassName", "runtimeClassName", "nodeName", "schedulerName"}

// UnknownField is a member of a built-in object that its Kubernetes type
// does not have: kubectl apply (strict field validation, its default)
// refuses the object, and an API server asked without strict validation
// (Helm, Argo CD, kubectl --validate=false) drops the member.
type UnknownField struct {
	// Path is where the member is written, in field.Path form; it is
	// also the path the API server's "unknown field" error names.
	Path *field.Path
	// Name is the member's name.
	Name string
	// Known are the members the type has where it is written, sorted.
	Known []string
	// PodSpec is where the object's pod spec is (Workload.SpecPath), or
	// nil for a kind without one.
	PodSpec *field.Path
}

// UnknownFields are the members of obj that its kind's k8s.io/api type
// does not have, found as the API server finds them: strict decoding
// (sigs.k8s.io/json, as apimachinery's serializer runs it) into the
// type, in the order it meets them. A kind whose type taintlint does not
// know (custom resources, any kind builtinKinds does not list) has none,
// and so has an object with a value of the wrong type: the API server
// refuses it for that first (parse-error) and reports no unknown field.
func UnknownFields(obj *loader.Object) []UnknownField {
	t := builtinType(obj)
	if t == nil {
		return nil
	}
	data, err := obj.JSON()
	if err != nil || !strictSchemas()[t].HasUnknown(data) {
		return nil // nearly every object: no member to look for
	}
	strict, err := kjson.UnmarshalStrict(data, reflect.New(t).Interface(), kjson.DisallowUnknownFields)
	if err != nil || len(strict) == 0 {
		return nil
	}
	var out []UnknownField
	for _, e := range strict {
		fe, ok := e.(interface{ FieldPath() string })
		if !ok {
			continue
		}
		if u, ok := resolveUnknown(t, fe.FieldPath()); ok {
			u.PodSpec = PodSpecPath(obj)
			out = append(out, u)
		}
	}
	return out
}

// strictSchemas are the Schemas of builtinKinds' types, made once by
// reflection and read only after: Schema.HasUnknown looks for a member
// they lack before a strict decode is paid for.
var strictSchemas = sync.OnceValue(func() map[reflect.Type]*jsonscan.Schema {
	out := map[reflect.Type]*jsonscan.Schema{}
	for _, k := range builtinKinds {
		out[k.t] = jsonscan.SchemaOf(k.t)
	}
	return out
})

// resolveUnknown follows the strict decoder's path (names joined by dots,
// list indexes in brackets) down t to the struct that lacks its last
// name, making the field.Path on the way. A map's key is one step whatever
// it holds: the types builtinKinds lists have no map whose values are
// structs (TestNoStructMaps), so an unknown member is never below one and
// a key's dots never split a path before the last step.
func resolveUnknown(t reflect.Type, path string) (UnknownField, bool) {
	var names []string
	var indexes [][]int // the list indexes after each name
	for len(path) > 0 {
		end := strings.IndexAny(path, ".[")
		if end < 0 {
			end = len(path)
		}
		names = append(names, path[:end])
		indexes = append(indexes, nil)
		path = path[end:]
		for strings.HasPrefix(path, "[") {
			close := strings.IndexByte(path, ']')
			if close < 0 {
				return UnknownField{}, false
			}
			i, err := strconv.Atoi(path[1:close])
			if err != nil {
				return UnknownField{}, false
			}
			indexes[len(indexes)-1] = append(indexes[len(indexes)-1], i)
			path = path[close+1:]
		}
		path = strings.TrimPrefix(path, ".")
	}
	if len(names) == 0 || len(indexes[len(names)-1]) > 0 {
		return UnknownField{}, false
	}
	var p *field.Path
	for i, name := range names {
		t = deref(t)
		if i == len(names)-1 {
			if t.Kind() != reflect.Struct {
				return UnknownField{}, false
			}
			return UnknownField{Path: child(p, name), Name: name, Known: jsonNames(t)}, true
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := jsonField(t, name)
			if !ok {
				return UnknownField{}, false
			}
			t, p = f, child(p, name)
		case reflect.Map:
			t, p = t.Elem(), p.Key(name)
		default:
			return UnknownField{}, false
		}
		for _, ix := range indexes[i] {
			t = deref(t)
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return UnknownField{}, false
			}
			t, p = t.Elem(), p.Index(ix)
		}
	}
	return UnknownField{}, false
}

func child(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonNames are the members encoding/json decodes into struct t, by JSON
// name (embedded structs without a name inlined, as metav1.TypeMeta is),
// sorted.
func jsonNames(t reflect.Type) []string {
	var out []string
	eachJSONField(t, func(name string, _ reflect.Type) bool {
		out = append(out, name)
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonField is the type of struct t's member name.
func jsonField(t reflect.Type, name string) (ft reflect.Type, ok bool) {
	eachJSONField(t, func(n string, f reflect.Type) bool {
		if n == name {
			ft, ok = f, true
		}
		return !ok
	})
	return ft, ok
}

// eachJSONField calls f with the JSON name and type of each member of
// struct t, inlined embedded structs' members included, while f returns
// true. The k8s.io/api types tag every member, so a tag's name is the
// member's name; an untagged exported field keeps its Go name, as
// encoding/json reads it.
func eachJSONField(t reflect.Type, f func(string, reflect.Type) bool) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		if name == "" && sf.Anonymous && deref(sf.Type).Kind() == reflect.Struct {
			if !eachJSONField(deref(sf.Type), f) {
				return false
			}
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if !f(name, sf.Type) {
			return false
		}
	}
	return true
}
