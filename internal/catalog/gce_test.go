package catalog

import "testing"

// TestGCEType: Compute Engine types derived from their names, the figures
// taken from Google's machine family pages by hand.
func TestGCEType(t *testing.T) {
	tests := []struct {
		name            string
		vcpu, mib, gpus int64
		arch            string
	}{
		{"n2-standard-8", 8, 32768, 0, "amd64"},
		{"e2-medium", 2, 4096, 0, "amd64"},
		{"e2-highcpu-16", 16, 16384, 0, "amd64"},
		{"n1-standard-4", 4, 15360, 0, "amd64"},
		{"n1-highmem-2", 2, 13312, 0, "amd64"},
		{"c4-highmem-8", 8, 63488, 0, "amd64"},
		{"n2-custom-6-20480", 6, 20480, 0, "amd64"},
		{"n2-custom-6-20480-ext", 6, 20480, 0, "amd64"},
		{"custom-4-3840", 4, 3840, 0, "amd64"},
		{"g2-standard-24", 24, 98304, 2, "amd64"},
		{"a2-highgpu-1g", 12, 87040, 1, "amd64"},
		{"t2a-standard-4", 4, 16384, 0, "arm64"},
	}
	for _, tt := range tests {
		got, ok := gceType(tt.name)
		if !ok || got.VCPU != tt.vcpu || got.MemoryMiB != tt.mib || got.GPU != tt.gpus || got.Arch != tt.arch {
			t.Errorf("gceType(%s) = %+v, %v; want %d vCPU, %d MiB, %d GPUs, %s", tt.name, got, ok, tt.vcpu, tt.mib, tt.gpus, tt.arch)
		}
	}
	for _, name := range []string{"n2-standard-x", "n2-weird-4", "n2-standard-08", "n2-standard--4", "m1-ultramem-40", "n2-custom-0-1024", "", "g2-standard-5"} {
		if got, ok := gceType(name); ok {
			t.Errorf("gceType(%q) = %+v, want unknown", name, got)
		}
	}
}

// TestGCEAllocatable: the least GKE or kOps reserves (cpu as EKS, the
// 100 MiB eviction threshold), and GPUs of N1 unknown (attached apart).
func TestGCEAllocatable(t *testing.T) {
	c := &Catalog{}
	n2, _ := c.Lookup(GCE, "n2-standard-8")
	a := n2.Allocatable()
	if cpu, mem := a.Cpu().MilliValue(), a.Memory().Value(); cpu != 7910 || mem != (32768-100)<<20 {
		t.Errorf("n2-standard-8 allocatable cpu %dm memory %d, want 7910m and %d", cpu, mem, (32768-100)<<20)
	}
	if q, ok := a[ResourceGPU]; !ok || !q.IsZero() {
		t.Errorf("n2-standard-8 GPUs %v (known %v), want a known 0", q, ok)
	}
	n1, _ := c.Lookup(GCE, "n1-standard-4")
	if _, ok := n1.Allocatable()[ResourceGPU]; ok {
		t.Error("n1-standard-4 GPUs known; N1 takes attached GPUs")
	}
}
