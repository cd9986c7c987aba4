package catalog

import (
	"strconv"
	"strings"
)

// GCE is Compute Engine. Its predefined machine types are not a table
// cluster-autoscaler ships (its GCE provider asks the API): they follow
// Google's documented naming scheme, SERIES-CLASS-VCPUS, with a fixed
// memory per vCPU for each series and class ("Machine families resource
// and comparison guide" and each series' page, cloud.google.com/compute/
// docs/machine-resource), and custom types SERIES-custom-VCPUS-MIB. So
// they are derived from the name here; a name outside the rules is not
// in the catalogue (its pool's resources stay unknown).
const GCE Cloud = "gce"

// gceMemoryPerVCPU is the memory per vCPU in MiB of each predefined
// series and class (GB in Google's pages are GiB).
var gceMemoryPerVCPU = map[string]int64{
	"e2-standard": 4096, "e2-highmem": 8192, "e2-highcpu": 1024,
	"n1-standard": 3840, "n1-highmem": 6656, "n1-highcpu": 921,
	"n2-standard": 4096, "n2-highmem": 8192, "n2-highcpu": 1024,
	"n2d-standard": 4096, "n2d-highmem": 8192, "n2d-highcpu": 1024,
	"n4-standard": 4096, "n4-highmem": 8192, "n4-highcpu": 2048,
	"c2-standard":  4096,
	"c2d-standard": 4096, "c2d-highmem": 8192, "c2d-highcpu": 2048,
	"c3-standard": 4096, "c3-highmem": 8192, "c3-highcpu": 2048,
	"c3d-standard": 4096, "c3d-highmem": 8192, "c3d-highcpu": 2048,
	"c4-standard": 3840, "c4-highmem": 7936, "c4-highcpu": 2048,
	"c4a-standard": 4096, "c4a-highmem": 8192, "c4a-highcpu": 2048,
	"t2d-standard": 4096, "t2a-standard": 4096,
}

// gceSharedCore are the shared-core types: vCPUs and MiB.
var gceSharedCore = map[string][2]int64{
	"e2-micro": {2, 1024}, "e2-small": {2, 2048}, "e2-medium": {2, 4096},
	"f1-micro": {1, 614}, "g1-small": {1, 1740},
}

// gceGPUTypes are the accelerator-optimized types, whose GPUs come with
// the machine: vCPUs, MiB and GPUs (A2: A100, A3: H100, G2: L4).
var gceGPUTypes = map[string][3]int64{
	"a2-highgpu-1g": {12, 87040, 1}, "a2-highgpu-2g": {24, 174080, 2},
	"a2-highgpu-4g": {48, 348160, 4}, "a2-highgpu-8g": {96, 696320, 8},
	"a2-megagpu-16g": {96, 1392640, 16},
	"a2-ultragpu-1g": {12, 174080, 1}, "a2-ultragpu-2g": {24, 348160, 2},
	"a2-ultragpu-4g": {48, 696320, 4}, "a2-ultragpu-8g": {96, 1392640, 8},
	"a3-highgpu-1g": {26, 239616, 1}, "a3-highgpu-2g": {52, 479232, 2},
	"a3-highgpu-4g": {104, 958464, 4}, "a3-highgpu-8g": {208, 1916928, 8},
	"g2-standard-4": {4, 16384, 1}, "g2-standard-8": {8, 32768, 1},
	"g2-standard-12": {12, 49152, 1}, "g2-standard-16": {16, 65536, 1},
	"g2-standard-24": {24, 98304, 2}, "g2-standard-32": {32, 131072, 1},
	"g2-standard-48": {48, 196608, 4}, "g2-standard-96": {96, 393216, 8},
}

// gceType derives a Compute Engine machine type from its name.
func gceType(name string) (InstanceType, bool) {
	t := InstanceType{Name: name, Cloud: GCE, Arch: "amd64"}
	if strings.HasPrefix(name, "t2a-") || strings.HasPrefix(name, "c4a-") {
		t.Arch = "arm64"
	}
	if g, ok := gceGPUTypes[name]; ok {
		t.VCPU, t.MemoryMiB, t.GPU = g[0], g[1], g[2]
		return t, true
	}
	if s, ok := gceSharedCore[name]; ok {
		t.VCPU, t.MemoryMiB = s[0], s[1]
		return t, true
	}
	parts := strings.Split(strings.TrimSuffix(name, "-ext"), "-")
	switch {
	case len(parts) == 3 && parts[0] == "custom": // N1's custom-VCPUS-MIB
		parts = append([]string{"n1"}, parts...)
		fallthrough
	case len(parts) == 4 && parts[1] == "custom":
		cpu, err1 := strconv.ParseInt(parts[2], 10, 64)
		mib, err2 := strconv.ParseInt(parts[3], 10, 64)
		if err1 != nil || err2 != nil || cpu <= 0 || mib <= 0 {
			return InstanceType{}, false
		}
		t.VCPU, t.MemoryMiB = cpu, mib
		return t, true
	case len(parts) == 3:
		per, ok := gceMemoryPerVCPU[parts[0]+"-"+parts[1]]
		cpu, err := strconv.ParseInt(parts[2], 10, 64)
		if !ok || err != nil || cpu <= 0 || strconv.FormatInt(cpu, 10) != parts[2] {
			return InstanceType{}, false
		}
		t.VCPU, t.MemoryMiB = cpu, cpu*per
		return t, true
	}
	return InstanceType{}, false
}
