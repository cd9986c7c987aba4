package catalog

import (
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ResourceGPU is the resource a GPU of the catalogue is offered as: the
// tables count GPUs without their maker, and cluster-autoscaler offers
// every one of them as nvidia.com/gpu (cloudprovider/aws and azure,
// gpu.ResourceNvidiaGPU), as taintlint does.
const ResourceGPU v1.ResourceName = "nvidia.com/gpu"

// ResourceAMDGPU is the resource AMD GPUs are offered as (the AMD device
// plugin; Karpenter's AWS provider, v1.ResourceAMDGPU).
const ResourceAMDGPU v1.ResourceName = "amd.com/gpu"

// GPUKnown reports whether the table's GPU count can be trusted: it
// cannot when the count is 0 but the name is of a GPU family by the
// cloud's documented naming (AWS accelerated computing categories g, gr
// and p, whose fractional-GPU types g6f and gr6f the tables count as 0;
// Azure's N series, whose AMD V620 types NG the tables count as 0).
func (t InstanceType) GPUKnown() bool {
	if t.GPU > 0 {
		return true
	}
	switch t.Cloud {
	case AWS:
		switch t.Name[:len(t.Name)-len(strings.TrimLeft(t.Name, "abcdefghijklmnopqrstuvwxyz"))] {
		case "g", "gr", "p":
			return false
		}
	case Azure:
		return !strings.HasPrefix(t.Name, "Standard_N")
	case GCE:
		// N1 machines take GPUs attached beside the machine type
		// (guest_accelerator): their count is not the type's.
		return !strings.HasPrefix(t.Name, "n1-") && !strings.HasPrefix(t.Name, "custom-")
	}
	return true
}

// Types are a cloud's types, sorted by name.
func (c *Catalog) Types(cloud Cloud) []InstanceType {
	var out []InstanceType
	for _, t := range c.types {
		if t.Cloud == cloud {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Allocatable is what the kubelet of a node of this type leaves to pods,
// as the cloud's node images reserve it (docs/inventory.md, "Resources of
// pools", gives the sources): cpu and memory less kube-reserved and the
// hard eviction threshold, and the GPUs when GPUKnown. The share of kube-reserved memory
// that grows with the node's max pods is left out, and so is the memory
// the hypervisor keeps, because the catalogue knows neither: the figures
// are the most a node of the type can offer, so a pod that asks for more
// fits no node of it, while one just under may still not fit a real one.
func (t InstanceType) Allocatable() v1.ResourceList {
	milliCPU := t.VCPU * 1000
	memory := t.MemoryMiB << 20
	switch t.Cloud {
	case AWS:
		milliCPU -= eksReservedCPU(milliCPU)
		// Karpenter's memory(): Graviton (arm64) types keep 64 MiB of
		// CMA memory back; kubeReservedResources: 255Mi + 11Mi per pod
		// (pods counted 0 here); evictionThreshold: 100Mi.
		if t.Arch == "arm64" {
			memory -= 64 << 20
		}
		memory -= (255 + 100) << 20
	case Azure:
		milliCPU -= aksReservedCPU(t.VCPU)
		// AKS 1.29 and later: the lesser of 20 MB per max pod + 50 MB
		// (pods counted 0 here) and 25% of memory, and the
		// memory.available<100Mi eviction threshold.
		memory -= min(50_000_000, memory/4) + 100<<20
	case GCE:
		// GKE reserves cpu as EKS does and memory by its own table
		// (25% of the first 4 GiB ...); kOps on GCE by its own
		// settings. Only the cpu share and the memory.available<100Mi
		// eviction threshold are taken: the most either leaves, so that
		// a pod is never judged too large for a node that takes it.
		milliCPU -= eksReservedCPU(milliCPU)
		memory -= 100 << 20
	}
	rl := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(max(milliCPU, 0), resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(max(memory, 0), resource.BinarySI),
	}
	if t.GPUKnown() {
		rl[ResourceGPU] = *resource.NewQuantity(t.GPU, resource.DecimalSI)
	}
	return rl
}

// eksReservedCPU is kube-reserved cpu in millicores as the EKS node
// images and Karpenter's AWS provider reserve it
// (pkg/providers/instancetype/types.go kubeReservedResources): 6% of the
// first core, 1% of the second, 0.5% of the next two, 0.25% of the rest,
// each range truncated to whole millicores.
func eksReservedCPU(milliCPU int64) int64 {
	var reserved int64
	for _, r := range []struct {
		start, end int64
		share      float64
	}{{0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, 1 << 31, 0.0025}} {
		if milliCPU < r.start {
			break
		}
		span := r.end - r.start
		if milliCPU < r.end {
			span = milliCPU - r.start
		}
		reserved += int64(float64(span) * r.share)
	}
	return reserved
}

// aksReservedCPU is AKS's kube-reserved cpu in millicores (the table of
// "Node resource reservations in AKS": 60 for one core, 100 for two, 20
// more per core up to four, 10 more per core beyond).
func aksReservedCPU(cores int64) int64 {
	switch {
	case cores <= 0:
		return 0
	case cores == 1:
		return 60
	case cores <= 4:
		return 100 + 20*(cores-2)
	}
	return 140 + 10*(cores-4)
}
