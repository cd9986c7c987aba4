// Package pools reads node pool definitions into one neutral description,
// so that a repository without Node objects still has an inventory: pools
// that scale to zero have no Node at all, yet they are where pods go.
//
// Formats: Karpenter NodePool (karpenter.sh/v1), eksctl ClusterConfig
// (nodeGroups and managedNodeGroups), Cluster API MachineDeployment and
// MachineSet with the KubeadmConfigTemplate they reference, kOps
// InstanceGroup, OpenShift MachineSet, Config Connector ContainerNodePool,
// Azure Service Operator agent pools, and (ReadTerraform) EKS, GKE and
// AKS pools in Terraform and terraform show -json. Each pool says which labels its
// nodes carry (written and derived: the labels the platform puts on every
// node of the pool), which requirements constrain them (Karpenter), which
// taints workloads must tolerate, which taints are there only at start-up,
// and where each was written. docs/inventory.md lists every field and
// derived label or taint with its upstream source.
package pools

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// Format is the kind of definition a pool was read from.
type Format string

const (
	Karpenter     Format = "Karpenter NodePool"
	Eksctl        Format = "eksctl ClusterConfig"
	ClusterAPI    Format = "Cluster API"
	Kops          Format = "kOps InstanceGroup"
	OpenShift     Format = "OpenShift MachineSet"
	unknownFormat Format = ""
)

// Pool is one node pool: every node it makes looks alike to the scheduler.
type Pool struct {
	// Object is the definition; Path is where the pool sits in it
	// ("" for the whole object, nodeGroups[2] for an eksctl group).
	Object *loader.Object
	Path   string
	Format Format
	// Name names the pool in messages: NodePool/gpu,
	// ClusterConfig/prod nodeGroups[gpu].
	Name string
	// Labels are the labels every node of the pool carries.
	Labels []Label
	// Requirements constrain the labels of the pool's nodes the way
	// Karpenter's do (only Karpenter pools have them).
	Requirements []Requirement
	// Taints are on every node of the pool for its whole life: workloads
	// must tolerate them.
	Taints []Taint
	// StartupTaints are on a node only until something removes them
	// (Karpenter startupTaints, the cloud provider's uninitialized taint):
	// workloads need not tolerate them; DaemonSets that must run before
	// they go do.
	StartupTaints []Taint
	// InstanceTypes are the instance types the pool pins, if any.
	InstanceTypes []string
	// Resources are what the pool's largest node offers (SetResources);
	// nil when unknown, UnknownResources saying why.
	Resources        *Resources
	UnknownResources string
	// Accelerators are the GPUs the definition itself gives its nodes
	// (a GKE guest_accelerator, an EKS NVIDIA AMI), if any.
	Accelerators []Accelerator
	// AWS: a Karpenter pool whose nodeClassRef is an EC2NodeClass, so the
	// AWS provider's well-known labels and restricted domain apply.
	AWS bool
	// AutoMode: an EKS Auto Mode built-in NodePool, whose nodes carry
	// Karpenter's and Auto Mode's well-known labels (eks.amazonaws.com/).
	AutoMode bool
	// Unknown is what the definition leaves unknown that placement turns
	// on (nil: nothing); see Variant.
	Unknown *Unknown
}

// Label is one label of a pool's nodes.
type Label struct {
	Key, Value string
	// Path is where the label is written, or the field that implies it.
	Path string
	// Source says where a derived label comes from ("" when written).
	Source string
}

// Taint is one taint of a pool's nodes.
type Taint struct {
	v1.Taint
	// Path is where the taint is written, or the field that implies it,
	// in Object, or in the pool's Object when Object is nil.
	Path   string
	Object *loader.Object
	// Source says where a taint the platform adds comes from ("" when
	// written).
	Source string
}

// Requirement is a Karpenter requirement: a node selector requirement the
// pool's nodes satisfy.
type Requirement struct {
	Key      string
	Operator v1.NodeSelectorOperator
	Values   []string
	Path     string
	// Unknown: an Exists that stands for a label whose value is not
	// known (a Terraform variable), not for a value left open by design.
	Unknown bool
}

// FieldPath turns a path in the form Pool paths are written in
// (spec.taints[0], labels[kubernetes.io/os]) into a field.Path.
func FieldPath(s string) *field.Path {
	var p *field.Path
	child := func(name string) {
		if name == "" {
			return
		}
		if p == nil {
			p = field.NewPath(name)
		} else {
			p = p.Child(name)
		}
	}
	var name strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.':
			child(name.String())
			name.Reset()
		case '[':
			child(name.String())
			name.Reset()
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				end = len(s) - i
			}
			sub := s[i+1 : i+end]
			if p == nil {
				p = field.NewPath("")
			}
			if n, err := strconv.Atoi(sub); err == nil {
				p = p.Index(n)
			} else {
				p = p.Key(sub)
			}
			i += end
		default:
			name.WriteByte(c)
		}
	}
	child(name.String())
	return p
}

// Issue is a part of a definition that cannot be read.
type Issue struct {
	Object *loader.Object
	Path   string
	Msg    string
	// AtValue: the value is of the wrong type (jsonscan.DecodeError.Value).
	AtValue bool
}

// Result is what Read found.
type Result struct {
	Pools  []*Pool
	Taints []k8s.TaintList
	Issues []Issue
}

// IsDefinition reports whether obj is a node pool definition or an object
// one references (a KubeadmConfigTemplate, KubeadmConfig,
// AWSManagedMachinePool, AWSMachineTemplate or AzureMachineTemplate).
func IsDefinition(obj *loader.Object) bool {
	return formatOf(obj) != unknownFormat || isKubeadmConfigTemplate(obj) || referenced(obj) != ""
}

// referenced is the kind of a Cluster API object a MachinePool or a
// MachineDeployment references that taintlint reads, or "".
func referenced(obj *loader.Object) string {
	switch {
	case obj.Kind == "KubeadmConfig" && group(obj.APIVersion) == "bootstrap.cluster.x-k8s.io",
		obj.Kind == "AWSManagedMachinePool" && group(obj.APIVersion) == "infrastructure.cluster.x-k8s.io",
		(obj.Kind == "AWSMachineTemplate" || obj.Kind == "AzureMachineTemplate") && group(obj.APIVersion) == "infrastructure.cluster.x-k8s.io":
		return obj.Kind
	}
	return ""
}

func group(apiVersion string) string {
	g, _, _ := strings.Cut(apiVersion, "/")
	return g
}

func formatOf(obj *loader.Object) Format {
	switch {
	case obj.Kind == "NodePool" && group(obj.APIVersion) == "karpenter.sh":
		return Karpenter
	case obj.Kind == "ClusterConfig" && group(obj.APIVersion) == "eksctl.io":
		return Eksctl
	case (obj.Kind == "MachineDeployment" || obj.Kind == "MachineSet" || obj.Kind == "MachinePool") && group(obj.APIVersion) == "cluster.x-k8s.io",
		obj.Kind == "KubeadmControlPlane" && group(obj.APIVersion) == "controlplane.cluster.x-k8s.io":
		return ClusterAPI
	case obj.Kind == "InstanceGroup" && group(obj.APIVersion) == "kops.k8s.io":
		return Kops
	case obj.Kind == "MachineSet" && group(obj.APIVersion) == "machine.openshift.io":
		return OpenShift
	}
	return cloudFormat(obj)
}

func isKubeadmConfigTemplate(obj *loader.Object) bool {
	return obj.Kind == "KubeadmConfigTemplate" && group(obj.APIVersion) == "bootstrap.cluster.x-k8s.io"
}

// Read reads every pool definition among objs. Objects of other kinds are
// left alone.
func Read(objs []*loader.Object) *Result {
	r := &Result{}
	templates := map[string]*loader.Object{} // namespace/name of KubeadmConfigTemplates
	refs := map[string]*loader.Object{}      // kind/namespace/name of the other objects pools reference
	for _, obj := range objs {
		if isKubeadmConfigTemplate(obj) {
			templates[obj.Namespace+"/"+obj.Name] = obj
		}
		if k := referenced(obj); k != "" {
			refs[k+"/"+obj.Namespace+"/"+obj.Name] = obj
		}
	}
	for _, obj := range objs {
		switch formatOf(obj) {
		case Karpenter:
			readNodePool(r, obj)
		case Eksctl:
			readClusterConfig(r, obj)
		case ClusterAPI:
			switch obj.Kind {
			case "MachinePool":
				readMachinePool(r, obj, refs)
			case "KubeadmControlPlane":
				readKubeadmControlPlane(r, obj)
			default:
				readMachineDeployment(r, obj, templates, refs)
			}
		case Kops:
			readInstanceGroup(r, obj)
		case OpenShift:
			readOpenShiftMachineSet(r, obj)
		case ConfigConnector:
			readContainerNodePool(r, obj)
		case AzureOperator:
			if obj.Kind == "ManagedCluster" {
				readManagedCluster(r, obj)
			} else {
				readAgentPool(r, obj)
			}
		}
	}
	return r
}

// decode decodes the object's field at path into v, recording a type
// mismatch as an issue; ok is false then.
func (r *Result) decode(obj *loader.Object, path string, v any) bool {
	err := obj.Decode(path, v)
	if err == nil {
		return true
	}
	var des jsonscan.DecodeErrors
	switch {
	case errors.As(err, &des):
		for _, de := range des {
			r.Issues = append(r.Issues, Issue{Object: obj, Path: de.Path, Msg: de.Msg, AtValue: de.Value})
		}
	default:
		var de *jsonscan.DecodeError
		if errors.As(err, &de) {
			r.Issues = append(r.Issues, Issue{Object: obj, Path: de.Path, Msg: de.Msg, AtValue: de.Value})
		} else {
			r.Issues = append(r.Issues, Issue{Object: obj, Path: path, Msg: err.Error()})
		}
	}
	return false
}

// sortedLabels turns a label map into labels in key order, at path.key.
func sortedLabels(m map[string]string, path, source string) []Label {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Label, 0, len(keys))
	for _, k := range keys {
		out = append(out, Label{Key: k, Value: m[k], Path: fmt.Sprintf("%s[%s]", path, k), Source: source})
	}
	return out
}

// taintsAt are the written taints of a list at path.
func taintsAt(ts []v1.Taint, path string) []Taint {
	out := make([]Taint, 0, len(ts))
	for i, t := range ts {
		out = append(out, Taint{Taint: t, Path: fmt.Sprintf("%s[%d]", path, i)})
	}
	return out
}

// NodeLabels are the pool's labels as one node would carry them (a
// later label of a key wins, as the platforms apply derived labels last).
func (p *Pool) NodeLabels() map[string]string {
	m := make(map[string]string, len(p.Labels))
	for _, l := range p.Labels {
		m[l.Key] = l.Value
	}
	return m
}
