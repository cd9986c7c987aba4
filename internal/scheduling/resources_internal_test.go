package scheduling

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/taintlint/taintlint/k8s"
)

// TestFitsAllMatchesFits: the allocation-free check says yes exactly when
// fits finds no shortfall.
func TestFitsAllMatchesFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() int64 { return []int64{0, 1, 2, 500, 1000}[rng.IntN(5)] }
	for range 20000 {
		req := &resources{milliCPU: pick(), memory: pick(), ephemeral: pick(), pods: 1}
		alloc := &resources{milliCPU: pick(), memory: pick(), ephemeral: pick(), pods: pick()}
		if rng.IntN(3) == 0 {
			req.scalar = map[v1.ResourceName]int64{"nvidia.com/gpu": pick()}
		}
		if rng.IntN(2) == 0 {
			alloc.scalar = map[v1.ResourceName]int64{"nvidia.com/gpu": pick()}
		}
		if got, want := fitsAll(req, alloc), len(fits(req, alloc)) == 0; got != want {
			t.Fatalf("req %+v alloc %+v: fitsAll %v, fits %v", req, alloc, got, fits(req, alloc))
		}
	}
}

// TestDefaultContainers: requests are defaulted from limits where a limit
// is not requested; containers that need no defaulting come back as they
// are, and the requests equal those of the defaulting done on a copy.
func TestDefaultContainers(t *testing.T) {
	q := resource.MustParse
	rl := func(kv ...string) v1.ResourceList {
		out := v1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			out[v1.ResourceName(kv[i])] = q(kv[i+1])
		}
		return out
	}
	tests := []struct {
		name string
		cs   []v1.Container
		same bool
		want []v1.ResourceList
	}{
		{"none", nil, true, nil},
		{"no limits", []v1.Container{{Resources: v1.ResourceRequirements{Requests: rl("cpu", "1")}}}, true, []v1.ResourceList{rl("cpu", "1")}},
		{"limits requested", []v1.Container{{Resources: v1.ResourceRequirements{Requests: rl("cpu", "1", "memory", "1Gi"), Limits: rl("cpu", "2")}}}, true, []v1.ResourceList{rl("cpu", "1", "memory", "1Gi")}},
		{"limit not requested", []v1.Container{{Resources: v1.ResourceRequirements{Requests: rl("cpu", "1")}}, {Resources: v1.ResourceRequirements{Requests: rl("cpu", "1"), Limits: rl("cpu", "2", "memory", "2Gi")}}}, false, []v1.ResourceList{rl("cpu", "1"), rl("cpu", "1", "memory", "2Gi")}},
		{"limits only", []v1.Container{{Resources: v1.ResourceRequirements{Limits: rl("nvidia.com/gpu", "1")}}}, false, []v1.ResourceList{rl("nvidia.com/gpu", "1")}},
	}
	for _, tt := range tests {
		got := defaultContainers(tt.cs)
		if same := len(got) > 0 && &got[0] == &tt.cs[0] || len(got) == 0; same != tt.same {
			t.Errorf("%s: returned the containers as they are: %v, want %v", tt.name, same, tt.same)
		}
		for i := range got {
			if !equality.Semantic.DeepEqual(got[i].Resources.Requests, tt.want[i]) {
				t.Errorf("%s: container %d requests %v, want %v", tt.name, i, got[i].Resources.Requests, tt.want[i])
			}
		}
	}
}

// TestRequestsClassesShareRequests: workloads decoded by one Interner
// share a requests class exactly when their containers' resources and
// restart policies are written alike, and the requests shared by class
// (requestsTable) are those PodRequests gives each workload alone, with
// or without a RuntimeClass's overhead.
func TestRequestsClassesShareRequests(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	resources := []string{
		``,
		`resources: null`,
		`resources: {}`,
		`resources: {requests: {cpu: 100m}}`,
		`resources: {requests: {cpu: "0.1"}}`,
		`resources: {limits: {cpu: "1", memory: 1Gi}}`,
		`resources: {requests: {memory: 512Mi}, limits: {cpu: "2", nvidia.com/gpu: "1"}}`,
	}
	restart := []string{``, `restartPolicy: Always`, `restartPolicy: OnFailure`}
	container := func(name string) string {
		c := "{name: " + name
		for _, s := range []string{resources[rng.IntN(len(resources))], restart[rng.IntN(len(restart))]} {
			if s != "" {
				c += ", " + s
			}
		}
		return c + "}"
	}
	list := func(prefix string, n int) string {
		var cs []string
		for i := range n {
			cs = append(cs, container(prefix+strconv.Itoa(i)))
		}
		return "[" + strings.Join(cs, ", ") + "]"
	}
	shared := k8s.NewInterner()
	rc := &k8s.RuntimeClass{}
	rc.RuntimeClass.Overhead = &nodev1.Overhead{PodFixed: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")}}
	var table requestsTable
	byClass := map[*k8s.RequestsClass]string{}
	for range 3000 {
		spec := "containers: " + list("c", 1+rng.IntN(2))
		if rng.IntN(3) == 0 {
			spec += "\ninitContainers: " + list("i", 1+rng.IntN(2))
		}
		switch rng.IntN(8) {
		case 0:
			spec += "\noverhead: {cpu: 10m}"
		case 1:
			spec += "\nresources: {limits: {cpu: \"4\"}}"
		}
		w, issues := shared.Workload(object(t, "apps/v1", "Deployment", spec))
		if len(issues) > 0 {
			t.Fatalf("%s: %s", spec, issues[0].Msg)
		}
		hasPodLevel := strings.Contains(spec, "overhead:") || strings.Contains(spec, "\nresources:")
		if hasPodLevel != (w.Requests == nil) {
			t.Fatalf("%s: class %p", spec, w.Requests)
		}
		// What PodRequests reads, written out: equal for one class.
		var reads []string
		for _, cs := range [][]v1.Container{w.Spec.Containers, w.Spec.InitContainers} {
			for _, c := range cs {
				reads = append(reads, fmt.Sprint(c.Resources, c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways, c.RestartPolicy != nil))
			}
			reads = append(reads, "|")
		}
		if w.Requests != nil {
			if prev, ok := byClass[w.Requests]; ok && prev != strings.Join(reads, " ") {
				t.Fatalf("one class for\n%s\nand\n%s", prev, strings.Join(reads, " "))
			}
			byClass[w.Requests] = strings.Join(reads, " ")
		}
		for _, with := range []*k8s.RuntimeClass{nil, rc} {
			var overhead v1.ResourceList
			if with != nil {
				overhead = with.RuntimeClass.Overhead.PodFixed
			}
			got, want := table.podRequests(w, with), PodRequests(&w.Spec, overhead)
			if !equality.Semantic.DeepEqual(got.list, want) || !reflect.DeepEqual(got.res, newResources(want)) {
				t.Fatalf("%s (overhead %v): shared %v %+v, alone %v", spec, with != nil, got.list, got.res, want)
			}
		}
	}
	// Written alike but for the containers' names: one class.
	a, _ := shared.Workload(object(t, "apps/v1", "Deployment", "containers: [{name: a, resources: {limits: {cpu: \"1\"}}}]"))
	b, _ := shared.Workload(object(t, "apps/v1", "Deployment", "containers: [{name: b, resources: {limits: {cpu: \"1\"}}}]"))
	if a.Requests == nil || a.Requests != b.Requests {
		t.Errorf("classes %p and %p: containers written alike should share one", a.Requests, b.Requests)
	}
}
