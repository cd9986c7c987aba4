package pools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// Labels and taints the platforms put on pool nodes (docs/inventory.md
// gives each one's upstream source).
const (
	LabelKarpenterNodePool     = "karpenter.sh/nodepool"
	LabelKarpenterCapacityType = "karpenter.sh/capacity-type"
	LabelKarpenterRegistered   = "karpenter.sh/registered"
	LabelKarpenterInitialized  = "karpenter.sh/initialized"
	LabelEksctlNodeGroup       = "alpha.eksctl.io/nodegroup-name"
	LabelEksctlCluster         = "alpha.eksctl.io/cluster-name"
	LabelEKSNodeGroup          = "eks.amazonaws.com/nodegroup"
	LabelEKSCapacityType       = "eks.amazonaws.com/capacityType"
	LabelKopsInstanceGroup     = "kops.k8s.io/instancegroup"
	LabelOpenShiftWorker       = "node-role.kubernetes.io/worker"
	LabelKopsAPIServer         = "node-role.kubernetes.io/api-server"

	TaintKarpenterUnregistered = "karpenter.sh/unregistered"
	TaintCloudUninitialized    = "node.cloudprovider.kubernetes.io/uninitialized"
	TaintCAPIUninitialized     = "node.cluster.x-k8s.io/uninitialized"
	TaintControlPlane          = "node-role.kubernetes.io/control-plane"
)

// readNodePool reads a Karpenter NodePool (karpenter.sh/v1).
func readNodePool(r *Result, obj *loader.Object) {
	var spec struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			NodeClassRef *struct {
				Group string `json:"group"`
				Kind  string `json:"kind"`
				Name  string `json:"name"`
			} `json:"nodeClassRef"`
			Taints        []v1.Taint `json:"taints"`
			StartupTaints []v1.Taint `json:"startupTaints"`
			Requirements  []struct {
				Key       string                  `json:"key"`
				Operator  v1.NodeSelectorOperator `json:"operator"`
				Values    []string                `json:"values"`
				MinValues *int                    `json:"minValues"`
			} `json:"requirements"`
		} `json:"spec"`
	}
	const base = "spec.template"
	if !r.decode(obj, base, &spec) {
		return
	}
	p := &Pool{Object: obj, Format: Karpenter, Name: "NodePool/" + obj.Name}
	p.Labels = sortedLabels(spec.Metadata.Labels, base+".metadata.labels", "")
	p.Labels = append(p.Labels, Label{Key: LabelKarpenterNodePool, Value: obj.Name, Path: "metadata.name", Source: "Karpenter labels every node of a NodePool with karpenter.sh/nodepool (pkg/apis/v1/labels.go NodePoolLabelKey)"})
	if ref := spec.Spec.NodeClassRef; ref != nil && ref.Group != "" && ref.Kind != "" {
		// NewNodeClaimTemplate labels the template <group>/<kind in lower
		// case> = the node class's name (NodeClassLabelKey).
		p.AWS = ref.Group == "karpenter.k8s.aws"
		p.Labels = append(p.Labels, Label{Key: ref.Group + "/" + strings.ToLower(ref.Kind), Value: ref.Name, Path: base + ".spec.nodeClassRef", Source: "Karpenter labels every node with its node class, <group>/<kind>=<name> of nodeClassRef (pkg/apis/v1/labels.go NodeClassLabelKey)"})
	}
	// Since v1.14 the template requires registered and initialized
	// In [true], so that DaemonSets selecting them count on its nodes
	// (pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go).
	p.Labels = append(p.Labels,
		Label{Key: LabelKarpenterRegistered, Value: "true", Path: "kind", Source: "Karpenter labels a node karpenter.sh/registered=true once it registers"},
		Label{Key: LabelKarpenterInitialized, Value: "true", Path: "kind", Source: "Karpenter labels a node karpenter.sh/initialized=true once it is initialized"})
	// minValues only asks for variety of instance types when launching;
	// it never makes a pod incompatible (ignored).
	for i, q := range spec.Spec.Requirements {
		p.Requirements = append(p.Requirements, Requirement{Key: q.Key, Operator: q.Operator, Values: q.Values, Path: fmt.Sprintf("%s.spec.requirements[%d]", base, i)})
		if normalize(q.Key) == v1.LabelInstanceTypeStable && q.Operator == v1.NodeSelectorOpIn {
			p.InstanceTypes = append(p.InstanceTypes, q.Values...)
		}
	}
	p.Taints = taintsAt(spec.Spec.Taints, base+".spec.taints")
	p.StartupTaints = taintsAt(spec.Spec.StartupTaints, base+".spec.startupTaints")
	p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintKarpenterUnregistered, Effect: v1.TaintEffectNoExecute}, Path: "kind", Source: "Karpenter v1 registers every node with karpenter.sh/unregistered:NoExecute and removes it once the node is registered (pkg/apis/v1/taints.go UnregisteredNoExecuteTaint)"})
	r.Pools = append(r.Pools, p)
	r.Taints = append(r.Taints, k8s.TaintList{Object: obj, Path: FieldPath(base + ".spec.taints"), Taints: spec.Spec.Taints}, k8s.TaintList{Object: obj, Path: FieldPath(base + ".spec.startupTaints"), Taints: spec.Spec.StartupTaints})
}

// eksctlTaints reads eksctl's taints, written as a list of taints or, on
// self-managed nodeGroups only, as a map of key to "value:Effect" or
// "Effect" (eksctl pkg/apis/eksctl.io/v1alpha5/types.go taintsWrapper,
// pkg/utils/taints/taints.go parseTaint). managedNodeGroups[].taints is a
// plain list: eksctl refuses a map there.
func eksctlTaints(r *Result, obj *loader.Object, path string, raw json.RawMessage, managed bool) ([]v1.Taint, []string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '{' && managed {
		r.Issues = append(r.Issues, Issue{Object: obj, Path: path, Msg: "eksctl reads managedNodeGroups[].taints only as a list of {key, value, effect}: the map form is for nodeGroups", AtValue: true})
		return nil, nil
	}
	if raw[0] == '[' {
		var ts []v1.Taint
		if !r.decode(obj, path, &ts) {
			return nil, nil
		}
		paths := make([]string, len(ts))
		for i := range ts {
			paths[i] = fmt.Sprintf("%s[%d]", path, i)
		}
		return ts, paths
	}
	var m map[string]string
	if !r.decode(obj, path, &m) {
		return nil, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ts []v1.Taint
	var paths []string
	for _, k := range keys {
		// parseTaint: "Effect" alone, or "value:Effect"; more colons
		// leave both empty (and eksctl then refuses the empty effect).
		var t v1.Taint
		switch parts := strings.Split(m[k], ":"); len(parts) {
		case 1:
			t = v1.Taint{Key: k, Effect: v1.TaintEffect(parts[0])}
		case 2:
			t = v1.Taint{Key: k, Value: parts[0], Effect: v1.TaintEffect(parts[1])}
		default:
			t = v1.Taint{Key: k}
		}
		ts = append(ts, t)
		paths = append(paths, fmt.Sprintf("%s[%s]", path, k))
	}
	return ts, paths
}

// readClusterConfig reads the node groups of an eksctl ClusterConfig
// (eksctl.io/v1alpha5): nodeGroups (self-managed) and managedNodeGroups.
func readClusterConfig(r *Result, obj *loader.Object) {
	type nodeGroup struct {
		Name                  string            `json:"name"`
		Labels                map[string]string `json:"labels"`
		Taints                json.RawMessage   `json:"taints"`
		InstanceType          string            `json:"instanceType"`
		InstanceTypes         []string          `json:"instanceTypes"`
		Spot                  bool              `json:"spot"`
		InstancesDistribution *struct {
			InstanceTypes []string `json:"instanceTypes"`
		} `json:"instancesDistribution"`
		InstanceMarketOptions *struct {
			MarketType string `json:"marketType"`
		} `json:"instanceMarketOptions"`
	}
	var spec struct {
		NodeGroups        []nodeGroup `json:"nodeGroups"`
		ManagedNodeGroups []nodeGroup `json:"managedNodeGroups"`
	}
	if !r.decode(obj, "", &spec) {
		return
	}
	for _, list := range []struct {
		field   string
		groups  []nodeGroup
		managed bool
	}{{"nodeGroups", spec.NodeGroups, false}, {"managedNodeGroups", spec.ManagedNodeGroups, true}} {
		for i, ng := range list.groups {
			base := fmt.Sprintf("%s[%d]", list.field, i)
			p := &Pool{Object: obj, Path: base, Format: Eksctl, Name: fmt.Sprintf("ClusterConfig/%s %s[%s]", obj.Name, list.field, ng.Name)}
			p.Labels = sortedLabels(ng.Labels, base+".labels", "")
			p.Labels = append(p.Labels,
				Label{Key: LabelEksctlCluster, Value: obj.Name, Path: "metadata.name", Source: "eksctl labels the nodes of every node group with alpha.eksctl.io/cluster-name"},
				Label{Key: LabelEksctlNodeGroup, Value: ng.Name, Path: base + ".name", Source: "eksctl labels the nodes of every node group with alpha.eksctl.io/nodegroup-name"})
			if list.managed {
				// eksctl pkg/cfn/builder/managed_nodegroup.go: spot is
				// SPOT, instanceMarketOptions.marketType capacity-block is
				// CAPACITY_BLOCK, else EKS's default ON_DEMAND.
				capacity, capacityPath := "ON_DEMAND", base+".spot"
				if ng.Spot {
					capacity = "SPOT"
				}
				if o := ng.InstanceMarketOptions; o != nil && o.MarketType == "capacity-block" {
					capacity, capacityPath = "CAPACITY_BLOCK", base+".instanceMarketOptions.marketType"
				}
				p.Labels = append(p.Labels,
					Label{Key: LabelEKSNodeGroup, Value: ng.Name, Path: base + ".name", Source: "EKS labels the nodes of a managed node group with eks.amazonaws.com/nodegroup"},
					Label{Key: LabelEKSCapacityType, Value: capacity, Path: capacityPath, Source: "EKS labels the nodes of a managed node group with eks.amazonaws.com/capacityType (ON_DEMAND, SPOT or CAPACITY_BLOCK)"})
			}
			switch {
			case ng.InstanceType != "":
				p.InstanceTypes = []string{ng.InstanceType}
			case len(ng.InstanceTypes) > 0:
				p.InstanceTypes = ng.InstanceTypes
			case ng.InstancesDistribution != nil:
				p.InstanceTypes = ng.InstancesDistribution.InstanceTypes
			}
			if len(p.InstanceTypes) == 1 {
				p.Labels = append(p.Labels, Label{Key: v1.LabelInstanceTypeStable, Value: p.InstanceTypes[0], Path: base + ".instanceType", Source: "the cloud provider labels every node with its instance type"})
			}
			ts, paths := eksctlTaints(r, obj, base+".taints", ng.Taints, list.managed)
			for j, t := range ts {
				p.Taints = append(p.Taints, Taint{Taint: t, Path: paths[j]})
			}
			r.Pools = append(r.Pools, p)
			r.Taints = append(r.Taints, k8s.TaintList{Object: obj, Path: FieldPath(base + ".taints"), Taints: ts})
		}
	}
}

// readMachineDeployment reads a Cluster API MachineDeployment or
// MachineSet (cluster.x-k8s.io), with the joinConfiguration of the
// KubeadmConfigTemplate its bootstrap.configRef names and the instance
// type of the AWSMachineTemplate or AzureMachineTemplate its
// infrastructureRef names, if they are among the inventory's objects.
func readMachineDeployment(r *Result, obj *loader.Object, templates, refs map[string]*loader.Object) {
	var spec struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Taints []struct {
				v1.Taint
				Propagation string `json:"propagation"`
			} `json:"taints"`
			Bootstrap struct {
				ConfigRef *struct {
					Kind string `json:"kind"`
					Name string `json:"name"`
				} `json:"configRef"`
			} `json:"bootstrap"`
			InfrastructureRef *struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"infrastructureRef"`
		} `json:"spec"`
	}
	const base = "spec.template"
	if !r.decode(obj, base, &spec) {
		return
	}
	p := &Pool{Object: obj, Format: ClusterAPI, Name: obj.Kind + "/" + obj.Name}
	// Cluster API syncs only these machine labels to the Node (label sync,
	// since v1.4).
	for _, l := range sortedLabels(spec.Metadata.Labels, base+".metadata.labels", "") {
		if capiSyncedLabel(l.Key) {
			p.Labels = append(p.Labels, l)
		}
	}
	// Both propagations are taints workloads must tolerate: Always is
	// kept on the Node, OnInitialization is put there once and Cluster
	// API never removes it (api/core/v1beta2/common_types.go
	// MachineTaintPropagation).
	var machineTaints []v1.Taint
	for i, t := range spec.Spec.Taints {
		machineTaints = append(machineTaints, t.Taint)
		p.Taints = append(p.Taints, Taint{Taint: t.Taint, Path: fmt.Sprintf("%s.spec.taints[%d]", base, i)})
	}
	r.Taints = append(r.Taints, k8s.TaintList{Object: obj, Path: FieldPath(base + ".spec.taints"), Taints: machineTaints})
	if ref := spec.Spec.Bootstrap.ConfigRef; ref != nil && ref.Kind == "KubeadmConfigTemplate" {
		// The kubeadm bootstrap provider adds this join taint and Cluster
		// API removes it once it has synced the Machine's labels
		// (bootstrap/kubeadm/.../kubeadmconfig_controller.go,
		// api/core/v1beta2/common_types.go NodeUninitializedTaint).
		p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintCAPIUninitialized, Effect: v1.TaintEffectNoSchedule}, Path: base + ".spec.bootstrap.configRef", Source: "the kubeadm bootstrap provider registers the node with node.cluster.x-k8s.io/uninitialized:NoSchedule until Cluster API syncs its labels"})
		if tmpl := templates[obj.Namespace+"/"+ref.Name]; tmpl != nil {
			readKubeadmConfigTemplate(r, tmpl, p)
		}
	}
	if ref := spec.Spec.InfrastructureRef; ref != nil {
		if tmpl := refs[ref.Kind+"/"+obj.Namespace+"/"+ref.Name]; tmpl != nil {
			readMachineTemplate(r, tmpl, p)
		}
	}
	r.Pools = append(r.Pools, p)
}

// readMachineTemplate reads the instance type of an AWSMachineTemplate
// (cluster-api-provider-aws api/v1beta2 AWSMachineSpec.InstanceType) or
// AzureMachineTemplate (cluster-api-provider-azure api/v1beta1
// AzureMachineSpec.VMSize) a MachineDeployment's machines are made from;
// the cloud provider labels every node with it.
func readMachineTemplate(r *Result, tmpl *loader.Object, p *Pool) {
	var spec struct {
		InstanceType string `json:"instanceType"`
		VMSize       string `json:"vmSize"`
	}
	const base = "spec.template.spec"
	if !r.decode(tmpl, base, &spec) {
		return
	}
	t, path := spec.InstanceType, base+".instanceType"
	if tmpl.Kind == "AzureMachineTemplate" {
		t, path = spec.VMSize, base+".vmSize"
	}
	if t == "" {
		return
	}
	p.InstanceTypes = []string{t}
	p.Labels = append(p.Labels, Label{Key: v1.LabelInstanceTypeStable, Value: t, Path: path, Source: "the cloud provider labels every node with its instance type (" + tmpl.Kind + "/" + tmpl.Name + ")"})
}

// capiSyncedLabel reports whether Cluster API copies a Machine label of
// this key to its Node (util/labels/helpers.go GetManagedLabels): the
// node-role.kubernetes.io prefix exactly, and the
// node-restriction.kubernetes.io and node.cluster.x-k8s.io domains with
// their subdomains.
func capiSyncedLabel(key string) bool {
	prefix, _, _ := strings.Cut(key, "/")
	if prefix == "node-role.kubernetes.io" {
		return true
	}
	for _, d := range []string{"node-restriction.kubernetes.io", "node.cluster.x-k8s.io"} {
		if prefix == d || strings.HasSuffix(prefix, "."+d) {
			return true
		}
	}
	return false
}

// kubeletRefuses reports whether the kubelet refuses to start with this
// key in --node-labels (cmd/kubelet/app/options/options.go
// ValidateKubeletFlags): a kubernetes.io or k8s.io key, subdomains
// included, that is not one of the labels the kubelet sets itself or in
// the kubelet.kubernetes.io and node.kubernetes.io namespaces
// (k8s.io/kubelet/pkg/apis/well_known_labels.go IsKubeletLabel).
func kubeletRefuses(key string) bool {
	ns, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	under := func(domain string) bool { return ns == domain || strings.HasSuffix(ns, "."+domain) }
	if !under("kubernetes.io") && !under("k8s.io") {
		return false
	}
	switch key {
	case v1.LabelHostname, v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion, v1.LabelInstanceType,
		"beta.kubernetes.io/os", "beta.kubernetes.io/arch",
		v1.LabelTopologyZone, v1.LabelTopologyRegion, v1.LabelInstanceTypeStable, v1.LabelOSStable, v1.LabelArchStable:
		return false
	}
	return !under("kubelet.kubernetes.io") && !under("node.kubernetes.io")
}

// readKubeadmConfigTemplate adds what kubeadm join registers the node with:
// nodeRegistration.taints, and the labels of the kubelet's --node-labels.
func readKubeadmConfigTemplate(r *Result, tmpl *loader.Object, p *Pool) {
	readNodeRegistration(r, tmpl, "spec.template.spec.joinConfiguration.nodeRegistration", p, nil)
}

// readNodeRegistration adds what kubeadm registers a node with, from the
// nodeRegistration at base in obj (a KubeadmConfigTemplate, a
// KubeadmConfig, a KubeadmControlPlane): its taints, or defaults when
// taints is not written (kubeadm's control-plane taint; an empty list is
// no taint), and the labels of the kubelet's --node-labels.
func readNodeRegistration(r *Result, tmpl *loader.Object, base string, p *Pool, defaults []Taint) {
	var reg struct {
		Taints           *[]v1.Taint     `json:"taints"`
		KubeletExtraArgs json.RawMessage `json:"kubeletExtraArgs"`
	}
	if !r.decode(tmpl, base, &reg) {
		return
	}
	if reg.Taints == nil {
		p.Taints = append(p.Taints, defaults...)
	} else {
		for i, t := range *reg.Taints {
			p.Taints = append(p.Taints, Taint{Taint: t, Path: fmt.Sprintf("%s.taints[%d]", base, i), Object: tmpl, Source: tmpl.Kind + "/" + tmpl.Name})
		}
		r.Taints = append(r.Taints, k8s.TaintList{Object: tmpl, Path: FieldPath(base + ".taints"), Taints: *reg.Taints})
	}
	// kubeletExtraArgs is a map in v1beta1 and a list of {name, value}
	// in v1beta2.
	args := map[string]string{}
	argPath := map[string]string{}
	if raw := reg.KubeletExtraArgs; len(raw) > 0 && raw[0] == '[' {
		var list []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		}
		if r.decode(tmpl, base+".kubeletExtraArgs", &list) {
			for i, a := range list {
				args[a.Name] = a.Value
				argPath[a.Name] = fmt.Sprintf("%s.kubeletExtraArgs[%d]", base, i)
			}
		}
	} else if len(raw) > 0 {
		if r.decode(tmpl, base+".kubeletExtraArgs", &args) {
			for k := range args {
				argPath[k] = fmt.Sprintf("%s.kubeletExtraArgs[%s]", base, k)
			}
		}
	}
	if s := args["node-labels"]; s != "" {
		var refused []string
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch {
			case k == "":
			case kubeletRefuses(k):
				refused = append(refused, k)
			default:
				p.Labels = append(p.Labels, Label{Key: k, Value: v, Path: argPath["node-labels"], Source: "kubelet --node-labels of " + tmpl.Kind + "/" + tmpl.Name})
			}
		}
		if len(refused) > 0 {
			// The pool is still read, without the refused labels: no node
			// of it ever carries them.
			r.Issues = append(r.Issues, Issue{Object: tmpl, Path: argPath["node-labels"], Msg: fmt.Sprintf("the kubelet refuses to start: unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: %v (allowed there: the kubelet.kubernetes.io and node.kubernetes.io namespaces and the kubelet's own labels; set %s on the Machine template's metadata.labels, which Cluster API syncs to the Node)", refused, strings.Join(refused, ", "))})
		}
	}
	if args["cloud-provider"] == "external" {
		p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintCloudUninitialized, Value: "true", Effect: v1.TaintEffectNoSchedule}, Path: argPath["cloud-provider"], Object: tmpl, Source: "a kubelet with --cloud-provider=external registers the node with node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule until the cloud controller manager initializes it"})
	}
}

// readInstanceGroup reads a kOps InstanceGroup (kops.k8s.io/v1alpha2), as
// kubernetes/kops v1.37 builds its nodes: labels from pkg/nodelabels
// BuildNodeLabels (spec.kubelet.nodeLabels, the role's labels, then
// spec.nodeLabels; kops-controller applies them, so reserved keys are
// allowed), taints from upup/pkg/fi/cloudup/populate_instancegroup_spec.go
// (spec.taints and spec.kubelet.taints merged, plus the role's). A Bastion
// group's machines never join the cluster: it is no pool.
func readInstanceGroup(r *Result, obj *loader.Object) {
	var spec struct {
		Role        string            `json:"role"`
		MachineType string            `json:"machineType"`
		Manager     string            `json:"manager"`
		NodeLabels  map[string]string `json:"nodeLabels"`
		Taints      []string          `json:"taints"`
		Kubelet     *struct {
			NodeLabels map[string]string `json:"nodeLabels"`
			Taints     []string          `json:"taints"`
		} `json:"kubelet"`
	}
	if !r.decode(obj, "spec", &spec) {
		return
	}
	if spec.Role == "Bastion" {
		return
	}
	p := &Pool{Object: obj, Format: Kops, Name: "InstanceGroup/" + obj.Name}
	labels := map[string]Label{}
	set := func(ls ...Label) {
		for _, l := range ls {
			labels[l.Key] = l
		}
	}
	if spec.Kubelet != nil {
		set(sortedLabels(spec.Kubelet.NodeLabels, "spec.kubelet.nodeLabels", "")...)
	}
	controlPlane := spec.Role == "ControlPlane" || spec.Role == "Master"
	switch {
	case controlPlane:
		for _, k := range []string{TaintControlPlane, "kops.k8s.io/kops-controller-pki", "node.kubernetes.io/exclude-from-external-load-balancers"} {
			set(Label{Key: k, Path: "spec.role", Source: "kOps labels control-plane nodes " + k + " (pkg/nodelabels BuildMandatoryControlPlaneLabels)"})
		}
	case spec.Role == "APIServer":
		set(Label{Key: LabelKopsAPIServer, Path: "spec.role", Source: "kOps labels API server nodes node-role.kubernetes.io/api-server (pkg/nodelabels BuildNodeLabels)"})
	case spec.Role == "Node" || spec.Role == "":
		set(Label{Key: "node-role.kubernetes.io/node", Path: "spec.role", Source: "kOps labels worker nodes node-role.kubernetes.io/node (pkg/nodelabels BuildNodeLabels)"})
	}
	set(sortedLabels(spec.NodeLabels, "spec.nodeLabels", "")...)
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.Labels = append(p.Labels, labels[k])
	}
	p.Labels = append(p.Labels, Label{Key: LabelKopsInstanceGroup, Value: obj.Name, Path: "metadata.name", Source: "kOps labels every node of an instance group with kops.k8s.io/instancegroup"})
	if spec.MachineType != "" && !strings.Contains(spec.MachineType, ",") {
		p.InstanceTypes = []string{spec.MachineType}
		p.Labels = append(p.Labels, Label{Key: v1.LabelInstanceTypeStable, Value: spec.MachineType, Path: "spec.machineType", Source: "the cloud provider labels every node with its instance type"})
	}
	// The taints are a set: one written in both lists is one taint.
	seen := map[string]bool{}
	add := func(list []string, path string) {
		taints := k8s.TaintList{Object: obj, Path: FieldPath(path)}
		for i, s := range list {
			t := parseKopsTaint(s)
			taints.Taints = append(taints.Taints, t)
			if !seen[s] {
				seen[s] = true
				p.Taints = append(p.Taints, Taint{Taint: t, Path: fmt.Sprintf("%s[%d]", path, i)})
			}
		}
		r.Taints = append(r.Taints, taints)
	}
	add(spec.Taints, "spec.taints")
	if spec.Kubelet != nil {
		add(spec.Kubelet.Taints, "spec.kubelet.taints")
	}
	switch {
	case controlPlane:
		p.Taints = append(p.Taints, Taint{Taint: v1.Taint{Key: TaintControlPlane, Effect: v1.TaintEffectNoSchedule}, Path: "spec.role", Source: "kOps taints control-plane nodes node-role.kubernetes.io/control-plane:NoSchedule"})
	case spec.Role == "APIServer":
		p.Taints = append(p.Taints, Taint{Taint: v1.Taint{Key: LabelKopsAPIServer, Effect: v1.TaintEffectNoSchedule}, Path: "spec.role", Source: "kOps taints API server nodes node-role.kubernetes.io/api-server:NoSchedule"})
	}
	if spec.Manager == "Karpenter" {
		p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintKarpenterUnregistered, Effect: v1.TaintEffectNoExecute}, Path: "spec.manager", Source: "kOps registers Karpenter-managed nodes with karpenter.sh/unregistered:NoExecute, which Karpenter removes"})
	}
	r.Pools = append(r.Pools, p)
}

// parseKopsTaint reads kOps's "key=value:Effect" or "key:Effect", the form
// kubelet's --register-with-taints takes.
func parseKopsTaint(s string) v1.Taint {
	kv, effect, _ := strings.Cut(s, ":")
	key, value, _ := strings.Cut(kv, "=")
	return v1.Taint{Key: key, Value: value, Effect: v1.TaintEffect(effect)}
}

// readOpenShiftMachineSet reads an OpenShift MachineSet
// (machine.openshift.io/v1beta1).
func readOpenShiftMachineSet(r *Result, obj *loader.Object) {
	var spec struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Taints       []v1.Taint `json:"taints"`
		ProviderSpec struct {
			Value struct {
				InstanceType   string `json:"instanceType"` // AWS
				VMSize         string `json:"vmSize"`       // Azure
				MachineType    string `json:"machineType"`  // GCP
				UserDataSecret *struct {
					Name string `json:"name"`
				} `json:"userDataSecret"`
			} `json:"value"`
		} `json:"providerSpec"`
	}
	const base = "spec.template.spec"
	if !r.decode(obj, base, &spec) {
		return
	}
	p := &Pool{Object: obj, Format: OpenShift, Name: "MachineSet/" + obj.Name}
	p.Labels = sortedLabels(spec.Metadata.Labels, base+".metadata.labels", "")
	v := spec.ProviderSpec.Value
	if u := v.UserDataSecret; u != nil && u.Name == "worker-user-data" {
		p.Labels = append(p.Labels, Label{Key: LabelOpenShiftWorker, Path: base + ".providerSpec.value.userDataSecret.name", Source: "machines booted with the worker user data join the worker MachineConfigPool, whose kubelet labels the node node-role.kubernetes.io/worker"})
	}
	for _, it := range []struct{ v, field string }{{v.InstanceType, "instanceType"}, {v.VMSize, "vmSize"}, {v.MachineType, "machineType"}} {
		if it.v != "" {
			p.InstanceTypes = []string{it.v}
			p.Labels = append(p.Labels, Label{Key: v1.LabelInstanceTypeStable, Value: it.v, Path: base + ".providerSpec.value." + it.field, Source: "the cloud provider labels every node with its instance type"})
			break
		}
	}
	p.Taints = taintsAt(spec.Taints, base+".taints")
	r.Pools = append(r.Pools, p)
	r.Taints = append(r.Taints, k8s.TaintList{Object: obj, Path: FieldPath(base + ".taints"), Taints: spec.Taints})
}

// readMachinePool reads a Cluster API MachinePool (cluster.x-k8s.io): its
// bootstrap KubeadmConfig's join registration, the kubeadm join taint, and
// for an EKS managed node group (infrastructureRef AWSManagedMachinePool,
// cluster-api-provider-aws exp/api/v1beta2) that pool's labels, taints,
// instance type and capacity type, which EKS puts on its nodes.
func readMachinePool(r *Result, obj *loader.Object, refs map[string]*loader.Object) {
	type ref *struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	}
	var spec struct {
		Bootstrap struct {
			ConfigRef ref `json:"configRef"`
		} `json:"bootstrap"`
		InfrastructureRef ref `json:"infrastructureRef"`
	}
	const base = "spec.template.spec"
	if !r.decode(obj, base, &spec) {
		return
	}
	p := &Pool{Object: obj, Format: ClusterAPI, Name: "MachinePool/" + obj.Name}
	if c := spec.Bootstrap.ConfigRef; c != nil && c.Kind == "KubeadmConfig" {
		p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintCAPIUninitialized, Effect: v1.TaintEffectNoSchedule}, Path: base + ".bootstrap.configRef", Source: "the kubeadm bootstrap provider registers the node with node.cluster.x-k8s.io/uninitialized:NoSchedule until Cluster API syncs its labels"})
		if cfg := refs["KubeadmConfig/"+obj.Namespace+"/"+c.Name]; cfg != nil {
			readNodeRegistration(r, cfg, "spec.joinConfiguration.nodeRegistration", p, nil)
		}
	}
	if i := spec.InfrastructureRef; i != nil && i.Kind == "AWSManagedMachinePool" {
		if mp := refs["AWSManagedMachinePool/"+obj.Namespace+"/"+i.Name]; mp != nil {
			readAWSManagedMachinePool(r, mp, p)
		}
	}
	r.Pools = append(r.Pools, p)
}

// awsTaintEffects are the effects of an AWSManagedMachinePool's taints
// (exp/api/v1beta2/types.go TaintEffect) as Kubernetes names them.
var awsTaintEffects = map[string]v1.TaintEffect{
	"no-schedule":        v1.TaintEffectNoSchedule,
	"no-execute":         v1.TaintEffectNoExecute,
	"prefer-no-schedule": v1.TaintEffectPreferNoSchedule,
}

func readAWSManagedMachinePool(r *Result, mp *loader.Object, p *Pool) {
	var spec struct {
		Labels map[string]string `json:"labels"`
		Taints []struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Effect string `json:"effect"`
		} `json:"taints"`
		InstanceType string `json:"instanceType"`
		CapacityType string `json:"capacityType"`
	}
	if !r.decode(mp, "spec", &spec) {
		return
	}
	for _, l := range sortedLabels(spec.Labels, "spec.labels", "") {
		l.Source = "EKS labels the nodes of the managed node group AWSManagedMachinePool/" + mp.Name + " with it"
		p.Labels = append(p.Labels, l)
	}
	capacity := "ON_DEMAND"
	if spec.CapacityType == "spot" {
		capacity = "SPOT"
	}
	p.Labels = append(p.Labels, Label{Key: LabelEKSCapacityType, Value: capacity, Path: "spec.capacityType", Source: "EKS labels the nodes of a managed node group with eks.amazonaws.com/capacityType"})
	if spec.InstanceType != "" {
		p.InstanceTypes = []string{spec.InstanceType}
		p.Labels = append(p.Labels, Label{Key: v1.LabelInstanceTypeStable, Value: spec.InstanceType, Path: "spec.instanceType", Source: "the cloud provider labels every node with its instance type"})
	}
	list := k8s.TaintList{Object: mp, Path: FieldPath("spec.taints")}
	for i, t := range spec.Taints {
		effect, ok := awsTaintEffects[t.Effect]
		if !ok {
			r.Issues = append(r.Issues, Issue{Object: mp, Path: fmt.Sprintf("spec.taints[%d].effect", i), Msg: fmt.Sprintf("unsupported taint effect %q: cluster-api-provider-aws takes no-schedule, no-execute or prefer-no-schedule", t.Effect), AtValue: true})
			continue
		}
		taint := v1.Taint{Key: t.Key, Value: t.Value, Effect: effect}
		list.Taints = append(list.Taints, taint)
		p.Taints = append(p.Taints, Taint{Taint: taint, Path: fmt.Sprintf("spec.taints[%d]", i), Object: mp, Source: "AWSManagedMachinePool/" + mp.Name})
	}
	r.Taints = append(r.Taints, list)
}

// readKubeadmControlPlane reads a KubeadmControlPlane
// (controlplane.cluster.x-k8s.io): its machines are control-plane nodes,
// registered by kubeadm init (the first) and join (the others) with the
// nodeRegistration of each, kubeadm's control-plane label and
// exclude-from-external-load-balancers label, and kubeadm's control-plane
// taint when taints is not written (kubeadm constants
// ControlPlaneTaint; an empty list is no taint).
func readKubeadmControlPlane(r *Result, obj *loader.Object) {
	p := &Pool{Object: obj, Format: ClusterAPI, Name: "KubeadmControlPlane/" + obj.Name}
	p.Labels = append(p.Labels,
		Label{Key: TaintControlPlane, Path: "kind", Source: "kubeadm labels control-plane nodes node-role.kubernetes.io/control-plane"},
		Label{Key: v1.LabelNodeExcludeBalancers, Path: "kind", Source: "kubeadm labels control-plane nodes node.kubernetes.io/exclude-from-external-load-balancers"})
	defaults := []Taint{{Taint: v1.Taint{Key: TaintControlPlane, Effect: v1.TaintEffectNoSchedule}, Path: "spec.kubeadmConfigSpec", Source: "kubeadm taints control-plane nodes node-role.kubernetes.io/control-plane:NoSchedule unless nodeRegistration.taints is written"}}
	// Every machine but the first joins: joinConfiguration is what most
	// of the pool's nodes carry.
	readNodeRegistration(r, obj, "spec.kubeadmConfigSpec.joinConfiguration.nodeRegistration", p, defaults)
	p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintCAPIUninitialized, Effect: v1.TaintEffectNoSchedule}, Path: "spec.kubeadmConfigSpec", Source: "the kubeadm bootstrap provider registers the node with node.cluster.x-k8s.io/uninitialized:NoSchedule until Cluster API syncs its labels"})
	r.Pools = append(r.Pools, p)
}
