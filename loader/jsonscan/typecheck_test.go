package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// TestCheckJSON: every value of the wrong type is found, with its path in
// field.Path form and what was expected; values that fit are not.
func TestCheckJSON(t *testing.T) {
	s := SchemaOf(reflect.TypeFor[appsv1.Deployment]())
	tests := []struct {
		name, json, skip string
		want             []string
	}{
		{"clean", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"}},"spec":{"replicas":2,"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"template":{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"500m","memory":1024}}}],"tolerations":[{"key":"k","tolerationSeconds":-5}]}}}}`, "", nil},
		{"nulls fit", `{"metadata":null,"spec":{"replicas":null,"template":{"spec":{"containers":[null],"tolerations":null}}}}`, "", nil},
		{"unknown and other-case fields ignored", `{"Spec":{"replicas":"x"},"spec":{"Replicas":"x","bogus":[1]}}`, "", nil},
		{"several", `{"metadata":{"labels":{"a.b/c":1}},"spec":{"replicas":true,"paused":"yes","template":{"spec":{"containers":"x","tolerations":[{"key":1},{"tolerationSeconds":1.5}],"volumes":[{"name":"v","fc":{"lun":"abc"}}]}}}}`, "", []string{
			`metadata.labels[a.b/c]: expected string, got number 1 (quote the value)`,
			`spec.replicas: expected integer, got boolean true`,
			`spec.paused: expected boolean, got string "yes"`,
			`spec.template.spec.containers: expected list, got string "x"`,
			`spec.template.spec.tolerations[0].key: expected string, got number 1 (quote the value)`,
			`spec.template.spec.tolerations[1].tolerationSeconds: expected integer, got number 1.5`,
			`spec.template.spec.volumes[0].fc.lun: expected integer, got string "abc"`,
		}},
		{"range and quotes", `{"spec":{"replicas":2147483648,"minReadySeconds":"5","template":{"spec":{"hostNetwork":"true"}}}}`, "", []string{
			`spec.replicas: expected integer (int32), got number 2147483648 (out of range)`,
			`spec.minReadySeconds: expected integer, got string "5" (remove the quotes)`,
			`spec.template.spec.hostNetwork: expected boolean, got string "true" (remove the quotes)`,
		}},
		{"self-decoding types", `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":true}},"template":{"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}}}}`, "", []string{
			`spec.strategy.rollingUpdate.maxSurge: expected integer or string, got boolean true`,
			`spec.template.spec.containers[0].resources.requests[cpu]: expected quantity (such as 500m or 2Gi), got string "lots"`,
		}},
		{"wrong container kind", `{"spec":{"template":[],"selector":"app=x"}}`, "", []string{
			`spec.template: expected object, got list`,
			`spec.selector: expected object, got string "app=x"`,
		}},
		{"skip", `{"spec":{"replicas":"x","template":{"spec":{"containers":"x"},"metadata":{"name":1}}}}`, "spec.template.spec", []string{
			`spec.replicas: expected integer, got string "x"`,
			`spec.template.metadata.name: expected string, got number 1 (quote the value)`,
		}},
		{"escaped key", `{"spec":{"r\u0065plicas":"x"}}`, "", []string{`spec.replicas: expected integer, got string "x"`}},
		{"long value", `{"spec":{"replicas":"` + strings.Repeat("x", 100) + `"}}`, "", []string{`spec.replicas: expected integer, got string "` + strings.Repeat("x", 36) + `…"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			skip, err := ParseFieldPath(tt.skip)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range Check([]byte(tt.json), s, "", skip) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			// With nothing skipped, the check and decoding agree on
			// whether the JSON fits.
			if tt.skip == "" {
				var d appsv1.Deployment
				if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(tt.json), &d); (err != nil) != (len(tt.want) > 0) {
					t.Errorf("decoding: %v; check found %d", err, len(got))
				}
			}
		})
	}
}

// FuzzCheckJSON holds the check to encoding/json's verdict (through
// sigs.k8s.io/json, as kubectl decodes): JSON that decodes into a pod spec
// or a Deployment has no value of the wrong type, and JSON that does not
// has at least one. A false alarm here would be a parse-error on a
// manifest the API server accepts.
func FuzzCheckJSON(f *testing.F) {
	for _, seed := range []string{
		`{"containers":[{"name":"a","ports":[{"containerPort":80}]}],"tolerations":[{"key":"k","tolerationSeconds":5}]}`,
		`{"containers":"x","priority":"high","volumes":[{"fc":{"lun":"abc"}}]}`,
		`{"spec":{"replicas":true,"strategy":{"rollingUpdate":{"maxSurge":"25%"}}}}`,
		`{"overhead":{"cpu":"1"},"nodeSelector":{"a":1},"securityContext":{"runAsUser":-1}}`,
		`{"metadata":{"labels":null,"annotations":{"a":"b"}},"spec":{"template":{"spec":{"activeDeadlineSeconds":1e3}}}}`,
	} {
		f.Add([]byte(seed))
	}
	pod := SchemaOf(reflect.TypeFor[v1.PodSpec]())
	deploy := SchemaOf(reflect.TypeFor[appsv1.Deployment]())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 || !json.Valid(data) {
			return
		}
		var b bytes.Buffer
		if json.Compact(&b, data) != nil {
			return
		}
		data = b.Bytes()
		var spec v1.PodSpec
		errPod := kjson.UnmarshalCaseSensitivePreserveInts(data, &spec)
		if found := Check(data, pod, "", FieldPath{}); (errPod != nil) != (len(found) > 0) {
			t.Fatalf("pod spec %s: decoding says %v, check found %v", data, errPod, found)
		}
		var d appsv1.Deployment
		errD := kjson.UnmarshalCaseSensitivePreserveInts(data, &d)
		if found := Check(data, deploy, "", FieldPath{}); (errD != nil) != (len(found) > 0) {
			t.Fatalf("deployment %s: decoding says %v, check found %v", data, errD, found)
		}
	})
}

// TestFitsInt holds fitsInt to strconv, which encoding/json decodes
// integers with.
func TestFitsInt(t *testing.T) {
	for _, lit := range []string{"0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999999", "1.5", "1e3", "-", ""} {
		for _, bits := range []int{8, 16, 32, 64} {
			_, errI := strconv.ParseInt(lit, 10, bits)
			_, errU := strconv.ParseUint(lit, 10, bits)
			if got := fitsInt([]byte(lit), false, bits); got != (errI == nil) {
				t.Errorf("fitsInt(%q, int%d) = %v", lit, bits, got)
			}
			if got := fitsInt([]byte(lit), true, bits); got != (errU == nil) {
				t.Errorf("fitsInt(%q, uint%d) = %v", lit, bits, got)
			}
		}
	}
}

type nested struct {
	Next  *nested `json:"next"`
	Value int     `json:"value"`
}

// TestCheckDeep: paths deeper than the walk's fixed steps are whole, and
// a recursive type is checked to any depth.
func TestCheckDeep(t *testing.T) {
	const depth = 40
	data := strings.Repeat(`{"next":`, depth) + `{"value":"x"}` + strings.Repeat(`}`, depth)
	errs := Check([]byte(data), SchemaOf(reflect.TypeFor[nested]()), "", FieldPath{})
	want := strings.TrimPrefix(strings.Repeat(".next", depth), ".") + ".value"
	if len(errs) != 1 || errs[0].Path != want {
		t.Fatalf("got %v, want one error at %s", errs, want)
	}
}

// TestCheckAllocs: checking an object that fits allocates nothing, since
// every workload is checked this way on the common path.
func TestCheckAllocs(t *testing.T) {
	s := SchemaOf(reflect.TypeFor[appsv1.Deployment]())
	data := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"app":"d","tier":"web"},"annotations":{"a":"b"}},"spec":{"replicas":3,"revisionHistoryLimit":5,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c"}]}}}}`)
	skip, err := ParseFieldPath("spec.template.spec")
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { Check(data, s, "", skip) }); n != 0 {
		t.Errorf("%v allocations per check, want none", n)
	}
}
