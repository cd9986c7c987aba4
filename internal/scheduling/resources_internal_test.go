package scheduling

import (
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
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
