package catalog_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/taintlint/taintlint/internal/catalog"
)

// TestLoad: the generated tables parse, hold every type the upstream
// tables hold, and give the upstream figures (cluster-autoscaler's
// ec2_instance_types.go and azure_instance_types.go at 55c37cd5eb).
func TestLoad(t *testing.T) {
	c, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Len(catalog.AWS); n != 1108 {
		t.Errorf("AWS types: %d, want 1108", n)
	}
	if n := c.Len(catalog.Azure); n != 1370 {
		t.Errorf("Azure types: %d, want 1370", n)
	}
	for _, want := range []catalog.InstanceType{
		{Name: "m5.large", Cloud: catalog.AWS, VCPU: 2, MemoryMiB: 8192, Arch: "amd64"},
		{Name: "g5.xlarge", Cloud: catalog.AWS, VCPU: 4, MemoryMiB: 16384, GPU: 1, Arch: "amd64"},
		{Name: "p5.48xlarge", Cloud: catalog.AWS, VCPU: 192, MemoryMiB: 2097152, GPU: 8, Arch: "amd64"},
		{Name: "a1.2xlarge", Cloud: catalog.AWS, VCPU: 8, MemoryMiB: 16384, Arch: "arm64"},
		{Name: "Standard_A1_v2", Cloud: catalog.Azure, VCPU: 1, MemoryMiB: 2048, Arch: "amd64"},
	} {
		got, ok := c.Lookup(want.Cloud, want.Name)
		if !ok || got != want {
			t.Errorf("Lookup(%s, %s) = %+v, %v; want %+v", want.Cloud, want.Name, got, ok, want)
		}
	}
	if _, ok := c.Lookup(catalog.AWS, "Standard_A1_v2"); ok {
		t.Error("an Azure type found as AWS")
	}
}

// TestAllocatable: the reservation model of docs/inventory.md, figures
// worked out by hand. AWS cpu: 6% of the first core, 1% of the second,
// 0.5% of the next two, 0.25% of the rest; memory: 255Mi kube-reserved +
// 100Mi eviction, 64Mi more on arm64. Azure cpu: AKS's table; memory:
// the lesser of 50 MB and a quarter, + 100Mi eviction.
func TestAllocatable(t *testing.T) {
	c, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cloud             catalog.Cloud
		name, cpu, memory string
		gpu               int64
	}{
		{catalog.AWS, "m5.large", "1930m", "7837Mi", 0},         // 2000-60-10
		{catalog.AWS, "a1.large", "1930m", "3677Mi", 0},         // 4096-64-355
		{catalog.AWS, "p3.2xlarge", "7910m", "62109Mi", 1},      // 8000-60-10-10-10
		{catalog.AWS, "c7i.48xlarge", "191450m", "392861Mi", 0}, // 192000-60-10-10-470
		{catalog.Azure, "Standard_A1_v2", "940m", "1992626048", 0},
		{catalog.Azure, "Standard_D4s_v3", "3860m", "17025011584", 0},
		{catalog.Azure, "Standard_NC6s_v3", "5840m", "120104226688", 1},
		{catalog.AWS, "g6f.large", "1930m", "7837Mi", -1},                      // fractional L4: counted 0, unknown
		{catalog.Azure, "Standard_NG8ads_V620_v1", "7820m", "17025011584", -1}, // AMD V620: counted 0, unknown
	} {
		it, ok := c.Lookup(tt.cloud, tt.name)
		if !ok {
			t.Fatalf("%s not in the catalogue", tt.name)
		}
		a := it.Allocatable()
		cpu, mem := a[v1.ResourceCPU], a[v1.ResourceMemory]
		gpu, listed := a[catalog.ResourceGPU]
		if tt.gpu < 0 && listed || tt.gpu >= 0 && !listed {
			t.Errorf("%s: GPUs listed %t, want %t", tt.name, listed, tt.gpu >= 0)
		}
		if cpu.Cmp(resource.MustParse(tt.cpu)) != 0 || mem.Cmp(resource.MustParse(tt.memory)) != 0 || listed && gpu.Value() != tt.gpu {
			t.Errorf("%s: cpu %s, memory %d, GPUs %s; want %s, %s, %d", tt.name, cpu.String(), mem.Value(), gpu.String(), tt.cpu, tt.memory, tt.gpu)
		}
	}
}
