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
	LabelKarpenterNodePool = "karpenter.sh/nodepool"
	LabelEksctlNodeGroup   = "alpha.eksctl.io/nodegroup-name"
	LabelEksctlCluster     = "alpha.eksctl.io/cluster-name"
	LabelEKSNodeGroup      = "eks.amazonaws.com/nodegroup"
	LabelEKSCapacityType   = "eks.amazonaws.com/capacityType"
	LabelKopsInstanceGroup = "kops.k8s.io/instancegroup"
	LabelOpenShiftWorker   = "node-role.kubernetes.io/worker"

	TaintKarpenterUnregistered = "karpenter.sh/unregistered"
	TaintCloudUninitialized    = "node.cloudprovider.kubernetes.io/uninitialized"
	TaintControlPlane          = "node-role.kubernetes.io/control-plane"
)

// readNodePool reads a Karpenter NodePool (karpenter.sh/v1).
func readNodePool(r *Result, obj *loader.Object) {
	var spec struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
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
	// minValues only asks for variety of instance types when launching;
	// it never makes a pod incompatible (ignored).
	for i, q := range spec.Spec.Requirements {
		p.Requirements = append(p.Requirements, Requirement{Key: q.Key, Operator: q.Operator, Values: q.Values, Path: fmt.Sprintf("%s.spec.requirements[%d]", base, i)})
		if q.Key == v1.LabelInstanceTypeStable && q.Operator == v1.NodeSelectorOpIn {
			p.InstanceTypes = append(p.InstanceTypes, q.Values...)
		}
	}
	p.Taints = taintsAt(spec.Spec.Taints, base+".spec.taints")
	p.StartupTaints = taintsAt(spec.Spec.StartupTaints, base+".spec.startupTaints")
	p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintKarpenterUnregistered, Effect: v1.TaintEffectNoExecute}, Path: "kind", Source: "Karpenter v1 registers every node with karpenter.sh/unregistered:NoExecute and removes it once the node is registered (pkg/apis/v1/taints.go UnregisteredNoExecuteTaint)"})
	r.Pools = append(r.Pools, p)
	r.Taints = append(r.Taints, k8s.TaintList{Object: obj, Path: FieldPath(base + ".spec.taints"), Taints: spec.Spec.Taints}, k8s.TaintList{Object: obj, Path: FieldPath(base + ".spec.startupTaints"), Taints: spec.Spec.StartupTaints})
}

// eksctlTaints reads eksctl's taints, written as a list of taints or, in
// older configs, as a map of key to "value:Effect".
func eksctlTaints(r *Result, obj *loader.Object, path string, raw json.RawMessage) ([]v1.Taint, []string) {
	if len(raw) == 0 || string(raw) == "null" {
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
		value, effect, _ := strings.Cut(m[k], ":")
		ts = append(ts, v1.Taint{Key: k, Value: value, Effect: v1.TaintEffect(effect)})
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
				capacity := "ON_DEMAND"
				if ng.Spot {
					capacity = "SPOT"
				}
				p.Labels = append(p.Labels,
					Label{Key: LabelEKSNodeGroup, Value: ng.Name, Path: base + ".name", Source: "EKS labels the nodes of a managed node group with eks.amazonaws.com/nodegroup"},
					Label{Key: LabelEKSCapacityType, Value: capacity, Path: base + ".spot", Source: "EKS labels the nodes of a managed node group with eks.amazonaws.com/capacityType (ON_DEMAND or SPOT)"})
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
			ts, paths := eksctlTaints(r, obj, base+".taints", ng.Taints)
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
// KubeadmConfigTemplate its bootstrap.configRef names, if it is among the
// inventory's objects.
func readMachineDeployment(r *Result, obj *loader.Object, templates map[string]*loader.Object) {
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
	var machineTaints []v1.Taint
	for i, t := range spec.Spec.Taints {
		machineTaints = append(machineTaints, t.Taint)
		taint := Taint{Taint: t.Taint, Path: fmt.Sprintf("%s.spec.taints[%d]", base, i)}
		if t.Propagation == "OnInitialization" {
			taint.Source = "propagation: OnInitialization puts the taint on the Node once, at creation"
			p.StartupTaints = append(p.StartupTaints, taint)
		} else {
			p.Taints = append(p.Taints, taint)
		}
	}
	r.Taints = append(r.Taints, k8s.TaintList{Object: obj, Path: FieldPath(base + ".spec.taints"), Taints: machineTaints})
	if ref := spec.Spec.Bootstrap.ConfigRef; ref != nil && ref.Kind == "KubeadmConfigTemplate" {
		if tmpl := templates[obj.Namespace+"/"+ref.Name]; tmpl != nil {
			readKubeadmConfigTemplate(r, tmpl, p)
		}
	}
	r.Pools = append(r.Pools, p)
}

// capiSyncedLabel reports whether Cluster API copies a Machine label of
// this key to its Node: the node-role.kubernetes.io and
// node-restriction.kubernetes.io domains and node.cluster.x-k8s.io.
func capiSyncedLabel(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range []string{"node-role.kubernetes.io", "node-restriction.kubernetes.io", "node.cluster.x-k8s.io"} {
		if prefix == d || strings.HasSuffix(prefix, "."+d) {
			return true
		}
	}
	return false
}

// readKubeadmConfigTemplate adds what kubeadm join registers the node with:
// nodeRegistration.taints, and the labels of the kubelet's --node-labels.
func readKubeadmConfigTemplate(r *Result, tmpl *loader.Object, p *Pool) {
	const base = "spec.template.spec.joinConfiguration.nodeRegistration"
	var reg struct {
		Taints           []v1.Taint      `json:"taints"`
		KubeletExtraArgs json.RawMessage `json:"kubeletExtraArgs"`
	}
	if !r.decode(tmpl, base, &reg) {
		return
	}
	for i, t := range reg.Taints {
		p.Taints = append(p.Taints, Taint{Taint: t, Path: fmt.Sprintf("%s.taints[%d]", base, i), Object: tmpl, Source: "KubeadmConfigTemplate/" + tmpl.Name})
	}
	r.Taints = append(r.Taints, k8s.TaintList{Object: tmpl, Path: FieldPath(base + ".taints"), Taints: reg.Taints})
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
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			if k != "" {
				p.Labels = append(p.Labels, Label{Key: k, Value: v, Path: argPath["node-labels"], Source: "kubelet --node-labels of KubeadmConfigTemplate/" + tmpl.Name})
			}
		}
	}
	if args["cloud-provider"] == "external" {
		p.StartupTaints = append(p.StartupTaints, Taint{Taint: v1.Taint{Key: TaintCloudUninitialized, Value: "true", Effect: v1.TaintEffectNoSchedule}, Path: argPath["cloud-provider"], Object: tmpl, Source: "a kubelet with --cloud-provider=external registers the node with node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule until the cloud controller manager initializes it"})
	}
}

// readInstanceGroup reads a kOps InstanceGroup (kops.k8s.io/v1alpha2).
func readInstanceGroup(r *Result, obj *loader.Object) {
	var spec struct {
		Role        string            `json:"role"`
		MachineType string            `json:"machineType"`
		NodeLabels  map[string]string `json:"nodeLabels"`
		Taints      []string          `json:"taints"`
	}
	if !r.decode(obj, "spec", &spec) {
		return
	}
	p := &Pool{Object: obj, Format: Kops, Name: "InstanceGroup/" + obj.Name}
	p.Labels = sortedLabels(spec.NodeLabels, "spec.nodeLabels", "")
	p.Labels = append(p.Labels, Label{Key: LabelKopsInstanceGroup, Value: obj.Name, Path: "metadata.name", Source: "kOps labels every node of an instance group with kops.k8s.io/instancegroup"})
	controlPlane := spec.Role == "ControlPlane" || spec.Role == "Master"
	if controlPlane {
		p.Labels = append(p.Labels, Label{Key: TaintControlPlane, Path: "spec.role", Source: "kOps labels control-plane nodes node-role.kubernetes.io/control-plane"})
	} else if spec.Role == "Node" || spec.Role == "" {
		p.Labels = append(p.Labels, Label{Key: "node-role.kubernetes.io/node", Path: "spec.role", Source: "kOps labels worker nodes node-role.kubernetes.io/node"})
	}
	if spec.MachineType != "" && !strings.Contains(spec.MachineType, ",") {
		p.InstanceTypes = []string{spec.MachineType}
		p.Labels = append(p.Labels, Label{Key: v1.LabelInstanceTypeStable, Value: spec.MachineType, Path: "spec.machineType", Source: "the cloud provider labels every node with its instance type"})
	}
	list := k8s.TaintList{Object: obj, Path: FieldPath("spec.taints")}
	for i, s := range spec.Taints {
		t := parseKopsTaint(s)
		p.Taints = append(p.Taints, Taint{Taint: t, Path: fmt.Sprintf("spec.taints[%d]", i)})
		list.Taints = append(list.Taints, t)
	}
	if controlPlane {
		p.Taints = append(p.Taints, Taint{Taint: v1.Taint{Key: TaintControlPlane, Effect: v1.TaintEffectNoSchedule}, Path: "spec.role", Source: "kOps taints control-plane nodes node-role.kubernetes.io/control-plane:NoSchedule"})
	}
	r.Pools = append(r.Pools, p)
	r.Taints = append(r.Taints, list)
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
