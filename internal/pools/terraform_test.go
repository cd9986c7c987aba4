package pools_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/pools"
	"github.com/taintlint/taintlint/loader"
)

func readTF(files ...string) *pools.TerraformResult {
	var tf []loader.TerraformFile
	for i := 0; i+1 < len(files); i += 2 {
		tf = append(tf, loader.TerraformFile{Name: files[i], Data: []byte(files[i+1])})
	}
	return pools.ReadTerraform(tf)
}

// describeAll is every pool in one line each, then the notes.
func describeAll(r *pools.TerraformResult) string {
	var b strings.Builder
	for _, p := range r.Pools {
		b.WriteString(describe(p) + "\n")
	}
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	for _, e := range r.Errors {
		b.WriteString("error: " + e.Error() + "\n")
	}
	for _, is := range r.Issues {
		b.WriteString("issue: " + is.Path + ": " + is.Msg + "\n")
	}
	return b.String()
}

func TestReadTerraform(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"eks node group", []string{"infra/main.tf", `variable "types" { default = ["g5.xlarge"] }
locals { team = "ml" }
resource "aws_eks_node_group" "gpu" {
  node_group_name = "gpu"
  instance_types  = var.types
  ami_type        = "AL2023_ARM_64_NVIDIA"
  capacity_type   = "SPOT"
  labels = {
    team = local.team
  }
  taint {
    key    = "nvidia.com/gpu"
    effect = "NO_SCHEDULE"
  }
}
`}, `aws_eks_node_group.gpu label:team=ml@labels[team] label:node.kubernetes.io/instance-type=g5.xlarge@instance_types label:eks.amazonaws.com/nodegroup=gpu@node_group_name label:eks.amazonaws.com/capacityType=SPOT@capacity_type label:kubernetes.io/arch=arm64@ami_type label:kubernetes.io/os=linux@ami_type taint:nvidia.com/gpu:NoSchedule@taint[0] types:[g5.xlarge]
`},
		{"unknowns", []string{"infra/main.tf", `variable "name" {}
resource "aws_eks_node_group" "a" {
  node_group_name = var.name
  instance_types  = [data.aws_ec2_instance_type.x.id]
  labels          = { zone = upper(aws_subnet.a.availability_zone) }
}
resource "aws_eks_node_group" "b" {
  node_group_name = "b"
  labels          = jsondecode(file("labels.json"))
}
resource "aws_eks_node_group" "c" {
  for_each        = var.groups
  node_group_name = each.key
}
`}, `aws_eks_node_group.a label:eks.amazonaws.com/capacityType=ON_DEMAND@capacity_type req:zone Exists []@labels[zone] req:eks.amazonaws.com/nodegroup Exists []@node_group_name
aws_eks_node_group.b label:node.kubernetes.io/instance-type=t3.medium@instance_types label:eks.amazonaws.com/nodegroup=b@node_group_name label:eks.amazonaws.com/capacityType=ON_DEMAND@capacity_type types:[t3.medium] unknown-labels unknown:[labels]
aws_eks_node_group.c[*] label:node.kubernetes.io/instance-type=t3.medium@instance_types label:eks.amazonaws.com/capacityType=ON_DEMAND@capacity_type req:eks.amazonaws.com/nodegroup Exists []@node_group_name types:[t3.medium] unknown-exists unknown:[whether it is made]
note: Terraform: aws_eks_node_group.a (infra/main.tf:2:1) joins the node inventory with what is known; not known statically: the value of label zone (aws_subnet.a.availability_zone: a resource's attribute, known only after apply); instance_types (data.aws_ec2_instance_type.x.id: a data source, read only when Terraform runs); the value of label eks.amazonaws.com/nodegroup (var.name: no default and no value in terraform.tfvars or *.auto.tfvars); judgements that turn on them are withheld (give the values in terraform.tfvars, or name a terraform show -json plan with --nodes)
note: Terraform: aws_eks_node_group.b (infra/main.tf:7:1) joins the node inventory with what is known; not known statically: labels (Call to unknown function: There is no function named "jsondecode"); judgements that turn on them are withheld (give the values in terraform.tfvars, or name a terraform show -json plan with --nodes)
note: Terraform: aws_eks_node_group.c[*] (infra/main.tf:11:1) joins the node inventory with what is known; not known statically: the value of label eks.amazonaws.com/nodegroup (each.key: not known statically); how many there are (for_each: Unsupported attribute: This object does not have an attribute named "groups"); judgements that turn on them are withheld (give the values in terraform.tfvars, or name a terraform show -json plan with --nodes)
`},
		{"module groups", []string{"eks/main.tf", `module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_group_defaults = { ami_type = "BOTTLEROCKET_x86_64", labels = { d = "1" } }
  eks_managed_node_groups = {
    a = { use_name_prefix = false, instance_types = ["m5.large"], taints = [{ key = "k", value = "v", effect = "NO_EXECUTE" }] }
    b = { name = "bee", labels = { own = "2" }, capacity_type = "SPOT", create = true }
    c = { create = false }
  }
  self_managed_node_groups = {
    s = { instance_type = "c5.large", ami_type = "WINDOWS_CORE_2022_x86_64" }
  }
}
`}, `module.eks.eks_managed_node_groups["a"] label:d=1@labels[d] label:node.kubernetes.io/instance-type=m5.large@instance_types label:eks.amazonaws.com/nodegroup=a@ label:eks.amazonaws.com/capacityType=ON_DEMAND@capacity_type label:kubernetes.io/arch=amd64@ami_type label:kubernetes.io/os=linux@ami_type taint:k=v:NoExecute@taints[0] types:[m5.large]
module.eks.eks_managed_node_groups["b"] label:own=2@labels[own] label:eks.amazonaws.com/capacityType=SPOT@capacity_type label:kubernetes.io/arch=amd64@ami_type label:kubernetes.io/os=linux@ami_type req:eks.amazonaws.com/nodegroup Exists []@name
module.eks.self_managed_node_groups["s"] label:node.kubernetes.io/instance-type=c5.large@instance_type label:kubernetes.io/arch=amd64@ami_type label:kubernetes.io/os=windows@ami_type types:[c5.large]
`},
		{"gke", []string{"gke/main.tf", `resource "google_container_cluster" "c" {
  remove_default_node_pool = true
}
resource "google_container_cluster" "inline" {
  node_pool {
    name = "inl"
    node_config {
      preemptible = true
      guest_accelerator {
        type  = "nvidia-tesla-a100"
        count = 2
      }
    }
  }
}
resource "google_container_cluster" "auto" {
  enable_autopilot = true
}
resource "google_container_node_pool" "p" {
  name_prefix = "pool-"
  node_config {
    machine_type = "e2-standard-4"
    taint {
      key    = "a"
      value  = "b"
      effect = "NO_SCHEDULE"
    }
  }
}
`}, `google_container_cluster.inline.node_pool["inl"] label:cloud.google.com/gke-nodepool=inl@name label:node.kubernetes.io/instance-type=e2-medium@node_config label:cloud.google.com/gke-preemptible=true@node_config.preemptible label:kubernetes.io/os=linux@node_config label:cloud.google.com/gke-accelerator=nvidia-tesla-a100@node_config.guest_accelerator[0] taint:nvidia.com/gpu=present:NoSchedule@node_config.guest_accelerator[0] types:[e2-medium]
google_container_node_pool.p label:node.kubernetes.io/instance-type=e2-standard-4@node_config.machine_type label:kubernetes.io/os=linux@node_config taint:a=b:NoSchedule@node_config.taint[0] req:cloud.google.com/gke-nodepool Exists []@name types:[e2-standard-4]
note: Terraform: google_container_cluster.auto (gke/main.tf:16:1) is an Autopilot cluster: GKE makes its nodes for each pod, so it adds no pool
note: Terraform: google_container_node_pool.p (gke/main.tf:19:1) joins the node inventory with what is known; not known statically: the value of label cloud.google.com/gke-nodepool (name is not set: Terraform makes a unique one); judgements that turn on them are withheld (give the values in terraform.tfvars, or name a terraform show -json plan with --nodes)
`},
		{"aks", []string{"aks/main.tf", `resource "azurerm_kubernetes_cluster" "k" {
  default_node_pool {
    name    = "sys"
    vm_size = "Standard_D2s_v5"
    node_labels = { "x" = "y" }
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "w" {
  name        = "win"
  os_type     = "Windows"
  mode        = "System"
  vm_size     = "Standard_D4ps_v5"
  priority    = "Spot"
  node_taints = ["a=b:NoExecute", "c:PreferNoSchedule"]
}
`}, `azurerm_kubernetes_cluster.k.default_node_pool label:kubernetes.azure.com/agentpool=sys@name label:agentpool=sys@name label:x=y@node_labels[x] label:kubernetes.azure.com/mode=system@name label:node.kubernetes.io/instance-type=Standard_D2s_v5@vm_size label:kubernetes.io/os=linux@os_type types:[Standard_D2s_v5]
azurerm_kubernetes_cluster_node_pool.w label:kubernetes.azure.com/agentpool=win@name label:agentpool=win@name label:kubernetes.azure.com/mode=system@mode label:node.kubernetes.io/instance-type=Standard_D4ps_v5@vm_size label:kubernetes.io/arch=arm64@vm_size label:kubernetes.io/os=windows@os_type label:kubernetes.azure.com/scalesetpriority=spot@priority taint:a=b:NoExecute@node_taints[0] taint:c:PreferNoSchedule@node_taints[1] taint:kubernetes.azure.com/scalesetpriority=spot:NoSchedule@priority types:[Standard_D4ps_v5]
`},
		{"tfvars", []string{"v/vars.tf", `variable "p" { default = "Regular" }
variable "q" { default = "a" }
resource "azurerm_kubernetes_cluster_node_pool" "w" {
  count    = 2
  name     = "w${count.index}"
  priority = var.p
  node_labels = { q = var.q }
}
`, "v/terraform.tfvars", `p = "Spot"
q = "b"
`, "v/z.auto.tfvars", `q = "c"
`, "v/other.tfvars", `p = "Regular"
`}, `azurerm_kubernetes_cluster_node_pool.w[0] label:kubernetes.azure.com/agentpool=w0@name label:agentpool=w0@name label:q=c@node_labels[q] label:kubernetes.azure.com/mode=user@name label:kubernetes.io/os=linux@os_type label:kubernetes.azure.com/scalesetpriority=spot@priority taint:kubernetes.azure.com/scalesetpriority=spot:NoSchedule@priority
azurerm_kubernetes_cluster_node_pool.w[1] label:kubernetes.azure.com/agentpool=w1@name label:agentpool=w1@name label:q=c@node_labels[q] label:kubernetes.azure.com/mode=user@name label:kubernetes.io/os=linux@os_type label:kubernetes.azure.com/scalesetpriority=spot@priority taint:kubernetes.azure.com/scalesetpriority=spot:NoSchedule@priority
note: Terraform: v/other.tfvars is not applied: Terraform loads only terraform.tfvars, terraform.tfvars.json, *.auto.tfvars and *.auto.tfvars.json by itself (give it with -var-file to terraform); variables keep their defaults
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := describeAll(readTF(tc.files...)); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// A finding on a Terraform pool's taint points at the taint's line in the
// .tf file, and a module group's at its entry in the map.
func TestTerraformPositions(t *testing.T) {
	r := readTF("m/main.tf", `resource "aws_eks_node_group" "g" {
  node_group_name = "g"

  taint {
    key    = "a"
    effect = "NO_SCHEDULE"
  }
  dynamic "taint" {
    for_each = ["b", "c"]
    content {
      key    = taint.value
      effect = "NO_EXECUTE"
    }
  }
}
module "eks" {
  eks_managed_node_groups = {
    sys = {
      taints = {
        x = { key = "x", effect = "PREFER_NO_SCHEDULE" }
      }
    }
  }
}
`)
	if len(r.Pools) != 2 {
		t.Fatalf("pools: %s", describeAll(r))
	}
	var got []string
	for _, p := range r.Pools {
		for _, tn := range p.Taints {
			obj := tn.Object
			if obj == nil {
				obj = p.Object
			}
			pos, _ := obj.Locate(pools.FieldPath(tn.Path).String())
			got = append(got, tn.Key+"@"+pos.String())
		}
	}
	want := "a@m/main.tf:4:3 b@m/main.tf:8:3 c@m/main.tf:8:3 x@m/main.tf:20:9"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

// GKE's derived taints point at the attribute that implies them, inside
// node_config, and a written taint at its block.
func TestTerraformPositionsGKE(t *testing.T) {
	r := readTF("g/main.tf", `resource "google_container_node_pool" "arm" {
  name = "arm"
  node_config {
    labels = { a = "b" }
    machine_type = "t2a-standard-4"
    taint {
      key    = "k"
      effect = "NO_SCHEDULE"
    }
  }
}
`)
	if len(r.Pools) != 1 {
		t.Fatalf("pools: %s", describeAll(r))
	}
	var got []string
	p := r.Pools[0]
	for _, tn := range p.Taints {
		pos, _ := p.Object.Locate(pools.FieldPath(tn.Path).String())
		got = append(got, tn.Key+"@"+pos.String())
	}
	for _, l := range p.Labels {
		if l.Key == "a" {
			pos, _ := p.Object.Locate(pools.FieldPath(l.Path).String())
			got = append(got, l.Key+"@"+pos.String())
		}
	}
	want := "k@g/main.tf:6:5 kubernetes.io/arch@g/main.tf:5:5 a@g/main.tf:4:16"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

func TestReadTerraformJSON(t *testing.T) {
	plan := `{
  "format_version": "1.2",
  "terraform_version": "1.9.0",
  "resource_changes": [
    {
      "address": "azurerm_kubernetes_cluster_node_pool.spot",
      "mode": "managed",
      "type": "azurerm_kubernetes_cluster_node_pool",
      "change": {
        "actions": ["create"],
        "after": {"name": "spot", "priority": "Spot", "vm_size": "Standard_D4s_v5", "node_taints": null},
        "after_unknown": {"node_labels": true}
      }
    },
    {
      "address": "aws_eks_node_group.gone",
      "mode": "managed",
      "type": "aws_eks_node_group",
      "change": {"actions": ["delete"], "after": null}
    }
  ]
}`
	state := `{"format_version": "1.0", "terraform_version": "1.9.0", "values": {"root_module": {"child_modules": [{"address": "module.eks", "resources": [
  {"address": "module.eks.aws_eks_node_group.this[0]", "mode": "managed", "type": "aws_eks_node_group",
   "values": {"node_group_name": "ng-1", "labels": {"a": "b"}, "instance_types": ["t3.large"], "capacity_type": "SPOT",
              "taint": [{"key": "k", "value": "", "effect": "NO_SCHEDULE"}]}}
]}]}}}`
	got := describeAll(readTF("plan.json", plan, "state.json", state))
	want := `azurerm_kubernetes_cluster_node_pool.spot label:kubernetes.azure.com/agentpool=spot@name label:agentpool=spot@name label:kubernetes.azure.com/mode=user@name label:node.kubernetes.io/instance-type=Standard_D4s_v5@vm_size label:kubernetes.io/os=linux@os_type label:kubernetes.azure.com/scalesetpriority=spot@priority taint:kubernetes.azure.com/scalesetpriority=spot:NoSchedule@priority types:[Standard_D4s_v5] unknown-labels unknown:[labels (node_labels)]
module.eks.aws_eks_node_group.this[0] label:a=b@labels[a] label:node.kubernetes.io/instance-type=t3.large@instance_types label:eks.amazonaws.com/nodegroup=ng-1@node_group_name label:eks.amazonaws.com/capacityType=SPOT@capacity_type taint:k:NoSchedule@taint[0] types:[t3.large]
note: Terraform: azurerm_kubernetes_cluster_node_pool.spot (plan.json:6:7) joins the node inventory with what is known; not known statically: node_labels (not known statically); judgements that turn on them are withheld (give the values in terraform.tfvars, or name a terraform show -json plan with --nodes)
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestReadCloudKube(t *testing.T) {
	r := read(t, `apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerNodePool
metadata: {name: np}
spec:
  nodeConfig:
    machineType: c4a-standard-4
    taint: [{key: a, value: b, effect: NO_SCHEDULE}]
---
apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata: {name: mc}
spec:
  agentPoolProfiles:
  - {name: sys, mode: System, vmSize: Standard_D2s_v5, nodeTaints: ["CriticalAddonsOnly=true:NoSchedule"]}
  - {name: spot, mode: User, scaleSetPriority: Spot, nodeLabels: {w: x}}
`)
	var got []string
	for _, p := range r.Pools {
		got = append(got, describe(p))
	}
	want := []string{
		"ContainerNodePool/np label:cloud.google.com/gke-nodepool=np@metadata.name label:node.kubernetes.io/instance-type=c4a-standard-4@node_config.machine_type label:kubernetes.io/arch=arm64@node_config.machine_type label:kubernetes.io/os=linux@node_config taint:a=b:NoSchedule@node_config.taint[0] taint:kubernetes.io/arch=arm64:NoSchedule@node_config.machine_type types:[c4a-standard-4]",
		"ManagedCluster/mc agentPoolProfiles[sys] label:kubernetes.azure.com/agentpool=sys@name label:agentpool=sys@name label:kubernetes.azure.com/mode=system@mode label:node.kubernetes.io/instance-type=Standard_D2s_v5@vm_size label:kubernetes.io/os=linux@os_type taint:CriticalAddonsOnly=true:NoSchedule@node_taints[0] types:[Standard_D2s_v5]",
		"ManagedCluster/mc agentPoolProfiles[spot] label:kubernetes.azure.com/agentpool=spot@name label:agentpool=spot@name label:w=x@node_labels[w] label:kubernetes.azure.com/mode=user@mode label:kubernetes.io/os=linux@os_type label:kubernetes.azure.com/scalesetpriority=spot@priority taint:kubernetes.azure.com/scalesetpriority=spot:NoSchedule@priority",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Values of the wrong type, broken syntax and odd expansions are errors,
// issues or left-out pools, never a panic.
func TestReadTerraformHostile(t *testing.T) {
	for _, src := range []string{
		`resource "aws_eks_node_group" "a" { labels = 5 }`,
		`resource "aws_eks_node_group" "a" { labels = ["x"] }`,
		`resource "aws_eks_node_group" "a" { instance_types = { a = 1 } }`,
		`resource "aws_eks_node_group" "a" { taint = "x" }`,
		`resource "aws_eks_node_group" "a" { for_each = 3 }`,
		`resource "aws_eks_node_group" "a" { count = "many" }`,
		`resource "aws_eks_node_group" "a" { count = -1 }`,
		`resource "aws_eks_node_group" "a" { dynamic "taint" { for_each = 5 content { key = taint.value } } }`,
		`resource "aws_eks_node_group" "a" { dynamic "taint" { for_each = {a = {b = 1}} content { key = taint.value } } }`,
		`resource "google_container_node_pool" "a" { node_config = 7 }`,
		`resource "google_container_node_pool" "a" { node_config { guest_accelerator { count = "x" } } }`,
		`resource "azurerm_kubernetes_cluster_node_pool" "a" { node_taints = "a=b:NoSchedule" }`,
		`resource "azurerm_kubernetes_cluster_node_pool" "a" { node_taints = [1, [2]] }`,
		`module "m" { eks_managed_node_groups = [1, 2] }`,
		`module "m" { eks_managed_node_groups = { a = 1, b = [1], c = { taints = 5 } } }`,
		`module "m" { self_managed_node_groups = { a = null } }`,
		`locals { a = local.b
 b = local.a }
resource "aws_eks_node_group" "a" { labels = local.a }`,
		`resource "aws_eks_node_group" "a" { labels = {` + strings.Repeat("(", 200) + `}`,
		"resource \"aws_eks_node_group\" \"a\" { labels = { \"\xff\" = \"\x00\" } }",
	} {
		r := readTF("x/main.tf", src)
		describeAll(r)
		for _, e := range r.Errors {
			if strings.Contains(e.Msg, "could not be read") {
				t.Errorf("%s: a panic was recovered: %s", src, e.Msg)
			}
		}
	}
	for _, src := range []string{`{"format_version": "1", "terraform_version": "1", "resource_changes": 5}`, `{"format_version": "1", "terraform_version": "1", "values": {"root_module": {"resources": [{"type": "aws_eks_node_group", "mode": "managed", "values": [1]}]}}}`} {
		r := readTF("p.json", src)
		describeAll(r)
	}
}

// TestTerraformUnknownPools: a pool whose taints, labels, Spot setting,
// GPUs or critical-addons taint are not known joins with what is known,
// and says what may be there (Unknown); Variant gives it as each world
// has it.
func TestTerraformUnknownPools(t *testing.T) {
	r := readTF("main.tf", `variable "prio" {}
variable "spot" {}
variable "critical" {}
resource "azurerm_kubernetes_cluster" "k" {
  default_node_pool {
    name                         = "sys"
    vm_size                      = "Standard_D2s_v5"
    only_critical_addons_enabled = var.critical
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name     = "p"
  vm_size  = "Standard_D2s_v5"
  priority = var.prio
}
resource "google_container_node_pool" "g" {
  name = "g"
  node_config {
    spot = var.spot
  }
}
module "eks" {
  source = "terraform-aws-modules/eks/aws"
  self_managed_node_groups = {
    s = { instance_type = "m5.large", bootstrap_extra_args = "--kubelet-extra-args '--node-labels=a=b'" }
  }
}
`)
	got := describeAll(r)
	for _, want := range []string{
		`azurerm_kubernetes_cluster.k.default_node_pool label:kubernetes.azure.com/agentpool=sys@name label:agentpool=sys@name label:kubernetes.azure.com/mode=system@name label:node.kubernetes.io/instance-type=Standard_D2s_v5@vm_size label:kubernetes.io/os=linux@os_type types:[Standard_D2s_v5] maybe-taint:CriticalAddonsOnly=true:NoSchedule@only_critical_addons_enabled unknown:[CriticalAddonsOnly taint (only_critical_addons_enabled)]`,
		`azurerm_kubernetes_cluster_node_pool.p label:kubernetes.azure.com/agentpool=p@name label:agentpool=p@name label:kubernetes.azure.com/mode=user@name label:node.kubernetes.io/instance-type=Standard_D2s_v5@vm_size label:kubernetes.io/os=linux@os_type types:[Standard_D2s_v5] maybe-taint:kubernetes.azure.com/scalesetpriority=spot:NoSchedule@priority maybe-label:kubernetes.azure.com/scalesetpriority=spot@priority unknown:[Spot (priority)]`,
		`google_container_node_pool.g label:cloud.google.com/gke-nodepool=g@name label:node.kubernetes.io/instance-type=e2-medium@node_config label:kubernetes.io/os=linux@node_config types:[e2-medium] maybe-label:cloud.google.com/gke-spot=true@node_config.spot unknown:[Spot (node_config.spot)]`,
		`module.eks.self_managed_node_groups["s"] label:node.kubernetes.io/instance-type=m5.large@instance_type types:[m5.large] unknown-taints unknown-labels unknown:[taints and labels (bootstrap_extra_args)]`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("got\n%s\nlacks\n%s", got, want)
		}
	}
	var p *pools.Pool
	for _, q := range r.Pools {
		if q.Name == "azurerm_kubernetes_cluster_node_pool.p" {
			p = q
		}
	}
	if p == nil {
		t.Fatal("no pool p")
	}
	spot := "kubernetes.azure.com/scalesetpriority"
	if p.Variant(pools.Open, nil) != p || p.Compatible(map[string]string{spot: "spot"}, nil) != nil {
		t.Errorf("Open: the pool as read, taking a pod that asks for the Spot label")
	}
	if off := p.Variant(pools.Off, nil); len(off.Taints) != 0 || off.Compatible(map[string]string{spot: "spot"}, nil) == nil {
		t.Errorf("Off: no Spot taint, no Spot label: %s", describe(off))
	}
	if on := p.Variant(pools.On, nil); len(on.Taints) != 1 || on.Compatible(map[string]string{spot: "spot"}, nil) != nil {
		t.Errorf("On: the Spot taint and label: %s", describe(on))
	}
	var s *pools.Pool
	for _, q := range r.Pools {
		if strings.HasPrefix(q.Name, "module.eks.self") {
			s = q
		}
	}
	tol := []v1.Toleration{{Key: "a", Operator: v1.TolerationOpExists}, {Operator: v1.TolerationOpExists}}
	if tv := s.Variant(pools.Tolerated, tol); len(tv.Taints) != 1 || tv.Taints[0].Key != "a" {
		t.Errorf("Tolerated: a taint each keyed toleration matches: %s", describe(tv))
	}
	if off := s.Variant(pools.Off, nil); len(off.Taints) != 1 || off.Taints[0].Key != pools.UnknownTaintKey || off.Compatible(map[string]string{"x": "y"}, nil) == nil {
		t.Errorf("Off: a taint no pod tolerates, no label beyond the known: %s", describe(off))
	}
	if s.Compatible(map[string]string{"x": "y"}, nil) != nil {
		t.Errorf("Open: any label")
	}
}

// TestGKEModuleDefaultPool: the GKE module's default-pool is read as the
// module makes it: none with remove_default_node_pool = true, no node with
// the default initial_node_count 0, else a pool of the first node pool's
// machine type and no labels or taints of its own; windows_node_pools are
// node pools.
func TestGKEModuleDefaultPool(t *testing.T) {
	got := describeAll(readTF("main.tf", `variable "nodes" {}
module "kept" {
  source             = "terraform-google-modules/kubernetes-engine/google"
  name               = "a"
  initial_node_count = 1
  node_pools         = [{ name = "p", machine_type = "n2-standard-4" }]
  node_pools_taints  = { all = [{ key = "k", value = "v", effect = "NO_SCHEDULE" }] }
}
module "empty" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  name       = "b"
  node_pools = []
}
module "maybe" {
  source             = "terraform-google-modules/kubernetes-engine/google//modules/private-cluster"
  name               = "c"
  initial_node_count = var.nodes
  remove_default_node_pool = false
}
module "win" {
  source                   = "terraform-google-modules/kubernetes-engine/google//modules/beta-public-cluster"
  name                     = "d"
  remove_default_node_pool = true
  windows_node_pools       = [{ name = "w", machine_type = "n2-standard-8", image_type = "WINDOWS_LTSC_CONTAINERD" }]
}
module "safer" {
  source     = "terraform-google-modules/kubernetes-engine/google//modules/safer-cluster"
  name       = "e"
  node_pools = [{ name = "s" }]
}
module "np" {
  source = "terraform-google-modules/kubernetes-engine/google//modules/gke-node-pool"
}
module "wi" {
  source = "terraform-google-modules/kubernetes-engine/google//modules/workload-identity"
}
`))
	for _, want := range []string{
		`module.kept default-pool label:cloud.google.com/gke-nodepool=default-pool@ label:node.kubernetes.io/instance-type=n2-standard-4@node_config.machine_type label:kubernetes.io/os=linux@node_config types:[n2-standard-4]`,
		`module.maybe default-pool label:cloud.google.com/gke-nodepool=default-pool@ label:node.kubernetes.io/instance-type=e2-medium@node_config label:kubernetes.io/os=linux@node_config types:[e2-medium] unknown-exists unknown:[whether it has nodes (initial_node_count)]`,
		`module.win.windows_node_pools["w"] label:cloud.google.com/gke-nodepool=w@name label:cluster_name=d@node_config.labels[cluster_name] label:node_pool=w@node_config.labels[node_pool] label:node.kubernetes.io/instance-type=n2-standard-8@node_config.machine_type label:kubernetes.io/os=windows@node_config.image_type taint:node.kubernetes.io/os=windows:NoSchedule@node_config.image_type types:[n2-standard-8]`,
		`note: Terraform: module.empty default-pool (main.tf:9:1) has no node: the module keeps it (remove_default_node_pool is not true) with initial_node_count nodes (0) and no autoscaling, so it takes no pod and is not in the node inventory`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("got\n%s\nlacks\n%s", got, want)
		}
	}
	if !strings.Contains(got, `module.maybe.node_pools["default-node-pool"] label:cloud.google.com/gke-nodepool=default-node-pool@name label:cluster_name=c@node_config.labels[cluster_name] label:node_pool=default-node-pool@node_config.labels[node_pool] label:node.kubernetes.io/instance-type=e2-medium@node_config label:kubernetes.io/os=linux@node_config types:[e2-medium]`) {
		t.Errorf("node_pools unset is the module's default-node-pool:\n%s", got)
	}
	if !strings.Contains(got, `module.safer.node_pools["s"]`) || !strings.Contains(got, "module.np (main.tf:31:1) is not read") {
		t.Errorf("safer-cluster's node pools, or gke-node-pool's notice, missing:\n%s", got)
	}
	if strings.Contains(got, "module.win default-pool") || strings.Contains(got, "module.safer default-pool") || strings.Contains(got, "module.wi ") || strings.Contains(got, "module.kept default-pool label:cluster_name") {
		t.Errorf("a removed default pool, or module labels on the default pool:\n%s", got)
	}
}

// TestAKSModuleLocalSource: the AKS module called by a local source, as
// its examples call it, is told by its inputs and read with its defaults;
// a local module without them is not read.
func TestAKSModuleLocalSource(t *testing.T) {
	got := describeAll(readTF("main.tf", `module "aks" {
  source              = "../.."
  prefix              = "p"
  resource_group_name = "rg"
  location            = "westeurope"
  sku_tier            = "Standard"
}
module "other" {
  source              = "../network"
  prefix              = "p"
  resource_group_name = "rg"
}
`))
	want := `module.aks.default_node_pool label:kubernetes.azure.com/agentpool=nodepool@name label:agentpool=nodepool@name label:kubernetes.azure.com/mode=system@name label:node.kubernetes.io/instance-type=Standard_D2s_v3@vm_size label:kubernetes.io/os=linux@os_type types:[Standard_D2s_v3]
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestEKSAutoMode: a cluster's compute_config (a resource's block, the
// terraform-aws-eks module's input) makes EKS Auto Mode's built-in
// NodePools it names, system tainted CriticalAddonsOnly; an unknown list
// makes both, whose existence is unknown.
func TestEKSAutoMode(t *testing.T) {
	got := describeAll(readTF("main.tf", `variable "pools" {}
resource "aws_eks_cluster" "c" {
  name = "c"
  compute_config {
    enabled    = true
    node_pools = ["system"]
  }
}
module "eks" {
  source         = "terraform-aws-modules/eks/aws"
  compute_config = { enabled = true, node_pools = ["general-purpose"] }
}
module "custom" {
  source         = "terraform-aws-modules/eks/aws"
  compute_config = { enabled = true }
}
module "maybe" {
  source         = "terraform-aws-modules/eks/aws"
  compute_config = { enabled = true, node_pools = var.pools }
}
`))
	for _, want := range []string{
		`aws_eks_cluster.c.compute_config.node_pools["system"] label:karpenter.sh/nodepool=system@compute_config.node_pools[0] label:eks.amazonaws.com/compute-type=auto@compute_config.node_pools[0] label:eks.amazonaws.com/nodeclass=default@compute_config.node_pools[0] taint:CriticalAddonsOnly:NoSchedule@compute_config.node_pools[0] req:karpenter.sh/capacity-type In [on-demand]@compute_config.node_pools[0] req:eks.amazonaws.com/instance-category In [c m r]@compute_config.node_pools[0] req:eks.amazonaws.com/instance-generation Gt [4]@compute_config.node_pools[0] req:kubernetes.io/arch In [amd64 arm64]@compute_config.node_pools[0] req:kubernetes.io/os In [linux]@compute_config.node_pools[0]`,
		`module.eks.compute_config.node_pools["general-purpose"] label:karpenter.sh/nodepool=general-purpose@compute_config.node_pools[0]`,
		`module.maybe.compute_config.node_pools["system"] `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nlacks\n%s", got, want)
		}
	}
	if strings.Contains(got, "module.custom") || !strings.Contains(got, "unknown-exists unknown:[whether it is enabled (compute_config)]") {
		t.Errorf("custom node pools only, or an unknown list, read wrong:\n%s", got)
	}
	var gp *pools.Pool
	for _, p := range readTF("main.tf", `module "eks" {
  source         = "terraform-aws-modules/eks/aws"
  compute_config = { enabled = true, node_pools = ["general-purpose"] }
}
`).Pools {
		gp = p
	}
	if err := gp.Compatible(map[string]string{"eks.amazonaws.com/instance-family": "m5", "kubernetes.io/arch": "amd64"}, nil); err != nil {
		t.Errorf("an Auto Mode well-known label left open: %v", err)
	}
	if err := gp.Compatible(map[string]string{"kubernetes.io/arch": "arm64"}, nil); err == nil {
		t.Errorf("general-purpose takes amd64 only")
	}
}

// TestTerraformUnknownPoolSets: a module's pools over a variable without
// a value join as one pool of unknown taints, labels and number, so that
// nothing it could change is judged.
func TestTerraformUnknownPoolSets(t *testing.T) {
	got := describeAll(readTF("main.tf", `variable "groups" {}
module "eks" {
  source                  = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = var.groups
}
`))
	want := `module.eks.eks_managed_node_groups[*] unknown-taints unknown-labels unknown-exists unknown:[whether it is made taints and labels (eks_managed_node_groups)]`
	if !strings.Contains(got, want+"\n") {
		t.Errorf("got\n%s\nlacks\n%s", got, want)
	}
}

// TestTerraformJSONSyntax: a .tf.json file is part of its directory's
// module: its pool resources are read, its templates evaluated with the
// module's variables; count makes a pool of unknown number, and a module
// call in JSON syntax a pool of unknown taints and labels.
func TestTerraformJSONSyntax(t *testing.T) {
	got := describeAll(readTF("infra/variables.tf", `variable "team" { default = "ops" }
`, "infra/terraform.tfvars.json", `{"team": "ml"}`, "infra/main.tf.json", `{
  "resource": {
    "aws_eks_node_group": {
      "gpu": {
        "node_group_name": "gpu",
        "labels": {"team": "${var.team}"},
        "taint": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]
      },
      "many": {"count": "${var.n}", "node_group_name": "many-${count.index}"}
    }
  },
  "module": {"gke": {"source": "terraform-google-modules/kubernetes-engine/google"}}
}`))
	for _, want := range []string{
		`aws_eks_node_group.gpu label:team=ml@labels[team] label:node.kubernetes.io/instance-type=t3.medium@instance_types label:eks.amazonaws.com/nodegroup=gpu@node_group_name label:eks.amazonaws.com/capacityType=ON_DEMAND@capacity_type taint:nvidia.com/gpu=true:NoSchedule@taint[0] types:[t3.medium]`,
		`aws_eks_node_group.many[*] `,
		`module.gke[*] unknown-taints unknown-labels unknown-exists`,
		`note: Terraform: module.gke (infra/main.tf.json:12:`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nlacks\n%s", got, want)
		}
	}
}

// TestTerraformInstancesBounded: a count, for_each or dynamic block of
// more instances than maxInstances, one line of an untrusted repository,
// is not expanded: it stands for pools of unknown number.
func TestTerraformInstancesBounded(t *testing.T) {
	for name, src := range map[string]string{
		"count":    `resource "aws_eks_node_group" "g" { count = 1000000000` + "\n" + `node_group_name = "g" }`,
		"for_each": `resource "aws_eks_node_group" "g" { for_each = toset([for i in range(1000) : tostring(i)])` + "\n" + `node_group_name = each.key }`,
	} {
		r := readTF("main.tf", src)
		if len(r.Pools) != 1 || r.Pools[0].Unknown == nil || len(r.Pools[0].Unknown.Exists) == 0 {
			t.Errorf("%s: want one pool of unknown number, got:\n%s", name, describeAll(r))
		}
	}
	dyn := `resource "google_container_cluster" "c" {
  name = "c"
  dynamic "node_pool" {
    for_each = range(1000)
    content { name = "p${node_pool.key}" }
  }
}`
	if r := readTF("main.tf", dyn); len(r.Pools) > maxInstancesForTest {
		t.Errorf("dynamic: %d pools made from 1000 blocks", len(r.Pools))
	}
}

const maxInstancesForTest = 256

// TestTerraformDynamicUnknown: a dynamic node_pool over a variable with no
// value is pools of unknown number, taints and labels, and no made-up
// default-pool (Terraform makes none where node_pool blocks are written).
func TestTerraformDynamicUnknown(t *testing.T) {
	r := readTF("main.tf", `variable "pools" {}
resource "google_container_cluster" "c" {
  name = "c"
  dynamic "node_pool" {
    for_each = var.pools
    content { name = node_pool.key }
  }
}`)
	if len(r.Pools) != 1 || r.Pools[0].Unknown == nil || len(r.Pools[0].Unknown.Exists) == 0 || len(r.Pools[0].Unknown.Taints) == 0 {
		t.Errorf("want one pool of unknown number and taints, got:\n%s", describeAll(r))
	}
}

// TestTerraformModuleCount: a module call with count = 0 or an empty
// for_each makes no pools; one with a count not known makes pools that
// may not exist.
func TestTerraformModuleCount(t *testing.T) {
	call := func(meta string) string {
		return `variable "n" {}
module "eks" {
  source = "terraform-aws-modules/eks/aws"
  ` + meta + `
  eks_managed_node_groups = { a = { instance_types = ["m5.large"] } }
}`
	}
	for _, meta := range []string{"count = 0", "for_each = {}"} {
		if r := readTF("main.tf", call(meta)); len(r.Pools) != 0 {
			t.Errorf("%s: want no pool, got:\n%s", meta, describeAll(r))
		}
	}
	r := readTF("main.tf", call("count = var.n"))
	if len(r.Pools) != 1 || r.Pools[0].Unknown == nil || r.Pools[0].Unknown.Exists == "" {
		t.Errorf("count = var.n: want one pool of unknown existence, got:\n%s", describeAll(r))
	}
	if r := readTF("main.tf", call("count = 1")); len(r.Pools) != 1 || r.Pools[0].Unknown != nil {
		t.Errorf("count = 1: want one known pool, got:\n%s", describeAll(r))
	}
}
