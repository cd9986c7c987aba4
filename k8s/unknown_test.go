package k8s

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"

	"github.com/taintlint/taintlint/loader"
)

func TestUnknownFields(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string // path, name, pod spec path
		known     string   // a member Known must hold for the first
	}{
		{
			name: "toleration under a container",
			doc: `apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      containers:
      - name: a
        tolerations: []`,
			want:  []string{"spec.template.spec.containers[0].tolerations", "tolerations", "spec.template.spec"},
			known: "imagePullPolicy",
		},
		{
			name: "beside the template and in the pod's metadata, in document order",
			doc: `apiVersion: batch/v1
kind: CronJob
metadata: {name: c, nodeSelector: {}}
spec:
  jobTemplate:
    spec:
      tolerations: []
      template: {spec: {containers: [{name: a}]}}`,
			want:  []string{"metadata.nodeSelector", "nodeSelector", "spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.tolerations", "tolerations", "spec.jobTemplate.spec.template.spec"},
			known: "annotations",
		},
		{
			name: "below a map's value and a list in a list",
			doc: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: k, operator: In, value: [a]}
  containers: [{name: a, resources: {requests: {cpu: 1}}}]`,
			want:  []string{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].value", "value", "spec"},
			known: "values",
		},
		{
			name: "a Node has no pod spec",
			doc:  "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nspec: {taint: []}",
			want: []string{"spec.taint", "taint", "<nil>"},
		},
		{name: "a custom resource is never judged", doc: "apiVersion: example.com/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {tolerations: []}"},
		{name: "an older API version is not judged", doc: "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: x}\nspec: {templateGeneration: 1}"},
		{name: "a wrong type hides unknown fields, as the API server's decoding does", doc: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: x, toleration: []}"},
		{name: "null and empty values of known members", doc: "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d, creationTimestamp: null}\nspec: {template: {metadata: {}, spec: {affinity: null, containers: [{name: a}]}}}\nstatus: {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := loader.Parse("x.yaml", []byte(tt.doc)).Objects
			if len(objs) != 1 {
				t.Fatalf("%d objects", len(objs))
			}
			var got []string
			us := UnknownFields(objs[0])
			for _, u := range us {
				got = append(got, u.Path.String(), u.Name, u.PodSpec.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tt.known != "" && len(us) > 0 && !slices.Contains(us[0].Known, tt.known) {
				t.Errorf("Known = %q, lacks %q", us[0].Known, tt.known)
			}
		})
	}
}

// strictFixtures calls fn with each fixture object of a built-in kind
// whose values all have their types, with its type, its JSON and the
// errors strict decoding reports on it.
func strictFixtures(t *testing.T, fn func(f string, obj *loader.Object, typ reflect.Type, js []byte, strict []error)) {
	t.Helper()
	for _, f := range fixtureFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range loader.Parse(f, data).Objects {
			typ := builtinType(obj)
			js, err := obj.JSON()
			if typ == nil || err != nil {
				continue
			}
			strict, err := kjson.UnmarshalStrict(js, reflect.New(typ).Interface(), kjson.DisallowUnknownFields)
			if err != nil {
				continue
			}
			fn(f, obj, typ, js, strict)
		}
	}
}

// TestUnknownFieldsAreStrictErrors holds UnknownFields to the strict
// decoder on every fixture: one field per strict error, at the path the
// API server's error names, none lost to resolving the path.
func TestUnknownFieldsAreStrictErrors(t *testing.T) {
	n := 0
	strictFixtures(t, func(f string, obj *loader.Object, _ reflect.Type, _ []byte, strict []error) {
		var want, got []string
		for _, e := range strict {
			want = append(want, e.(interface{ FieldPath() string }).FieldPath())
		}
		for _, u := range UnknownFields(obj) {
			got = append(got, u.Path.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %s/%s: got %q, want %q", f, obj.Kind, obj.Name, got, want)
		}
		n += len(got)
	})
	if n == 0 {
		t.Error("no fixture holds an unknown field")
	}
}

// TestUnknownInIsStrict holds the quick look UnknownFields takes first
// to the strict decoder on every fixture object whose values all have
// their types: it finds an unknown member exactly when strict decoding
// reports one.
func TestUnknownInIsStrict(t *testing.T) {
	n := 0
	strictFixtures(t, func(f string, obj *loader.Object, typ reflect.Type, js []byte, strict []error) {
		n++
		if got := strictSchemas()[typ].HasUnknown(js); got != (len(strict) > 0) {
			t.Errorf("%s %s/%s: HasUnknown %v, strict errors %q", f, obj.Kind, obj.Name, got, strict)
		}
	})
	if n < 100 {
		t.Errorf("only %d fixture objects of built-in kinds", n)
	}
}

// TestNoStructMaps holds resolveUnknown's premise: no map of the types
// builtinKinds lists holds structs that the strict decoder walks into, so
// no unknown member's path passes through a map key (whose dots would be
// read as steps).
func TestNoStructMaps(t *testing.T) {
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, where string)
	walk = func(typ reflect.Type, where string) {
		ty := deref(typ)
		if seen[ty] || reflect.PointerTo(ty).Implements(unmarshaler) {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Struct:
			eachJSONField(ty, func(name string, ft reflect.Type) bool {
				walk(ft, where+"."+name)
				return true
			})
		case reflect.Slice, reflect.Array:
			walk(ty.Elem(), where+"[]")
		case reflect.Map:
			e := deref(ty.Elem())
			if e.Kind() == reflect.Struct && !reflect.PointerTo(e).Implements(unmarshaler) {
				t.Errorf("%s: a map of %s", where, e)
			}
			walk(e, where+"[key]")
		}
	}
	for _, k := range builtinKinds {
		walk(k.t, k.name)
	}
}

// FuzzUnknownIn holds Schema.HasUnknown to the strict decoder on Pods made from
// arbitrary specs.
func FuzzUnknownIn(f *testing.F) {
	for _, s := range []string{"{containers: [{name: a, tolerations: []}]}", "{toleration: []}", "{affinity: {nodeAffinity: {x: 1}}}", "{overhead: {cpu: 1}, volumes: [{name: v, csi: {driver: d, volumeAttributes: {a: b}}}]}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		for _, obj := range loader.Parse("x.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: "+spec+"\n")).Objects {
			js, err := obj.JSON()
			if err != nil || obj.Kind != "Pod" {
				continue
			}
			typ := reflect.TypeFor[v1.Pod]()
			strict, err := kjson.UnmarshalStrict(js, reflect.New(typ).Interface(), kjson.DisallowUnknownFields)
			if err != nil {
				continue
			}
			if got := strictSchemas()[typ].HasUnknown(js); got != (len(strict) > 0) {
				t.Errorf("%s: HasUnknown %v, strict errors %q", js, got, strict)
			}
		}
	})
}
