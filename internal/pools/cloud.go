package pools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	yaml "go.yaml.in/yaml/v3"
	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// Labels and taints EKS, GKE and AKS put on the nodes of their pools
// (docs/inventory.md gives each one's upstream source).
const (
	LabelGKENodePool       = "cloud.google.com/gke-nodepool"
	LabelGKESpot           = "cloud.google.com/gke-spot"
	LabelGKEPreemptible    = "cloud.google.com/gke-preemptible"
	LabelGKEAccelerator    = "cloud.google.com/gke-accelerator"
	LabelAKSAgentPool      = "kubernetes.azure.com/agentpool"
	LabelAKSAgentPoolShort = "agentpool"
	LabelAKSMode           = "kubernetes.azure.com/mode"
	LabelAKSPriority       = "kubernetes.azure.com/scalesetpriority"

	TaintGPU              = "nvidia.com/gpu"
	TaintCriticalAddons   = "CriticalAddonsOnly"
	TaintOSWindows        = "node.kubernetes.io/os"
	TaintArchitectureGKE  = v1.LabelArchStable
	sourceInstanceType    = "the cloud provider labels every node with its instance type"
	sourceEKSManaged      = "EKS labels the nodes of a managed node group"
	sourceGKE             = "GKE labels the nodes of a node pool"
	sourceAKS             = "AKS labels the nodes of an agent pool"
	terraformObjectSource = "terraform"
)

// Accelerator is what a pool definition says of its nodes' GPUs: the
// accelerator type and count per node (0: as many as the instance type
// has, the instance-type catalogue says how many).
type Accelerator struct {
	Type  string
	Count int
	Path  string
}

// tfEffects are the taint effects of aws_eks_node_group and
// google_container_node_pool (and their APIs) as Kubernetes names them.
var tfEffects = map[string]v1.TaintEffect{
	"NO_SCHEDULE":        v1.TaintEffectNoSchedule,
	"NO_EXECUTE":         v1.TaintEffectNoExecute,
	"PREFER_NO_SCHEDULE": v1.TaintEffectPreferNoSchedule,
}

// tfPool is a pool being read from Terraform: the pool, the tree of
// positions its object locates paths in, and what was not known.
type tfPool struct {
	*Pool
	tree *posTree
	// left says why the pool is left out of the inventory (a cloud
	// resource's field of the wrong type; a Terraform pool whose
	// unknowns placement turns on joins with Pool.Unknown instead).
	left []string
	// unknown are attributes not known statically, with why, for the
	// pool's notice.
	unknown []string
	taints  []k8s.TaintList
	issues  []Issue
	gke     *gkeFacts
}

// posTree is the tree of a pool read from outside Kubernetes YAML: its
// nodes sit at the lines where each field was written.
type posTree struct{ root *yaml.Node }

// mapKey is a step into a map (labels[gpu]); a plain string is a field.
type mapKey string

// mark records that the field at steps was written at r, and returns
// the field's path in Pool paths' form.
func (t *posTree) mark(r hcl.Range, steps ...any) string {
	n := t.root
	var path strings.Builder
	for i, s := range steps {
		last := i == len(steps)-1
		var child *yaml.Node
		switch s := s.(type) {
		case int:
			path.WriteString("[" + strconv.Itoa(s) + "]")
			n.Kind = yaml.SequenceNode
			for len(n.Content) <= s {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Line: r.Start.Line, Column: r.Start.Column})
			}
			child = n.Content[s]
			if last {
				child.Line, child.Column = r.Start.Line, r.Start.Column
			}
		case string, mapKey:
			var name string
			if k, ok := s.(mapKey); ok {
				name = string(k)
				path.WriteString("[" + name + "]")
			} else {
				name = s.(string)
				if path.Len() > 0 {
					path.WriteString(".")
				}
				path.WriteString(name)
			}
			n.Kind = yaml.MappingNode
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == name {
					child = n.Content[j+1]
					if last { // an ancestor keeps where it was first written
						n.Content[j].Line, n.Content[j].Column = r.Start.Line, r.Start.Column
					}
				}
			}
			if child == nil {
				child = &yaml.Node{Kind: yaml.ScalarNode, Line: r.Start.Line, Column: r.Start.Column}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name, Line: r.Start.Line, Column: r.Start.Column}, child)
			}
		}
		n = child
	}
	return path.String()
}

// newPool starts a pool named addr, its object kind/name in file at r.
func (r *TerraformResult) newPool(file string, doc int, addr, kind, name string, at hcl.Range) *tfPool {
	t := &posTree{root: &yaml.Node{Kind: yaml.MappingNode, Line: at.Start.Line, Column: at.Start.Column}}
	obj := loader.NewTreeObject(loader.Ref{Kind: kind, Name: name}, file, doc, t.root, terraformObjectSource)
	return &tfPool{Pool: &Pool{Object: obj, Format: Terraform, Name: addr}, tree: t}
}

// add files a pool, with a note naming what is not known of it.
func (r *TerraformResult) add(p *tfPool) {
	r.Issues = append(r.Issues, p.issues...)
	r.Taints = append(r.Taints, p.taints...)
	if len(p.left) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Terraform: %s (%s) is left out of the node inventory: %s; no judgement about it is made (give the values in terraform.tfvars, or name a terraform show -json plan with --nodes)", p.Name, p.Object.Pos(), strings.Join(p.left, "; ")))
		return
	}
	if len(p.unknown) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Terraform: %s (%s) joins the node inventory with what is known; not known statically: %s; judgements that turn on them are withheld (give the values in terraform.tfvars, or name a terraform show -json plan with --nodes)", p.Name, p.Object.Pos(), strings.Join(p.unknown, "; ")))
	}
	r.Pools = append(r.Pools, p.Pool)
}

// unknownOf is the pool's Unknown, made if need be.
func (p *tfPool) unknownOf() *Unknown {
	if p.Unknown == nil {
		p.Unknown = &Unknown{}
	}
	return p.Unknown
}

// unknownExists notes that whether the pool is made is not known.
func (p *tfPool) unknownExists(why string) {
	u := p.unknownOf()
	u.Exists = joinWhy(u.Exists, why)
	u.Attributes = append(u.Attributes, "whether it is made")
	p.unknown = append(p.unknown, why)
}

// unknownTaints notes that any taint may be on the pool's nodes.
func (p *tfPool) unknownTaints(attr, why string) {
	u := p.unknownOf()
	u.Taints = joinWhy(u.Taints, why)
	u.Attributes = append(u.Attributes, described("taints", attr))
	p.unknown = append(p.unknown, why)
}

// unknownLabels notes that any label may be on the pool's nodes.
func (p *tfPool) unknownLabels(attr, why string) {
	u := p.unknownOf()
	u.Labels = joinWhy(u.Labels, why)
	u.Attributes = append(u.Attributes, described("labels", attr))
	p.unknown = append(p.unknown, why)
}

// maybe notes taints and labels that are on the pool's nodes or not, as
// the unknown attr decides (attr says what it decides and which
// attribute it is: "Spot (priority)").
func (p *tfPool) maybe(attr, why string, taints []Taint, labels []Label) {
	u := p.unknownOf()
	u.MaybeTaints = append(u.MaybeTaints, taints...)
	u.MaybeLabels = append(u.MaybeLabels, labels...)
	u.Attributes = append(u.Attributes, attr)
	p.unknown = append(p.unknown, why)
}

// described is what an unknown attribute decides, and the attribute
// unless its name says it ("taints", "labels (node_labels)").
func described(what, attr string) string {
	if strings.TrimSuffix(what, "s") == strings.TrimSuffix(attr, "s") {
		return what
	}
	return what + " (" + attr + ")"
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// label adds a label written at path, or notes that its value is open.
func (p *tfPool) label(key string, value string, known bool, path, source string, why []string) {
	if !known {
		p.Requirements = append(p.Requirements, Requirement{Key: key, Operator: v1.NodeSelectorOpExists, Path: path, Unknown: true})
		p.unknown = append(p.unknown, fmt.Sprintf("the value of label %s (%s)", key, strings.Join(why, ", ")))
		return
	}
	p.Labels = append(p.Labels, Label{Key: key, Value: value, Path: path, Source: source})
}

// labels reads a map of labels at its field name.
func (p *tfPool) labels(f fields, attr string) {
	fd := f.attr(attr)
	if !fd.written() && !fd.unknown() {
		return
	}
	keys, m, ok := strMap(fd.v)
	if !ok {
		p.unknownLabels(attr, fmt.Sprintf("%s (%s)", attr, strings.Join(fd.why, ", ")))
		return
	}
	p.tree.mark(fd.rng, attr)
	for _, k := range keys {
		e, r := subExpr(fd.expr, k)
		if e == nil {
			r = fd.rng
		}
		v, known := m[k]
		p.label(k, v, known, p.tree.mark(r, attr, mapKey(k)), "", fd.why)
	}
}

// taintBlocks reads taint blocks of key, value and effect (EKS, GKE),
// or a module's map or list of such objects, at path name.
func (p *tfPool) taintBlocks(f fields, name string) {
	bs, rngs, why := f.blocks(name)
	if len(why) > 0 {
		p.unknownTaints(name, fmt.Sprintf("its taints (%s)", strings.Join(why, ", ")))
		return
	}
	list := k8s.TaintList{Object: p.Object, Path: FieldPath(name)}
	for i, b := range bs {
		at := p.tree.mark(rngs[i], name, i)
		k, v, e := b.attr("key"), b.attr("value"), b.attr("effect")
		if k.unknown() || v.unknown() || e.unknown() {
			var w []string
			for _, fd := range []tfField{k, v, e} {
				w = append(w, fd.why...)
			}
			p.unknownTaints(at, fmt.Sprintf("taint %s (%s)", at, strings.Join(w, ", ")))
			continue
		}
		key, _ := str(k.v)
		value, _ := str(v.v)
		eff, _ := str(e.v)
		effect, ok := tfEffects[eff]
		if !ok {
			p.issues = append(p.issues, Issue{Object: p.Object, Path: p.tree.mark(e.rng, name, i, "effect"), Msg: fmt.Sprintf("unsupported taint effect %q: Terraform takes NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE", eff), AtValue: true})
			continue
		}
		t := v1.Taint{Key: key, Value: value, Effect: effect}
		list.Taints = append(list.Taints, t)
		p.Taints = append(p.Taints, Taint{Taint: t, Path: at})
	}
	p.taints = append(p.taints, list)
}

// taintStrings reads AKS's node_taints, "key=value:Effect" strings.
func (p *tfPool) taintStrings(f fields, attr string) {
	fd := f.attr(attr)
	if !fd.written() && !fd.unknown() {
		return
	}
	list, ok := strList(fd.v)
	if !ok {
		p.unknownTaints(attr, fmt.Sprintf("%s (%s)", attr, strings.Join(fd.why, ", ")))
		return
	}
	p.tree.mark(fd.rng, attr)
	tl := k8s.TaintList{Object: p.Object, Path: FieldPath(attr)}
	for i, s := range list {
		_, r := elemExpr(fd.expr, i)
		if r == (hcl.Range{}) {
			r = fd.rng
		}
		t := parseKopsTaint(s)
		tl.Taints = append(tl.Taints, t)
		p.Taints = append(p.Taints, Taint{Taint: t, Path: p.tree.mark(r, attr, i)})
	}
	p.taints = append(p.taints, tl)
}

// derivedTaint adds a taint the platform puts on every node of the pool.
func (p *tfPool) derivedTaint(t v1.Taint, path, source string) {
	p.Taints = append(p.Taints, Taint{Taint: t, Path: path, Source: source})
}

// instanceTypes records the pool's instance types, and the instance-type
// label when there is one.
func (p *tfPool) instanceTypes(types []string, path, source string) {
	p.InstanceTypes = types
	if len(types) == 1 {
		p.Labels = append(p.Labels, Label{Key: v1.LabelInstanceTypeStable, Value: types[0], Path: path, Source: source})
	}
}

// noteUnknown names an attribute whose value is not known, if it is not.
func (p *tfPool) noteUnknown(fd tfField, attr string) bool {
	if fd.unknown() {
		p.unknown = append(p.unknown, fmt.Sprintf("%s (%s)", attr, strings.Join(fd.why, ", ")))
		return true
	}
	return false
}

// EKS.

// eksAMI is what an EKS AMI type says of its nodes (the EKS API's
// Nodegroup amiType values, as terraform-aws-eks v21.19.0
// modules/eks-managed-node-group/main.tf ssm_ami_type_to_ssm_param lists
// them): architecture, operating system and whether it is an NVIDIA GPU
// AMI. CUSTOM says nothing.
func eksAMI(ami string) (arch, os string, gpu, ok bool) {
	if ami == "" || ami == "CUSTOM" {
		return "", "", false, false
	}
	switch {
	case strings.Contains(ami, "ARM_64"):
		arch = "arm64"
	case strings.Contains(ami, "x86_64"):
		arch = "amd64"
	default:
		return "", "", false, false
	}
	os = "linux"
	if strings.HasPrefix(ami, "WINDOWS") {
		os = "windows"
	}
	gpu = strings.Contains(ami, "NVIDIA") || ami == "AL2_x86_64_GPU"
	return arch, os, gpu, true
}

// eksFacts derives what EKS and the AMI put on a node group's nodes.
type eksFacts struct {
	managed   bool
	name      string
	nameKnown bool
	namePath  string
	nameWhy   []string
	// prefixed: the group's name is its name- with a unique suffix, a
	// value open by design, not unknown (no note).
	prefixed               bool
	ami, amiPath           string
	capacity, capacityPath string
}

func (p *tfPool) deriveEKS(e eksFacts) {
	if e.managed && e.prefixed {
		p.Requirements = append(p.Requirements, Requirement{Key: LabelEKSNodeGroup, Operator: v1.NodeSelectorOpExists, Path: e.namePath})
	}
	if e.managed && !e.prefixed {
		p.label(LabelEKSNodeGroup, e.name, e.nameKnown, e.namePath, sourceEKSManaged+" eks.amazonaws.com/nodegroup=<node group name>", e.nameWhy)
	}
	if e.managed {
		capacity := e.capacity
		if capacity == "" {
			capacity = "ON_DEMAND" // the EKS API's default capacityType
		}
		p.Labels = append(p.Labels, Label{Key: LabelEKSCapacityType, Value: capacity, Path: e.capacityPath, Source: sourceEKSManaged + " eks.amazonaws.com/capacityType"})
	}
	if arch, os, gpu, ok := eksAMI(e.ami); ok {
		p.Labels = append(p.Labels,
			Label{Key: v1.LabelArchStable, Value: arch, Path: e.amiPath, Source: "the kubelet labels a node with its architecture; the AMI type " + e.ami + " is " + arch},
			Label{Key: v1.LabelOSStable, Value: os, Path: e.amiPath, Source: "the kubelet labels a node with its operating system; the AMI type " + e.ami + " is " + os})
		if gpu {
			p.Accelerators = append(p.Accelerators, Accelerator{Type: "nvidia.com/gpu", Path: e.amiPath})
		}
	}
}

// readEKSNodeGroup reads an aws_eks_node_group (hashicorp/aws
// internal/service/eks/node_group.go).
func (p *tfPool) readEKSNodeGroup(f fields) {
	e := eksFacts{managed: true}
	name, prefix := f.attr("node_group_name"), f.attr("node_group_name_prefix")
	switch {
	case name.written() || name.unknown():
		e.name, e.nameKnown = str(name.v)
		e.namePath, e.nameWhy = p.tree.mark(name.rng, "node_group_name"), name.why
	case prefix.written() || prefix.unknown():
		e.namePath = p.tree.mark(prefix.rng, "node_group_name_prefix")
		e.nameWhy = []string{"node_group_name_prefix: Terraform adds a unique suffix"}
	default:
		e.namePath = p.tree.mark(f.rng(), "node_group_name")
		e.nameWhy = []string{"node_group_name is not set: Terraform makes a unique one"}
	}
	p.labels(f, "labels")
	p.taintBlocks(f, "taint")
	it := f.attr("instance_types")
	lts, _, _ := f.blocks("launch_template")
	switch {
	case p.noteUnknown(it, "instance_types"):
	case it.written():
		if types, ok := strList(it.v); ok {
			p.instanceTypes(types, p.tree.mark(it.rng, "instance_types"), sourceInstanceType)
		}
	case len(lts) == 0:
		// The EKS API's default instanceTypes is [t3.medium] (CreateNodegroup).
		p.instanceTypes([]string{"t3.medium"}, p.tree.mark(f.rng(), "instance_types"), sourceInstanceType+" (EKS's default instance type t3.medium)")
	}
	if a := f.attr("ami_type"); !p.noteUnknown(a, "ami_type") && a.written() {
		e.ami, _ = str(a.v)
		e.amiPath = p.tree.mark(a.rng, "ami_type")
	}
	c := f.attr("capacity_type")
	e.capacityPath = p.tree.mark(c.rng, "capacity_type")
	if c.unknown() {
		p.label(LabelEKSCapacityType, "", false, e.capacityPath, "", c.why)
		e.managed = false
		p.label(LabelEKSNodeGroup, e.name, e.nameKnown, e.namePath, sourceEKSManaged+" eks.amazonaws.com/nodegroup=<node group name>", e.nameWhy)
	} else if c.written() {
		e.capacity, _ = str(c.v)
	}
	p.deriveEKS(e)
}

// readEKSModuleGroup reads one node group of the terraform-aws-eks
// module's eks_managed_node_groups or self_managed_node_groups (v21:
// node_groups.tf passes each member to modules/eks-managed-node-group,
// whose aws_eks_node_group takes labels, taints, instance_types,
// ami_type and capacity_type as they are, and names the group name-
// with a unique suffix unless use_name_prefix is false; before v21 the
// *_node_group_defaults block gives the members a group does not set).
func (p *tfPool) readEKSModuleGroup(f fields, key string, managed bool) {
	e := eksFacts{managed: managed}
	name := f.attr("name")
	e.name, e.nameKnown = key, true
	e.namePath = p.tree.mark(f.rng())
	if name.written() || name.unknown() {
		e.name, e.nameKnown = str(name.v)
		e.namePath, e.nameWhy = p.tree.mark(name.rng, "name"), name.why
	}
	if up := f.attr("use_name_prefix"); up.unknown() {
		e.nameKnown, e.nameWhy = false, up.why
	} else if b, ok := boolOf(up.v); !ok || b {
		e.prefixed = true
	}
	if managed {
		p.labels(f, "labels")
		p.taintBlocks(f, "taints")
		if it := f.attr("instance_types"); !p.noteUnknown(it, "instance_types") && it.written() {
			if types, ok := strList(it.v); ok {
				p.instanceTypes(types, p.tree.mark(it.rng, "instance_types"), sourceInstanceType)
			}
		}
		c := f.attr("capacity_type")
		e.capacityPath = p.tree.mark(c.rng, "capacity_type")
		if !p.noteUnknown(c, "capacity_type") && c.written() {
			e.capacity, _ = str(c.v)
		}
	} else {
		// A self-managed group's labels and taints are kubelet flags in
		// its user data, which is not read: with any, the pool is not
		// known.
		for _, a := range []string{"bootstrap_extra_args", "pre_bootstrap_user_data", "post_bootstrap_user_data", "cloudinit_pre_nodeadm", "cloudinit_post_nodeadm", "user_data_template_path"} {
			if fd := f.attr(a); fd.written() || fd.unknown() {
				why := "the labels and taints the kubelet's flags in " + a + " may set (user data is not read)"
				p.unknownTaints(a, why)
				u := p.unknownOf()
				u.Labels = joinWhy(u.Labels, why)
				u.Attributes[len(u.Attributes)-1] = "taints and labels (" + a + ")"
			}
		}
		if it := f.attr("instance_type"); !p.noteUnknown(it, "instance_type") && it.written() {
			if t, ok := str(it.v); ok {
				p.instanceTypes([]string{t}, p.tree.mark(it.rng, "instance_type"), sourceInstanceType)
			}
		}
	}
	if a := f.attr("ami_type"); !p.noteUnknown(a, "ami_type") && a.written() {
		e.ami, _ = str(a.v)
		e.amiPath = p.tree.mark(a.rng, "ami_type")
	}
	if e.capacity == "" && e.capacityPath == "" {
		e.capacityPath = e.namePath
	}
	p.deriveEKS(e)
}

// GKE.

// gkeFacts are what finishGKE needs of a GKE pool: GKE taints a GPU
// pool's nodes when the cluster has nodes without GPUs.
type gkeFacts struct {
	gpu bool
	// maybeGPU: whether the pool has GPUs is not known.
	maybeGPU bool
	gpuPath  string
}

// gkeArm are the Arm machine series (GKE: Arm workloads; the nodes are
// tainted kubernetes.io/arch=arm64:NoSchedule).
var gkeArm = []string{"t2a-", "c4a-"}

// gkeGPUSeries are the accelerator-optimized machine series, whose GPUs
// come with the machine type (no guest_accelerator).
var gkeGPUSeries = []string{"a2-", "a3-", "a4-", "a4x-", "g2-", "g4-"}

// readGKENodeConfig reads a node_config (google_container_node_pool,
// google_container_cluster's default pool) with the pool's name.
func (p *tfPool) readGKENodeConfig(f fields, name string, nameKnown bool, namePath string, nameWhy []string) {
	p.gke = &gkeFacts{}
	p.label(LabelGKENodePool, name, nameKnown, namePath, sourceGKE+" cloud.google.com/gke-nodepool=<node pool name>", nameWhy)
	cfgs, rngs, why := f.blocks("node_config")
	if len(why) > 0 {
		w := "node_config (" + strings.Join(why, ", ") + ")"
		p.unknownTaints("node_config", w)
		p.Unknown.Labels = joinWhy(p.Unknown.Labels, w)
		p.Unknown.Attributes[len(p.Unknown.Attributes)-1] = "taints and labels (node_config)"
		return
	}
	var cfg fields = valFields{v: cty.NullVal(cty.DynamicPseudoType), at: f.rng()}
	base := "node_config"
	if len(cfgs) > 0 {
		cfg = cfgs[0]
		p.tree.mark(rngs[0], base)
	}
	sub := func(fd tfField, attr string) string {
		if !fd.written() {
			return p.tree.mark(cfg.rng(), base)
		}
		return p.tree.mark(fd.rng, base, attr)
	}
	labels := &tfPool{Pool: &Pool{Object: p.Object}, tree: &posTree{root: p.sub(base)}}
	labels.labels(cfg, "labels")
	labels.taintBlocks(cfg, "taint")
	p.merge(labels, base)
	mt := cfg.attr("machine_type")
	machine := "e2-medium" // the provider's default machine_type
	mtPath := sub(mt, "machine_type")
	if !p.noteUnknown(mt, "node_config.machine_type") {
		if s, ok := str(mt.v); ok {
			machine = s
		}
		src := sourceInstanceType
		if !mt.written() {
			src += " (the provider's default machine type e2-medium)"
		}
		p.instanceTypes([]string{machine}, mtPath, src)
		for _, a := range gkeArm {
			if strings.HasPrefix(machine, a) {
				p.Labels = append(p.Labels, Label{Key: v1.LabelArchStable, Value: "arm64", Path: mtPath, Source: "the kubelet labels a node with its architecture; " + machine + " is an Arm machine type"})
				p.derivedTaint(v1.Taint{Key: TaintArchitectureGKE, Value: "arm64", Effect: v1.TaintEffectNoSchedule}, mtPath, "GKE taints Arm nodes kubernetes.io/arch=arm64:NoSchedule")
			}
		}
	}
	for _, s := range []struct{ attr, label string }{{"spot", LabelGKESpot}, {"preemptible", LabelGKEPreemptible}} {
		fd := cfg.attr(s.attr)
		if fd.unknown() {
			p.maybe(strings.ToUpper(s.attr[:1])+s.attr[1:]+" (node_config."+s.attr+")", fmt.Sprintf("whether the nodes carry %s (node_config.%s: %s)", s.label, s.attr, strings.Join(fd.why, ", ")), nil,
				[]Label{{Key: s.label, Value: "true", Path: sub(fd, s.attr), Source: sourceGKE + " " + s.label + "=true"}})
			continue
		}
		if b, _ := boolOf(fd.v); b {
			p.Labels = append(p.Labels, Label{Key: s.label, Value: "true", Path: sub(fd, s.attr), Source: sourceGKE + " " + s.label + "=true"})
		}
	}
	img := cfg.attr("image_type")
	if s, ok := str(img.v); ok && strings.HasPrefix(strings.ToUpper(s), "WINDOWS") {
		path := sub(img, "image_type")
		p.Labels = append(p.Labels, Label{Key: v1.LabelOSStable, Value: "windows", Path: path, Source: "the kubelet labels a node with its operating system"})
		p.derivedTaint(v1.Taint{Key: TaintOSWindows, Value: "windows", Effect: v1.TaintEffectNoSchedule}, path, "GKE taints Windows Server nodes node.kubernetes.io/os=windows:NoSchedule")
	} else if !img.unknown() {
		p.Labels = append(p.Labels, Label{Key: v1.LabelOSStable, Value: "linux", Path: sub(img, "image_type"), Source: "the kubelet labels a node with its operating system"})
	}
	accs, arngs, why := cfg.blocks("guest_accelerator")
	if len(why) > 0 {
		p.maybeGPU(fmt.Sprintf("whether the nodes have GPUs (node_config.guest_accelerator: %s), and so carry cloud.google.com/gke-accelerator and GKE's nvidia.com/gpu taint", strings.Join(why, ", ")), p.tree.mark(f.rng(), base))
	}
	for i, a := range accs {
		path := p.tree.mark(arngs[i], base, "guest_accelerator", i)
		t, c := a.attr("type"), a.attr("count")
		n, _ := str(c.v)
		count, _ := strconv.Atoi(n)
		if c.unknown() || t.unknown() {
			p.maybeGPU(fmt.Sprintf("whether the nodes have GPUs (node_config.guest_accelerator: %s), and so carry cloud.google.com/gke-accelerator and GKE's nvidia.com/gpu taint", strings.Join(append(t.why, c.why...), ", ")), path)
			continue
		}
		if count == 0 && c.written() {
			continue
		}
		typ, _ := str(t.v)
		p.Accelerators = append(p.Accelerators, Accelerator{Type: typ, Count: count, Path: path})
		p.Labels = append(p.Labels, Label{Key: LabelGKEAccelerator, Value: typ, Path: path, Source: sourceGKE + " cloud.google.com/gke-accelerator=<accelerator type>"})
		p.gke.gpu, p.gke.gpuPath = true, path
	}
	if len(accs) == 0 {
		for _, s := range gkeGPUSeries {
			if strings.HasPrefix(machine, s) {
				p.Accelerators = append(p.Accelerators, Accelerator{Type: "nvidia.com/gpu", Path: mtPath})
				p.label(LabelGKEAccelerator, "", false, mtPath, "", []string{machine + " comes with GPUs whose type is not read"})
				p.gke.gpu, p.gke.gpuPath = true, mtPath
			}
		}
	}
}

// maybeGPU notes that whether the pool has GPUs is not known: the
// accelerator label may be there, and GKE's GPU taint (finishGKE).
func (p *tfPool) maybeGPU(why, path string) {
	if p.gke.maybeGPU {
		return
	}
	p.gke.maybeGPU, p.gke.gpuPath = true, path
	p.maybe("GPUs (node_config.guest_accelerator)", why, nil, []Label{{Key: LabelGKEAccelerator, Path: path}})
}

// sub is the tree node at a field, made if need be.
func (p *tfPool) sub(name string) *yaml.Node {
	for pass := 0; pass < 2; pass++ {
		for i := 0; i+1 < len(p.tree.root.Content); i += 2 {
			if p.tree.root.Content[i].Value == name {
				return p.tree.root.Content[i+1]
			}
		}
		p.tree.mark(hcl.Range{Start: hcl.Pos{Line: p.tree.root.Line, Column: p.tree.root.Column}}, name)
	}
	return p.tree.root
}

// merge takes what q read at the field base of p's object.
func (p *tfPool) merge(q *tfPool, base string) {
	for _, l := range q.Labels {
		l.Path = base + "." + l.Path
		p.Labels = append(p.Labels, l)
	}
	for _, r := range q.Requirements {
		r.Path = base + "." + r.Path
		p.Requirements = append(p.Requirements, r)
	}
	for _, t := range q.Taints {
		t.Path = base + "." + t.Path
		p.Taints = append(p.Taints, t)
	}
	for _, l := range q.taints {
		l.Path = FieldPath(base + "." + l.Path.String())
		p.taints = append(p.taints, l)
	}
	for _, is := range q.issues {
		is.Path = base + "." + is.Path
		p.issues = append(p.issues, is)
	}
	p.left = append(p.left, q.left...)
	p.unknown = append(p.unknown, q.unknown...)
	if u := q.Unknown; u != nil {
		pu := p.unknownOf()
		pu.Taints, pu.Labels, pu.Exists = joinWhy(pu.Taints, u.Taints), joinWhy(pu.Labels, u.Labels), joinWhy(pu.Exists, u.Exists)
		for _, t := range u.MaybeTaints {
			t.Path = base + "." + t.Path
			pu.MaybeTaints = append(pu.MaybeTaints, t)
		}
		for _, l := range u.MaybeLabels {
			l.Path = base + "." + l.Path
			pu.MaybeLabels = append(pu.MaybeLabels, l)
		}
		for _, a := range u.Attributes {
			if i := strings.LastIndex(a, "("); i >= 0 {
				a = a[:i+1] + base + "." + a[i+1:]
			}
			pu.Attributes = append(pu.Attributes, a)
		}
	}
}

// finishGKE puts GKE's GPU taint on the GPU pools of a cluster that has
// pools without GPUs: GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule
// when a cluster has non-GPU nodes, so that only pods that ask for GPUs
// land there (GKE: About GPUs, "Restrict scheduling with node taints").
func finishGKE(ps []*tfPool) {
	plain := false
	for _, p := range ps {
		if p.gke != nil && !p.gke.gpu && !p.gke.maybeGPU {
			plain = true
		}
	}
	if !plain {
		return
	}
	const source = "GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule in a cluster that has nodes without GPUs"
	for _, p := range ps {
		t := v1.Taint{Key: TaintGPU, Value: "present", Effect: v1.TaintEffectNoSchedule}
		switch {
		case p.gke != nil && p.gke.gpu:
			p.derivedTaint(t, p.gke.gpuPath, source)
		case p.gke != nil && p.gke.maybeGPU:
			p.Unknown.MaybeTaints = append(p.Unknown.MaybeTaints, Taint{Taint: t, Path: p.gke.gpuPath, Source: source})
		}
	}
}

// AKS.

// azureArm matches the Azure VM sizes of Arm processors: a "p" among the
// additive features after the vCPU count (Azure VM naming conventions:
// Standard_D4ps_v5).
var azureArm = regexp.MustCompile(`^(?i:standard_)[A-Za-z]+[0-9]+[a-z]*p[a-z]*_v[0-9]+$`)

// readAKSPool reads an azurerm_kubernetes_cluster_node_pool or a
// default_node_pool (hashicorp/azurerm internal/services/containers).
func (p *tfPool) readAKSPool(f fields, defaultPool bool) {
	name := f.attr("name")
	n, known := str(name.v)
	namePath := p.tree.mark(name.rng, "name")
	for _, k := range []string{LabelAKSAgentPool, LabelAKSAgentPoolShort} {
		p.label(k, n, known, namePath, sourceAKS+" "+k+"=<pool name>", name.why)
	}
	p.labels(f, "node_labels")
	p.taintStrings(f, "node_taints")
	mode := "system"
	modePath := namePath
	if !defaultPool {
		mode = "user" // the provider's default mode User
		md := f.attr("mode")
		if md.unknown() {
			p.label(LabelAKSMode, "", false, p.tree.mark(md.rng, "mode"), "", md.why)
			mode = ""
		} else if s, ok := str(md.v); ok {
			mode = strings.ToLower(s)
			modePath = p.tree.mark(md.rng, "mode")
		}
	}
	if mode != "" {
		p.Labels = append(p.Labels, Label{Key: LabelAKSMode, Value: mode, Path: modePath, Source: sourceAKS + " kubernetes.azure.com/mode=system or user"})
	}
	vm := f.attr("vm_size")
	if !p.noteUnknown(vm, "vm_size") {
		if s, ok := str(vm.v); ok {
			path := p.tree.mark(vm.rng, "vm_size")
			p.instanceTypes([]string{s}, path, sourceInstanceType)
			if azureArm.MatchString(s) {
				p.Labels = append(p.Labels, Label{Key: v1.LabelArchStable, Value: "arm64", Path: path, Source: "the kubelet labels a node with its architecture; " + s + " is an Arm size"})
			}
		}
	}
	osType := f.attr("os_type")
	if s, ok := str(osType.v); ok || !osType.written() && !osType.unknown() {
		os := "linux"
		if strings.EqualFold(s, "Windows") {
			os = "windows"
		}
		p.Labels = append(p.Labels, Label{Key: v1.LabelOSStable, Value: os, Path: p.tree.mark(osType.rng, "os_type"), Source: "the kubelet labels a node with its operating system"})
	}
	pr := f.attr("priority")
	if pr.unknown() {
		path := p.tree.mark(pr.rng, "priority")
		p.maybe("Spot (priority)", fmt.Sprintf("whether the pool is Spot (priority: %s), whose nodes carry the label and taint kubernetes.azure.com/scalesetpriority=spot", strings.Join(pr.why, ", ")),
			[]Taint{{Taint: v1.Taint{Key: LabelAKSPriority, Value: "spot", Effect: v1.TaintEffectNoSchedule}, Path: path, Source: "AKS taints the nodes of a Spot pool kubernetes.azure.com/scalesetpriority=spot:NoSchedule"}},
			[]Label{{Key: LabelAKSPriority, Value: "spot", Path: path, Source: sourceAKS + " of a Spot pool kubernetes.azure.com/scalesetpriority=spot"}})
	} else if s, _ := str(pr.v); s == "Spot" {
		path := p.tree.mark(pr.rng, "priority")
		p.Labels = append(p.Labels, Label{Key: LabelAKSPriority, Value: "spot", Path: path, Source: sourceAKS + " of a Spot pool kubernetes.azure.com/scalesetpriority=spot"})
		p.derivedTaint(v1.Taint{Key: LabelAKSPriority, Value: "spot", Effect: v1.TaintEffectNoSchedule}, path, "AKS taints the nodes of a Spot pool kubernetes.azure.com/scalesetpriority=spot:NoSchedule")
	}
	if defaultPool {
		oc := f.attr("only_critical_addons_enabled")
		if oc.unknown() {
			p.maybe("CriticalAddonsOnly taint (only_critical_addons_enabled)", fmt.Sprintf("whether the nodes are tainted CriticalAddonsOnly=true:NoSchedule (only_critical_addons_enabled: %s)", strings.Join(oc.why, ", ")),
				[]Taint{{Taint: v1.Taint{Key: TaintCriticalAddons, Value: "true", Effect: v1.TaintEffectNoSchedule}, Path: p.tree.mark(oc.rng, "only_critical_addons_enabled"), Source: "AKS taints the nodes of a system pool with only_critical_addons_enabled CriticalAddonsOnly=true:NoSchedule"}}, nil)
		} else if b, _ := boolOf(oc.v); b {
			p.derivedTaint(v1.Taint{Key: TaintCriticalAddons, Value: "true", Effect: v1.TaintEffectNoSchedule}, p.tree.mark(oc.rng, "only_critical_addons_enabled"), "AKS taints the nodes of a system pool with only_critical_addons_enabled CriticalAddonsOnly=true:NoSchedule")
		}
	}
}
