package pools_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/taintlint/taintlint/internal/catalog"
	"github.com/taintlint/taintlint/internal/pools"
)

// karpenterPool is an AWS NodePool with these requirements (YAML flow
// sequence items).
func karpenterPool(reqs ...string) string {
	return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [" + strings.Join(reqs, ", ") + "]\n"
}

// TestSetResources: pools take the most any instance type they allow
// offers, the figures worked out by hand from the catalogue's rows and
// the reservation model of docs/inventory.md (cpu: 6% of the first core,
// 1% of the second, 0.5% of the next two, 0.25% of the rest on AWS, AKS's
// table on Azure; memory: 255Mi + 100Mi on AWS, 64Mi more on arm64,
// 50 MB + 100Mi on Azure); and say why when the types are unknown.
func TestSetResources(t *testing.T) {
	loaded, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	cat := pools.NewCatalog(loaded)
	tests := []struct {
		name, yaml    string
		cpu, memory   string // "" when unknown
		gpu           int64  // -1: unknown
		unknown       string // part of UnknownResources
		largestMemory string
	}{
		{name: "one Karpenter type", yaml: karpenterPool("{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}"),
			cpu: "1930m", memory: "7837Mi", largestMemory: "m5.large"},
		{name: "deprecated key, arm64", yaml: karpenterPool("{key: beta.kubernetes.io/instance-type, operator: In, values: [a1.large]}"),
			cpu: "1930m", memory: "3677Mi", largestMemory: "a1.large"},
		{name: "GPU types only", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ['0']}"),
			cpu: "191450m", memory: "2096797Mi", gpu: 8},
		{name: "category and arch: g5g", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-category, operator: In, values: [g]}", "{key: kubernetes.io/arch, operator: In, values: [arm64]}"),
			cpu: "63770m", memory: "130653Mi", gpu: 2, largestMemory: "g5g.16xlarge"},
		{name: "c, m, r of generation 3 and later: no GPU", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}", "{key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ['2']}"),
			cpu: "382970m", gpu: 0},
		{name: "no GPU count: non-GPU types", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-gpu-count, operator: DoesNotExist}", "{key: karpenter.k8s.aws/instance-family, operator: In, values: [p3, m5]}"),
			cpu: "95690m", gpu: 0},
		{name: "NotIn keeps types without GPUs", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-gpu-count, operator: NotIn, values: ['1']}", "{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}"),
			cpu: "95690m", gpu: 0},
		{name: "size and cpu bounds", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-family, operator: In, values: [p3]}", "{key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ['9']}"),
			cpu: "7910m", memory: "62109Mi", gpu: 1, largestMemory: "p3.2xlarge"},
		{name: "fractional GPUs the tables count as 0: GPUs unknown", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-family, operator: In, values: [g6f, m5]}"),
			cpu: "95690m", gpu: -1},
		{name: "Azure N series counted as 0: GPUs unknown", yaml: "apiVersion: kops.k8s.io/v1alpha2\nkind: InstanceGroup\nmetadata: {name: nodes}\nspec: {role: Node, machineType: Standard_NG8ads_V620_v1}\n",
			cpu: "7820m", gpu: -1},
		{name: "an unknown Karpenter type", yaml: karpenterPool("{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m99.huge]}"),
			unknown: "instance type m99.huge is not in the catalogue"},
		{name: "no type meets the requirements", yaml: karpenterPool("{key: karpenter.k8s.aws/instance-family, operator: In, values: [zz9]}"),
			unknown: "no instance type of the catalogue meets"},
		{name: "another provider", yaml: "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}\n",
			unknown: "only the instance types of Karpenter's AWS provider"},
		{name: "eksctl", yaml: "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\nnodeGroups:\n- {name: gpu, instanceType: p3.2xlarge}\n",
			cpu: "7910m", memory: "62109Mi", gpu: 1, largestMemory: "p3.2xlarge"},
		{name: "eksctl, no type", yaml: "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\nmanagedNodeGroups:\n- {name: ng}\n",
			unknown: "names no instance type"},
		{name: "kOps, Azure", yaml: "apiVersion: kops.k8s.io/v1alpha2\nkind: InstanceGroup\nmetadata: {name: nodes}\nspec: {role: Node, machineType: Standard_D4s_v3}\n",
			cpu: "3860m", memory: "17025011584", largestMemory: "Standard_D4s_v3"},
		{name: "Cluster API, AzureMachineTemplate", yaml: "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment\nmetadata: {name: md}\nspec:\n  template:\n    spec:\n      infrastructureRef: {kind: AzureMachineTemplate, name: gpu}\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureMachineTemplate\nmetadata: {name: gpu}\nspec: {template: {spec: {vmSize: Standard_NC6s_v3}}}\n",
			cpu: "5840m", gpu: 1, largestMemory: "Standard_NC6s_v3"},
		{name: "Cluster API, AWSMachineTemplate unknown", yaml: "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment\nmetadata: {name: md}\nspec:\n  template:\n    spec:\n      infrastructureRef: {kind: AWSMachineTemplate, name: t}\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta2\nkind: AWSMachineTemplate\nmetadata: {name: t}\nspec: {template: {spec: {instanceType: m99.huge}}}\n",
			unknown: "instance type m99.huge is not in the catalogue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := read(t, tt.yaml)
			if len(r.Pools) != 1 {
				t.Fatalf("%d pools, want 1", len(r.Pools))
			}
			p := r.Pools[0]
			p.SetResources(cat)
			if tt.unknown != "" {
				if p.Resources != nil || !strings.Contains(p.UnknownResources, tt.unknown) {
					t.Fatalf("resources %+v, unknown %q; want unknown %q", p.Resources, p.UnknownResources, tt.unknown)
				}
				return
			}
			if p.Resources == nil {
				t.Fatalf("resources unknown: %s", p.UnknownResources)
			}
			a := p.Resources.Allocatable
			check := func(name v1.ResourceName, want string) {
				if want == "" {
					return
				}
				got := a[name]
				if w := resource.MustParse(want); got.Cmp(w) != 0 {
					t.Errorf("%s = %s, want %s", name, got.String(), w.String())
				}
			}
			check(v1.ResourceCPU, tt.cpu)
			check(v1.ResourceMemory, tt.memory)
			got, listed := a[catalog.ResourceGPU]
			switch {
			case tt.gpu < 0 && listed:
				t.Errorf("GPUs = %s, want unknown", got.String())
			case tt.gpu >= 0 && (!listed || got.Value() != tt.gpu):
				t.Errorf("GPUs = %s (listed %t), want %d", got.String(), listed, tt.gpu)
			}
			// No GPU at all: no AMD GPU either; else AMD GPUs are unknown.
			amd, amdListed := a[catalog.ResourceAMDGPU]
			if want := tt.gpu == 0; amdListed != want || amdListed && !amd.IsZero() {
				t.Errorf("amd.com/gpu = %s (listed %t), want listed 0: %t", amd.String(), amdListed, want)
			}
			if tt.largestMemory != "" && p.Resources.Largest[1] != tt.largestMemory {
				t.Errorf("largest memory from %s, want %s", p.Resources.Largest[1], tt.largestMemory)
			}
		})
	}
}
