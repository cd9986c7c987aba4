package pools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/taintlint/taintlint/loader"
)

// Formats of the cloud providers' pools in Kubernetes form.
const (
	ConfigConnector Format = "Config Connector ContainerNodePool"
	AzureOperator   Format = "Azure Service Operator"
)

// cloudFormat says whether obj is a Config Connector ContainerNodePool
// or an Azure Service Operator ManagedClustersAgentPool or ManagedCluster.
func cloudFormat(obj *loader.Object) Format {
	switch {
	case obj.Kind == "ContainerNodePool" && group(obj.APIVersion) == "container.cnrm.cloud.google.com":
		return ConfigConnector
	case (obj.Kind == "ManagedClustersAgentPool" || obj.Kind == "ManagedCluster") && group(obj.APIVersion) == "containerservice.azure.com":
		return AzureOperator
	}
	return unknownFormat
}

// yamlFields reads a Kubernetes object's field as the Terraform readers
// read a block: attribute names in snake_case are the object's fields in
// camelCase (node_config is nodeConfig), renamed where the API names them
// otherwise, and each position is the object's own.
type yamlFields struct {
	obj     *loader.Object
	path    string
	v       cty.Value
	renames map[string]string
	// set are attributes given from elsewhere (a pool's name).
	set map[string]tfField
}

func (y yamlFields) at(path string) hcl.Range {
	pos, _ := y.obj.Locate(path)
	p := hcl.Pos{Line: pos.Line, Column: pos.Column}
	return hcl.Range{Filename: pos.File, Start: p, End: p}
}

func (y yamlFields) rng() hcl.Range { return y.at(y.path) }

func (y yamlFields) name(attr string) string {
	if n, ok := y.renames[attr]; ok {
		return n
	}
	parts := strings.Split(attr, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func (y yamlFields) child(name string) string {
	if y.path == "" {
		return name
	}
	return y.path + "." + name
}

func (y yamlFields) attr(attr string) tfField {
	if f, ok := y.set[attr]; ok {
		return f
	}
	fd := valFields{v: y.v, at: y.rng()}.member(y.name(attr))
	if fd.written() {
		fd.rng = y.at(y.child(y.name(attr)))
	}
	return fd
}

func (y yamlFields) blocks(attr string) ([]fields, []hcl.Range, []string) {
	fd := y.attr(attr)
	if !fd.written() || !fd.v.CanIterateElements() || fd.v.Type().IsObjectType() {
		if fd.written() && fd.v.Type().IsObjectType() {
			p := y.child(y.name(attr))
			return []fields{yamlFields{obj: y.obj, path: p, v: fd.v, renames: y.renames}}, []hcl.Range{y.at(p)}, nil
		}
		return nil, nil, nil
	}
	var out []fields
	var rngs []hcl.Range
	i := 0
	for it := fd.v.ElementIterator(); it.Next(); i++ {
		_, e := it.Element()
		p := fmt.Sprintf("%s[%d]", y.child(y.name(attr)), i)
		out = append(out, yamlFields{obj: y.obj, path: p, v: e, renames: y.renames})
		rngs = append(rngs, y.at(p))
	}
	return out, rngs, nil
}

// objectValue is obj's field at path as a cty value.
func objectValue(r *Result, obj *loader.Object, path string) (cty.Value, bool) {
	var raw json.RawMessage
	if !r.decode(obj, path, &raw) {
		return cty.NilVal, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(raw) == 0 || dec.Decode(&v) != nil {
		return cty.NullVal(cty.DynamicPseudoType), true
	}
	return jsonValue(v, nil), true
}

// addCloud files a pool read from a Kubernetes object.
func (r *Result) addCloud(p *tfPool, obj *loader.Object) {
	r.Issues = append(r.Issues, p.issues...)
	r.Taints = append(r.Taints, p.taints...)
	for _, w := range append(p.left, p.unknown...) {
		r.Issues = append(r.Issues, Issue{Object: obj, Path: "spec", Msg: w})
	}
	// A Kubernetes object's values are literal: what is not known of it
	// is a field that could not be read (an issue above), and the pool is
	// left out rather than judged without it.
	if len(p.left) == 0 && p.Unknown == nil {
		r.Pools = append(r.Pools, p.Pool)
	}
}

// cloudPool is a pool of obj, whose fields a tree object holds at obj's
// positions.
func cloudPool(obj *loader.Object, format Format, name string) *tfPool {
	pos := obj.Pos()
	at := hcl.Range{Filename: obj.File, Start: hcl.Pos{Line: pos.Line, Column: pos.Column}}
	r := &TerraformResult{}
	p := r.newPool(obj.File, obj.Doc, name, obj.Kind, obj.Name, at)
	p.Object = loader.NewTreeObject(obj.Ref, obj.File, obj.Doc, p.tree.root, obj.Source())
	p.Format = format
	return p
}

// readContainerNodePool reads a Config Connector ContainerNodePool
// (container.cnrm.cloud.google.com/v1beta1): spec.nodeConfig as
// google_container_node_pool's node_config (Config Connector generates
// the CRD from the same provider schema), the pool named spec.resourceID
// or metadata.name.
func readContainerNodePool(r *Result, obj *loader.Object) {
	spec, ok := objectValue(r, obj, "spec")
	if !ok {
		return
	}
	p := cloudPool(obj, ConfigConnector, "ContainerNodePool/"+obj.Name)
	f := yamlFields{obj: obj, path: "spec", v: spec, renames: map[string]string{"resource_id": "resourceID"}}
	name, namePath := obj.Name, p.tree.mark(f.at("metadata.name"), "metadata", "name")
	if id := f.attr("resource_id"); id.written() {
		if s, ok := str(id.v); ok {
			name, namePath = s, p.tree.mark(id.rng, "spec", "resourceID")
		}
	}
	p.readGKENodeConfig(f, name, true, namePath, nil)
	// Config Connector manages one pool per object: whether the cluster
	// has pools without GPUs is not known here, so GKE's GPU taint is
	// put on a GPU pool as it is in the common case of a cluster with a
	// default pool.
	finishGKE([]*tfPool{p, {gke: &gkeFacts{}}})
	r.addCloud(p, obj)
}

// readAgentPool reads an Azure Service Operator ManagedClustersAgentPool
// (containerservice.azure.com): spec.nodeLabels, nodeTaints, vmSize,
// scaleSetPriority, mode and osType as AKS's agent pool profile, the
// pool named spec.azureName or metadata.name.
func readAgentPool(r *Result, obj *loader.Object) {
	spec, ok := objectValue(r, obj, "spec")
	if !ok {
		return
	}
	p := cloudPool(obj, AzureOperator, "ManagedClustersAgentPool/"+obj.Name)
	f := yamlFields{obj: obj, path: "spec", v: spec, renames: map[string]string{"priority": "scaleSetPriority"}}
	name := tfField{v: cty.StringVal(obj.Name), rng: f.at("metadata.name")}
	if n := f.attr("azure_name"); n.written() {
		name = n
	}
	f.set = map[string]tfField{"name": name}
	p.readAKSPool(f, false)
	r.addCloud(p, obj)
}

// readManagedCluster reads the agent pools of an Azure Service Operator
// ManagedCluster's spec.agentPoolProfiles.
func readManagedCluster(r *Result, obj *loader.Object) {
	spec, ok := objectValue(r, obj, "spec")
	if !ok {
		return
	}
	f := yamlFields{obj: obj, path: "spec", v: spec, renames: map[string]string{"priority": "scaleSetPriority"}}
	profiles, _, _ := f.blocks("agent_pool_profiles")
	for _, pf := range profiles {
		n, _ := str(pf.attr("name").v)
		p := cloudPool(obj, AzureOperator, fmt.Sprintf("ManagedCluster/%s agentPoolProfiles[%s]", obj.Name, n))
		p.readAKSPool(pf, false)
		r.addCloud(p, obj)
	}
}
