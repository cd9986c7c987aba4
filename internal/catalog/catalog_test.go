package catalog_test

import (
	"testing"

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
