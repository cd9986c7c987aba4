package pools

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// readGKEModule reads the node pools of a call of
// terraform-google-modules/kubernetes-engine (v44, cluster.tf): each of
// node_pools (default: one pool named default-node-pool) and
// windows_node_pools is a google_container_node_pool named by its name, with the labels cluster_name = name and node_pool =
// <pool> (unless node_pools_labels.default_values turns them off), then
// node_pools_labels["all"] and [<pool>], the taints of
// node_pools_taints["all"] and [<pool>], and machine_type, image_type,
// spot, preemptible, accelerator_type and accelerator_count with the
// module's defaults (e2-medium, COS_CONTAINERD, false, false, none); and
// the cluster's own default-pool (readGKEModuleDefault).
// defaultPool is false for a module that removes the default pool
// itself (safer-cluster).
func (m *tfModule) readGKEModule(file string, b *hclsyntax.Block, f hclFields, defaultPool bool) {
	mod := "module." + b.Labels[0]
	clusterName := f.attr("name")
	labels, taints := f.attr("node_pools_labels"), f.attr("node_pools_taints")
	var head fields = valFields{v: cty.EmptyObjectVal, at: b.TypeRange}
	for _, list := range []string{"node_pools", "windows_node_pools"} {
		np := f.attr(list)
		if !np.written() && !np.unknown() {
			if list == "windows_node_pools" {
				continue
			}
			// variables.tf: node_pools defaults to one pool,
			// default-node-pool, of the module's defaults.
			np.v = cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("default-node-pool")})})
		}
		if !np.v.IsKnown() || np.v.IsNull() || !np.v.CanIterateElements() || np.v.Type().IsObjectType() || np.v.Type().IsMapType() {
			m.unknownPools(file, mod+"."+list, mod, list, np)
			if list == "node_pools" {
				head = nil
			}
			continue
		}
		i := 0
		for it := np.v.ElementIterator(); it.Next(); i++ {
			_, pv := it.Element()
			e, r := elemExpr(np.expr, i)
			if e == nil {
				r = np.rng
			}
			pf := valFields{v: pv, at: r, expr: e}
			if list == "node_pools" && i == 0 {
				head = pf
			}
			name, ok := str(pf.attr("name").v)
			if !ok {
				m.r.Notes = append(m.r.Notes, fmt.Sprintf("Terraform: %s.%s[%d] (%s:%d:%d) is left out of the node inventory: its name is not known; no judgement about it is made", mod, list, i, file, r.Start.Line, r.Start.Column))
				continue
			}
			p := m.newPool(file, fmt.Sprintf("%s.%s[%q]", mod, list, name), mod, list+"["+name+"]", r)
			g := gkeModuleFields{pool: pf, name: name, cluster: clusterName, labels: labels, taints: taints}
			p.readGKENodeConfig(g, name, true, p.tree.mark(pf.attr("name").rng, "name"), nil)
			m.pools = append(m.pools, p)
		}
	}
	if defaultPool {
		m.readGKEModuleDefault(file, b, f, head)
	}
}

// readGKEModuleDefault reads the module's default-pool, the cluster's own
// node_pool block (cluster.tf): kept unless remove_default_node_pool is
// true, of initial_node_count nodes (default 0) and no autoscaling, so
// with none it takes no pod; its node_config has machine_type and
// image_type from the first of node_pools (head; nil when not known) and
// no labels, taints, Spot or accelerators.
func (m *tfModule) readGKEModuleDefault(file string, b *hclsyntax.Block, f hclFields, head fields) {
	mod := "module." + b.Labels[0]
	at := fmt.Sprintf("%s:%d:%d", file, b.TypeRange.Start.Line, b.TypeRange.Start.Column)
	rm := f.attr("remove_default_node_pool")
	if v, ok := boolOf(rm.v); ok && v {
		return
	}
	var exists, attrs []string
	if rm.unknown() {
		exists = append(exists, "remove_default_node_pool ("+strings.Join(rm.why, ", ")+")")
		attrs = append(attrs, "remove_default_node_pool")
	}
	n := f.attr("initial_node_count")
	switch count, ok := str(n.v); {
	case n.unknown():
		exists = append(exists, "initial_node_count ("+strings.Join(n.why, ", ")+")")
		attrs = append(attrs, "initial_node_count")
	case !n.written() || ok && count == "0":
		m.r.Notes = append(m.r.Notes, fmt.Sprintf("Terraform: %s default-pool (%s) has no node: the module keeps it (remove_default_node_pool is not true) with initial_node_count nodes (0) and no autoscaling, so it takes no pod and is not in the node inventory", mod, at))
		return
	}
	if head == nil {
		m.r.Notes = append(m.r.Notes, fmt.Sprintf("Terraform: %s default-pool (%s) is left out of the node inventory: its machine type and image come from the first of node_pools, which is not known; no judgement about it is made", mod, at))
		return
	}
	p := m.newPool(file, mod+" default-pool", mod, "default-pool", b.TypeRange)
	if len(exists) > 0 {
		why := "whether the default pool has nodes (" + strings.Join(exists, "; ") + ")"
		u := p.unknownOf()
		u.Exists = why
		u.Attributes = append(u.Attributes, "whether it has nodes ("+strings.Join(attrs, ", ")+")")
		p.unknown = append(p.unknown, why)
	}
	p.readGKENodeConfig(gkeDefaultFields{head: head}, "default-pool", true, p.tree.mark(b.TypeRange), nil)
	m.pools = append(m.pools, p)
}

// gkeDefaultFields is the module's default-pool read as a
// google_container_cluster node_pool: its node_config takes machine_type
// and image_type from the first of node_pools, nothing else placement
// reads.
type gkeDefaultFields struct{ head fields }

func (g gkeDefaultFields) rng() hcl.Range { return g.head.rng() }

func (g gkeDefaultFields) attr(name string) tfField {
	switch name {
	case "machine_type", "image_type":
		return g.head.attr(name)
	}
	return tfField{v: cty.NilVal, rng: g.head.rng()}
}

func (g gkeDefaultFields) blocks(name string) ([]fields, []hcl.Range, []string) {
	if name == "node_config" {
		return []fields{g}, []hcl.Range{g.head.rng()}, nil
	}
	return nil, nil, nil
}

// gkeModuleFields is one of the GKE module's node_pools read as the
// google_container_node_pool the module makes of it.
type gkeModuleFields struct {
	pool           valFields
	name           string
	cluster        tfField
	labels, taints tfField
}

func (g gkeModuleFields) rng() hcl.Range { return g.pool.at }

func (g gkeModuleFields) attr(name string) tfField {
	switch name {
	case "labels":
		return g.moduleLabels()
	case "machine_type", "image_type", "spot", "preemptible":
		return g.pool.attr(name)
	}
	return tfField{v: cty.NilVal, rng: g.pool.at}
}

// moduleLabels merges the module's labels of the pool as cluster.tf does.
func (g gkeModuleFields) moduleLabels() tfField {
	out := tfField{rng: g.pool.at}
	merged := map[string]cty.Value{}
	lv := valFields{v: g.labels.v, at: g.labels.rng, expr: g.labels.expr}
	if g.labels.unknown() {
		return tfField{v: cty.DynamicVal, rng: g.labels.rng, why: g.labels.why}
	}
	defaults := lv.attr("default_values")
	on := func(key string) bool {
		if !defaults.written() {
			return true
		}
		b, ok := boolOf(valFields{v: defaults.v}.attr(key).v)
		return !ok || b
	}
	if on("cluster_name") {
		if g.cluster.unknown() {
			merged["cluster_name"] = cty.DynamicVal
			out.why = append(out.why, g.cluster.why...)
		} else if s, ok := str(g.cluster.v); ok {
			merged["cluster_name"] = cty.StringVal(s)
		}
	}
	if on("node_pool") {
		merged["node_pool"] = cty.StringVal(g.name)
	}
	for _, k := range []string{"all", g.name} {
		fd := lv.attr(k)
		if fd.unknown() {
			return tfField{v: cty.DynamicVal, rng: fd.rng, why: fd.why}
		}
		if !fd.written() || !(fd.v.Type().IsMapType() || fd.v.Type().IsObjectType()) {
			continue
		}
		for it := fd.v.ElementIterator(); it.Next(); {
			kk, vv := it.Element()
			merged[kk.AsString()] = vv
		}
		if k == g.name {
			out.rng, out.expr = fd.rng, fd.expr
		}
	}
	out.v = cty.ObjectVal(merged)
	if len(merged) == 0 {
		out.v = cty.EmptyObjectVal
	}
	return out
}

func (g gkeModuleFields) blocks(name string) ([]fields, []hcl.Range, []string) {
	switch name {
	case "node_config":
		return []fields{g}, []hcl.Range{g.pool.at}, nil
	case "taint":
		if g.taints.unknown() {
			return nil, nil, prefixed("node_pools_taints", g.taints.why)
		}
		tv := valFields{v: g.taints.v, at: g.taints.rng, expr: g.taints.expr}
		var out []fields
		var rngs []hcl.Range
		for _, k := range []string{"all", g.name} {
			bs, rs, why := tv.blocks(k)
			if len(why) > 0 {
				return nil, nil, why
			}
			out = append(out, bs...)
			rngs = append(rngs, rs...)
		}
		return out, rngs, nil
	case "guest_accelerator":
		c := g.pool.attr("accelerator_count")
		if c.unknown() {
			return nil, nil, prefixed("accelerator_count", c.why)
		}
		n, _ := str(c.v)
		if n == "" || n == "0" {
			return nil, nil, nil
		}
		t := g.pool.attr("accelerator_type")
		v := cty.ObjectVal(map[string]cty.Value{"type": valueOr(t.v), "count": c.v})
		return []fields{valFields{v: v, at: c.rng}}, []hcl.Range{c.rng}, nil
	}
	return nil, nil, nil
}

func valueOr(v cty.Value) cty.Value {
	if v == cty.NilVal {
		return cty.StringVal("")
	}
	return v
}

// readAKSModule reads the agent pools of a call of Azure/aks/azurerm
// (terraform-azurerm-aks v11, main.tf and extra_node_pool.tf): the
// default pool agents_pool_name (default "nodepool") of agents_size
// (default Standard_D2s_v3) with agents_labels and
// only_critical_addons_enabled, and each of node_pools, whose name gets
// a random suffix when create_before_destroy (the default) is true.
func (m *tfModule) readAKSModule(file string, b *hclsyntax.Block, f hclFields) {
	mod := "module." + b.Labels[0]
	name := f.attr("agents_pool_name")
	if !name.written() && !name.unknown() {
		name.v = cty.StringVal("nodepool")
	}
	size := f.attr("agents_size")
	if !size.written() && !size.unknown() {
		size.v = cty.StringVal("Standard_D2s_v3")
	}
	dp := m.newPool(file, mod+".default_node_pool", mod, "default_node_pool", b.TypeRange)
	dp.readAKSPool(renamedFields{f: f, set: map[string]tfField{"name": name, "vm_size": size}, names: map[string]string{"node_labels": "agents_labels", "node_taints": "-", "os_type": "-", "priority": "-"}}, true)
	m.pools = append(m.pools, dp)
	np := f.attr("node_pools")
	if !np.written() && !np.unknown() {
		return
	}
	if !np.v.IsKnown() || np.v.IsNull() || !(np.v.Type().IsMapType() || np.v.Type().IsObjectType()) {
		m.unknownPools(file, mod+".node_pools", mod, "node_pools", np)
		return
	}
	var keys []string
	for it := np.v.ElementIterator(); it.Next(); {
		k, _ := it.Element()
		keys = append(keys, k.AsString())
	}
	sort.Strings(keys)
	for _, k := range keys {
		pf := valFields{v: (valFields{v: np.v}).member(k).v, at: np.rng}
		if e, r := subExpr(np.expr, k); e != nil {
			pf.at, pf.expr = r, e
		}
		p := m.newPool(file, fmt.Sprintf("%s.node_pools[%q]", mod, k), mod, "node_pools["+k+"]", pf.at)
		set := map[string]tfField{}
		if cbd := pf.attr("create_before_destroy"); cbd.unknown() || !cbd.written() || cbd.v.True() {
			set["name"] = tfField{v: cty.DynamicVal, rng: pf.attr("name").rng, why: []string{"create_before_destroy adds a random suffix to the pool's name"}}
		}
		p.readAKSPool(renamedFields{f: pf, set: set}, false)
		m.pools = append(m.pools, p)
	}
}

// renamedFields reads f with some attributes given (set) or read under
// another name (names; "-" for one the module does not pass).
type renamedFields struct {
	f     fields
	set   map[string]tfField
	names map[string]string
}

func (r renamedFields) rng() hcl.Range { return r.f.rng() }

func (r renamedFields) attr(name string) tfField {
	if fd, ok := r.set[name]; ok {
		return fd
	}
	if n, ok := r.names[name]; ok {
		if n == "-" {
			return tfField{v: cty.NilVal, rng: r.f.rng()}
		}
		return r.f.attr(n)
	}
	return r.f.attr(name)
}

func (r renamedFields) blocks(name string) ([]fields, []hcl.Range, []string) {
	return r.f.blocks(name)
}

// unknownPools stands for the pools of a module input that is not known
// (a map or list of pools over a variable without a value): zero or
// more, whose taints and labels are not known; it joins the inventory
// as one pool, addr[*], so that no judgement it could change is made.
func (m *tfModule) unknownPools(file, addr, kind, attr string, fd tfField) {
	p := m.newPool(file, addr+"[*]", kind, attr+"[*]", fd.rng)
	w := fmt.Sprintf("%s (%s)", attr, strings.Join(fd.why, ", "))
	p.unknownExists("how many there are: " + w)
	p.unknownTaints(attr, "the taints and labels of each: "+w)
	p.Unknown.Labels = joinWhy(p.Unknown.Labels, w)
	p.Unknown.Attributes[len(p.Unknown.Attributes)-1] = "taints and labels (" + attr + ")"
	m.pools = append(m.pools, p)
}
