package pools

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	v1 "k8s.io/api/core/v1"
)

// EKS Auto Mode's built-in NodePools, as EKS makes them when a cluster's
// compute_config enables them (AWS EKS User Guide, "Enable or Disable
// Built-in NodePools": system has a CriticalAddonsOnly taint and takes
// amd64 and arm64; general-purpose takes amd64 only; both are on-demand,
// of the C, M and R families, generation 5 or newer, on the default EKS
// NodeClass). The requirements and taint are the NodePools' own as a
// cluster holds them (kubectl get nodepool system -o yaml):
// karpenter.sh/capacity-type In [on-demand], eks.amazonaws.com/instance-category
// In [c m r], eks.amazonaws.com/instance-generation Gt 4, kubernetes.io/arch,
// kubernetes.io/os In [linux], taint CriticalAddonsOnly:NoSchedule.
const (
	LabelEKSComputeType = "eks.amazonaws.com/compute-type"
	sourceAutoMode      = "EKS Auto Mode's built-in NodePool"
)

// autoModeArch is the architectures of each built-in NodePool; a name
// not here is no built-in pool.
var autoModeArch = map[string][]string{
	"general-purpose": {"amd64"},
	"system":          {"amd64", "arm64"},
}

// eksWellKnown are the keys an EKS Auto Mode pool may leave open: the
// AWS provider's well-known keys in EKS's domain (eks.amazonaws.com/
// for karpenter.k8s.aws/, as Auto Mode names them: AWS EKS User Guide,
// "Create a Node Pool for EKS Auto Mode", supported labels).
func eksWellKnown() []string {
	out := append([]string(nil), karpenterWellKnown...)
	for _, k := range awsWellKnown {
		out = append(out, strings.Replace(k, "karpenter.k8s.aws/", "eks.amazonaws.com/", 1))
	}
	return out
}

// readAutoMode reads the built-in NodePools a cluster's compute_config
// enables (an aws_eks_cluster's block, or the terraform-aws-eks module's
// compute_config input): enabled = true with node_pools naming them.
// Unknown values make pools whose existence is not known.
func (m *tfModule) readAutoMode(file, addr, kind string, cfg fields, at hcl.Range) {
	enabled, names := cfg.attr("enabled"), cfg.attr("node_pools")
	if b, ok := boolOf(enabled.v); ok && !b || !names.written() && !names.unknown() {
		return
	}
	var exists []string
	if enabled.unknown() {
		exists = append(exists, "compute_config.enabled ("+strings.Join(enabled.why, ", ")+")")
	}
	list, known := strList(names.v)
	if !known {
		exists = append(exists, "compute_config.node_pools ("+strings.Join(names.why, ", ")+")")
		list = []string{"general-purpose", "system"}
	}
	for i, name := range list {
		arch, ok := autoModeArch[name]
		if !ok {
			m.r.Notes = append(m.r.Notes, fmt.Sprintf("Terraform: %s (%s:%d:%d) names the EKS Auto Mode node pool %q, which is no built-in NodePool (general-purpose, system)", addr, file, names.rng.Start.Line, names.rng.Start.Column, name))
			continue
		}
		_, r := elemExpr(names.expr, i)
		if r == (hcl.Range{}) {
			r = names.rng
		}
		p := m.newPool(file, fmt.Sprintf("%s.compute_config.node_pools[%q]", addr, name), kind, name, at)
		p.AutoMode = true
		path := p.tree.mark(r, "compute_config", "node_pools", i)
		if len(exists) > 0 {
			why := "whether the built-in NodePool is enabled (" + strings.Join(exists, "; ") + ")"
			u := p.unknownOf()
			u.Exists = why
			u.Attributes = append(u.Attributes, "whether it is enabled (compute_config)")
			p.unknown = append(p.unknown, why)
		}
		p.Labels = append(p.Labels,
			Label{Key: LabelKarpenterNodePool, Value: name, Path: path, Source: "Karpenter labels every node of a NodePool with karpenter.sh/nodepool"},
			Label{Key: LabelEKSComputeType, Value: "auto", Path: path, Source: "EKS labels Auto Mode nodes eks.amazonaws.com/compute-type=auto"},
			Label{Key: "eks.amazonaws.com/nodeclass", Value: "default", Path: path, Source: sourceAutoMode + "s use the default EKS NodeClass (Karpenter's node class label)"})
		p.Requirements = append(p.Requirements,
			Requirement{Key: LabelKarpenterCapacityType, Operator: v1.NodeSelectorOpIn, Values: []string{"on-demand"}, Path: path},
			Requirement{Key: "eks.amazonaws.com/instance-category", Operator: v1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}, Path: path},
			Requirement{Key: "eks.amazonaws.com/instance-generation", Operator: v1.NodeSelectorOpGt, Values: []string{"4"}, Path: path},
			Requirement{Key: v1.LabelArchStable, Operator: v1.NodeSelectorOpIn, Values: arch, Path: path},
			Requirement{Key: v1.LabelOSStable, Operator: v1.NodeSelectorOpIn, Values: []string{"linux"}, Path: path})
		if name == "system" {
			p.derivedTaint(v1.Taint{Key: TaintCriticalAddons, Effect: v1.TaintEffectNoSchedule}, path, sourceAutoMode+" system is tainted CriticalAddonsOnly:NoSchedule")
		}
		p.UnknownResources = "EKS Auto Mode picks the instance type (C, M or R, generation 5 or newer)"
		m.pools = append(m.pools, p)
	}
}
