package scheduling

import (
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
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
