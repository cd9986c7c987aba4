package pools

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/taintlint/taintlint/loader"
)

// Terraform is a pool read from Terraform: a resource, a module's node
// group, or a resource of a terraform show -json plan or state.
const Terraform Format = "Terraform"

// TerraformResult is what ReadTerraform found: the pools, the files that
// could not be parsed, and notes naming what was not known statically.
type TerraformResult struct {
	Result
	Errors []*loader.Error
	Notes  []string
}

// ReadTerraform reads the node pools of Terraform files statically, as
// Terraform would plan them, without running Terraform or any provider:
// each directory's .tf files are one module, its variables take their
// defaults, then terraform.tfvars and *.auto.tfvars (the files Terraform
// loads by itself), and locals are resolved where they are literal.
// Anything else (a resource's attribute, a data source, a function not
// implemented here) stays unknown: a pool whose taints or labels depend
// on it is left out of the inventory and a note names it; it is never
// guessed. terraform show -json files are read as they are: their values
// are resolved already.
func ReadTerraform(files []loader.TerraformFile) *TerraformResult {
	r := &TerraformResult{}
	dirs := map[string][]loader.TerraformFile{}
	var order []string
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Name] { // a path named twice
			continue
		}
		seen[f.Name] = true
		if lower := strings.ToLower(f.Name); strings.HasSuffix(lower, ".json") && !strings.HasSuffix(lower, ".tf.json") && !strings.HasSuffix(lower, ".tfvars.json") {
			readTerraformJSON(r, f)
			continue
		}
		d := path.Dir(f.Name)
		if _, ok := dirs[d]; !ok {
			order = append(order, d)
		}
		dirs[d] = append(dirs[d], f)
	}
	for _, d := range order {
		readModule(r, d, dirs[d])
	}
	return r
}

// tfModule is one directory of .tf files, with the values its
// expressions can be evaluated with.
type tfModule struct {
	r      *TerraformResult
	dir    string
	vars   map[string]cty.Value
	varWhy map[string]string // why a variable has no value
	locals map[string]cty.Value
	funcs  map[string]function.Function
	// docs counts the pools made per file (loader.Object.Doc).
	docs map[string]int
	// pools are this module's pools with what the platform rules of the
	// module as a whole need (GKE's GPU taint).
	pools []*tfPool
}

func readModule(r *TerraformResult, dir string, files []loader.TerraformFile) {
	// go-cty panics on an operation a value's type does not support; the
	// checks before each should make that impossible, and should one be
	// missed, the directory is an error and the run goes on.
	defer func() {
		if e := recover(); e != nil {
			r.Errors = append(r.Errors, &loader.Error{Pos: loader.Position{File: dir}, Msg: fmt.Sprintf("Terraform: the directory could not be read: %v", e)})
		}
	}()
	m := &tfModule{r: r, dir: dir, vars: map[string]cty.Value{}, varWhy: map[string]string{}, locals: map[string]cty.Value{}, funcs: functions(), docs: map[string]int{}}
	var bodies []*hclsyntax.Body
	var names []string
	var tfvars []loader.TerraformFile
	var jsonConfigs []loader.TerraformFile
	for _, f := range files {
		base := path.Base(f.Name)
		if strings.HasSuffix(strings.ToLower(base), ".tf.json") {
			jsonConfigs = append(jsonConfigs, f)
			continue
		}
		if strings.HasSuffix(base, ".tfvars") || strings.HasSuffix(base, ".tfvars.json") {
			if b := strings.TrimSuffix(base, ".json"); b == "terraform.tfvars" || strings.HasSuffix(b, ".auto.tfvars") {
				tfvars = append(tfvars, f)
			} else {
				r.Notes = append(r.Notes, fmt.Sprintf("Terraform: %s is not applied: Terraform loads only terraform.tfvars, terraform.tfvars.json, *.auto.tfvars and *.auto.tfvars.json by itself (give it with -var-file to terraform); variables keep their defaults", f.Name))
			}
			continue
		}
		body := parseHCL(r, f)
		if body != nil {
			bodies = append(bodies, body)
			names = append(names, f.Name)
		}
	}
	// Variables: defaults, then terraform.tfvars, then *.auto.tfvars in
	// lexical order (Terraform's order; a later value wins).
	for _, body := range bodies {
		for _, b := range body.Blocks {
			if b.Type != "variable" || len(b.Labels) != 1 {
				continue
			}
			name := b.Labels[0]
			if a, ok := b.Body.Attributes["default"]; ok {
				v, diags := a.Expr.Value(nil)
				if diags.HasErrors() || !v.IsWhollyKnown() {
					m.vars[name] = cty.DynamicVal
					m.varWhy[name] = "its default is not a literal"
				} else {
					m.vars[name] = v
				}
			} else {
				m.vars[name] = cty.DynamicVal
				m.varWhy[name] = "no default and no value in terraform.tfvars or *.auto.tfvars"
			}
		}
	}
	// Terraform's order: terraform.tfvars, terraform.tfvars.json, then
	// *.auto.tfvars and *.auto.tfvars.json in lexical order.
	rank := func(b string) int {
		switch b {
		case "terraform.tfvars":
			return 0
		case "terraform.tfvars.json":
			return 1
		}
		return 2
	}
	sort.SliceStable(tfvars, func(i, j int) bool {
		bi, bj := path.Base(tfvars[i].Name), path.Base(tfvars[j].Name)
		if rank(bi) != rank(bj) {
			return rank(bi) < rank(bj)
		}
		return bi < bj
	})
	for _, f := range tfvars {
		if strings.HasSuffix(f.Name, ".json") {
			m.jsonVars(f)
			continue
		}
		body := parseHCL(r, f)
		if body == nil {
			continue
		}
		for name, a := range body.Attributes {
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() || !v.IsWhollyKnown() {
				m.vars[name] = cty.DynamicVal
				m.varWhy[name] = "its value in " + f.Name + " is not a literal"
				continue
			}
			m.vars[name] = v
			delete(m.varWhy, name)
		}
	}
	// Locals may refer to each other: evaluate them until nothing more
	// becomes known (at most once per local, as a chain is that long).
	locals := map[string]*hclsyntax.Attribute{}
	for _, body := range bodies {
		for _, b := range body.Blocks {
			if b.Type == "locals" {
				for name, a := range b.Body.Attributes {
					locals[name] = a
					m.locals[name] = cty.DynamicVal
				}
			}
		}
	}
	for range len(locals) + 1 {
		changed := false
		for name, a := range locals {
			if m.locals[name].IsWhollyKnown() {
				continue
			}
			// A partly known value is kept: its known parts count.
			v, _ := m.eval(a.Expr, nil)
			if !v.RawEquals(m.locals[name]) {
				m.locals[name] = v
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for i, body := range bodies {
		for _, b := range body.Blocks {
			switch {
			case b.Type == "resource" && len(b.Labels) == 2:
				m.readResource(names[i], b)
			case b.Type == "module" && len(b.Labels) == 1:
				m.readModuleCall(names[i], b)
			}
		}
	}
	for _, f := range jsonConfigs {
		m.readJSONConfig(f)
	}
	finishGKE(m.pools)
	for _, p := range m.pools {
		m.r.add(p)
	}
}

// parseHCL parses a Terraform file in native syntax; its errors are
// load errors at their lines, and whatever parsed is still read.
func parseHCL(r *TerraformResult, f loader.TerraformFile) *hclsyntax.Body {
	file, diags := hclsyntax.ParseConfig(f.Data, f.Name, hcl.InitialPos)
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		pos := loader.Position{File: f.Name, Line: 1, Column: 1}
		if d.Subject != nil {
			pos.Line, pos.Column = d.Subject.Start.Line, d.Subject.Start.Column
		}
		r.Errors = append(r.Errors, &loader.Error{Pos: pos, Msg: "Terraform: " + d.Summary + ": " + d.Detail})
	}
	if file == nil {
		return nil
	}
	body, _ := file.Body.(*hclsyntax.Body)
	return body
}

// functions are the Terraform functions evaluated here: those of
// Terraform's own table (internal/lang/functions.go) that are go-cty's
// or HCL's implementations, so their results are Terraform's. Any other
// function leaves its expression unknown.
func functions() map[string]function.Function {
	return map[string]function.Function{
		"coalescelist": stdlib.CoalesceListFunc,
		"compact":      stdlib.CompactFunc,
		"concat":       stdlib.ConcatFunc,
		"contains":     stdlib.ContainsFunc,
		"distinct":     stdlib.DistinctFunc,
		"flatten":      stdlib.FlattenFunc,
		"format":       stdlib.FormatFunc,
		"join":         stdlib.JoinFunc,
		"keys":         stdlib.KeysFunc,
		"lower":        stdlib.LowerFunc,
		"range":        stdlib.RangeFunc,
		"substr":       stdlib.SubstrFunc,
		"merge":        stdlib.MergeFunc,
		"split":        stdlib.SplitFunc,
		"tolist":       stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":        stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"toset":        stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":     stdlib.MakeToFunc(cty.String),
		"tobool":       stdlib.MakeToFunc(cty.Bool),
		"tonumber":     stdlib.MakeToFunc(cty.Number),
		"trimspace":    stdlib.TrimSpaceFunc,
		"upper":        stdlib.UpperFunc,
		"values":       stdlib.ValuesFunc,
		"zipmap":       stdlib.ZipmapFunc,
		"try":          tryfunc.TryFunc,
		"can":          tryfunc.CanFunc,
	}
}

// eval evaluates expr with the module's variables and locals and extra
// (each, count, a dynamic block's iterator). Every other reference is
// unknown; why names each reference and function that left the value
// unknown.
func (m *tfModule) eval(expr hcl.Expression, extra map[string]cty.Value) (cty.Value, []string) {
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(m.vars), "local": cty.ObjectVal(m.locals)}, Functions: m.funcs}
	for k, v := range extra {
		ctx.Variables[k] = v
	}
	for _, t := range expr.Variables() {
		if _, ok := ctx.Variables[t.RootName()]; !ok {
			ctx.Variables[t.RootName()] = cty.DynamicVal
		}
	}
	v, diags := expr.Value(ctx)
	var why []string
	if diags.HasErrors() {
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				why = append(why, strings.TrimSuffix(d.Summary, ".")+": "+strings.TrimSuffix(d.Detail, "."))
			}
		}
		return cty.DynamicVal, why
	}
	if v.IsWhollyKnown() {
		return v, nil
	}
	for _, t := range expr.Variables() {
		tv, d := t.TraverseAbs(ctx)
		if d.HasErrors() || tv.IsWhollyKnown() {
			continue
		}
		why = append(why, m.refWhy(t))
	}
	if len(why) == 0 {
		why = []string{"not known statically"}
	}
	return v, why
}

// refWhy says why the reference t has no value.
func (m *tfModule) refWhy(t hcl.Traversal) string {
	name := traversalName(t)
	switch t.RootName() {
	case "var":
		if len(t) > 1 {
			if a, ok := t[1].(hcl.TraverseAttr); ok {
				if why := m.varWhy[a.Name]; why != "" {
					return name + ": " + why
				}
			}
		}
		return name + ": not known statically"
	case "local":
		return name + ": not known statically"
	case "data":
		return name + ": a data source, read only when Terraform runs"
	case "module":
		return name + ": another module's output"
	case "each", "count", "self", "path", "terraform":
		return name + ": not known statically"
	}
	return name + ": a resource's attribute, known only after apply"
}

// traversalName is a reference as written, up to its first index
// (var.pools, aws_iam_role.node.arn).
func traversalName(t hcl.Traversal) string {
	var b strings.Builder
	b.WriteString(t.RootName())
	for _, s := range t[1:] {
		a, ok := s.(hcl.TraverseAttr)
		if !ok {
			break
		}
		b.WriteString("." + a.Name)
	}
	return b.String()
}

// aksClusterInputs are inputs of Azure/aks/azurerm (v11.5.0
// variables.tf) that say an AKS cluster's settings; with its required
// resource_group_name and its prefix or cluster_name, a call of a local
// source that takes one is the module's examples' call (source = "../..").
var aksClusterInputs = []string{"kubernetes_version", "network_plugin", "network_policy", "rbac_aad_tenant_id", "role_based_access_control_enabled", "sku_tier", "identity_type", "oidc_issuer_enabled", "private_cluster_enabled", "attached_acr_id_map", "os_disk_size_gb", "automatic_channel_upgrade", "log_analytics_workspace_enabled", "azure_policy_enabled", "net_profile_pod_cidr", "net_profile_service_cidr"}

// aksInputs reports whether a module call takes the inputs of
// Azure/aks/azurerm (agents_*, node_pools as a map of pools with
// vm_size, or, from a local source, its required inputs and an AKS
// cluster's settings), as its examples do with a relative source.
func aksInputs(body *hclsyntax.Body, source string) bool {
	for name := range body.Attributes {
		if strings.HasPrefix(name, "agents_") {
			return true
		}
	}
	_, rg := body.Attributes["resource_group_name"]
	_, prefix := body.Attributes["prefix"]
	_, cluster := body.Attributes["cluster_name"]
	if (strings.HasPrefix(source, "./") || strings.HasPrefix(source, "../")) && rg && (prefix || cluster) {
		for _, name := range aksClusterInputs {
			if _, ok := body.Attributes[name]; ok {
				return true
			}
		}
	}
	if a, ok := body.Attributes["node_pools"]; ok {
		if oc, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok && len(oc.Items) > 0 {
			if inner, ok := oc.Items[0].ValueExpr.(*hclsyntax.ObjectConsExpr); ok {
				for _, it := range inner.Items {
					if hcl.ExprAsKeyword(it.KeyExpr) == "vm_size" {
						return true
					}
				}
			}
		}
	}
	return false
}

// instance is one instance of a resource or module block: its address
// and the values of count or each. unknown, when set, says why how many
// instances there are is not known: the instance stands for all of them
// (each.key, each.value and count.index unknown).
type instance struct {
	addr, name string
	extra      map[string]cty.Value
	unknown    string
}

// maxInstances bounds the instances a count, for_each or dynamic block is
// expanded to: the configuration is the repository's, and count = 1e9 is
// one line. More stand for unknown instances, as an unknown count does.
const maxInstances = 256

// unknownInstance stands for the instances of a block whose count or
// for_each is not known: zero or more, each with each and count unknown.
func unknownInstance(prefix, name, attr string, why []string) []instance {
	return []instance{{addr: prefix + "." + name + "[*]", name: name + "[*]", unknown: fmt.Sprintf("how many there are (%s: %s)", attr, strings.Join(why, ", ")),
		extra: map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.UnknownVal(cty.Number)}), "each": cty.ObjectVal(map[string]cty.Value{"key": cty.UnknownVal(cty.String), "value": cty.DynamicVal})}}}
}

// instances expands count and for_each as Terraform does (count.index,
// each.key and each.value); an unknown count or for_each gives one
// instance that stands for all (unknownInstance).
func (m *tfModule) instances(prefix, name string, body *hclsyntax.Body, at hcl.Range) []instance {
	if a, ok := body.Attributes["count"]; ok {
		v, why := m.eval(a.Expr, nil)
		s, ok := str(v)
		n, err := strconv.Atoi(s)
		if !ok || err != nil || n < 0 {
			return unknownInstance(prefix, name, "count", why)
		}
		if n > maxInstances {
			return unknownInstance(prefix, name, "count", []string{fmt.Sprintf("%d instances, more than the %d taintlint expands", n, maxInstances)})
		}
		out := make([]instance, 0, n)
		for i := range n {
			out = append(out, instance{addr: fmt.Sprintf("%s.%s[%d]", prefix, name, i), name: fmt.Sprintf("%s[%d]", name, i), extra: map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(i))})}})
		}
		return out
	}
	if a, ok := body.Attributes["for_each"]; ok {
		v, why := m.eval(a.Expr, nil)
		if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() {
			if len(why) == 0 {
				why = []string{"not a map or set"}
			}
			return unknownInstance(prefix, name, "for_each", why)
		}
		if n := v.LengthInt(); n > maxInstances {
			return unknownInstance(prefix, name, "for_each", []string{fmt.Sprintf("%d instances, more than the %d taintlint expands", n, maxInstances)})
		}
		var out []instance
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			key, _ := str(k)
			if v.Type().IsSetType() {
				key, _ = str(e)
			}
			out = append(out, instance{addr: fmt.Sprintf("%s.%s[%q]", prefix, name, key), name: fmt.Sprintf("%s[%q]", name, key), extra: map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(key), "value": e})}})
		}
		return out
	}
	return []instance{{addr: prefix + "." + name, name: name}}
}

func (m *tfModule) newPool(file, addr, kind, name string, at hcl.Range) *tfPool {
	doc := m.docs[file]
	m.docs[file]++
	return m.r.newPool(file, doc, addr, kind, name, at)
}

// readResource reads a resource block that defines node pools.
func (m *tfModule) readResource(file string, b *hclsyntax.Block) {
	typ := b.Labels[0]
	switch typ {
	case "aws_eks_node_group", "google_container_node_pool", "google_container_cluster", "azurerm_kubernetes_cluster_node_pool", "azurerm_kubernetes_cluster", "aws_eks_cluster":
	default:
		return
	}
	for _, in := range m.instances(typ, b.Labels[1], b.Body, b.TypeRange) {
		f := hclFields{m: m, body: b.Body, at: b.TypeRange, extra: in.extra}
		first := len(m.pools)
		m.readPoolResource(file, typ, in, f, b.TypeRange)
		if in.unknown != "" {
			for _, p := range m.pools[first:] {
				p.unknownExists(in.unknown)
			}
		}
	}
}

// readPoolResource reads instance in of a pool resource of type typ, its
// body f: an HCL block's (readResource) or a JSON-syntax value's
// (readJSONConfig), at the resource's range.
func (m *tfModule) readPoolResource(file, typ string, in instance, f fields, at hcl.Range) {
	switch typ {
	case "aws_eks_node_group":
		p := m.newPool(file, in.addr, typ, in.name, at)
		p.readEKSNodeGroup(f)
		m.pools = append(m.pools, p)
	case "google_container_node_pool":
		p := m.newPool(file, in.addr, typ, in.name, at)
		name := f.attr("name")
		n, known := str(name.v)
		why := name.why
		if !name.written() && !name.unknown() {
			why = []string{"name is not set: Terraform makes a unique one"}
		}
		p.readGKENodeConfig(f, n, known, p.tree.mark(name.rng, "name"), why)
		m.pools = append(m.pools, p)
	case "google_container_cluster":
		m.readGKECluster(file, in, f)
	case "aws_eks_cluster":
		ccs, rngs, why := f.blocks("compute_config")
		if len(why) > 0 {
			m.unknownPools(file, in.addr+".compute_config", typ, "compute_config", tfField{v: cty.DynamicVal, rng: at, why: why})
		}
		for i, cc := range ccs {
			m.readAutoMode(file, in.addr, typ, cc, rngs[i])
		}
	case "azurerm_kubernetes_cluster_node_pool":
		p := m.newPool(file, in.addr, typ, in.name, at)
		p.readAKSPool(f, false)
		m.pools = append(m.pools, p)
	case "azurerm_kubernetes_cluster":
		dps, rngs, why := f.blocks("default_node_pool")
		if len(why) > 0 {
			m.unknownPools(file, in.addr+".default_node_pool", typ, "default_node_pool", tfField{v: cty.DynamicVal, rng: at, why: why})
		}
		for i, dp := range dps {
			p := m.newPool(file, in.addr+".default_node_pool", typ, in.name+".default_node_pool", rngs[i])
			p.readAKSPool(dp, true)
			m.pools = append(m.pools, p)
		}
	}
}

// readGKECluster reads a google_container_cluster's pools: its node_pool
// blocks, or else its default pool "default-pool" of node_config, unless
// remove_default_node_pool deletes it. An Autopilot cluster has no pools
// of its own.
func (m *tfModule) readGKECluster(file string, in instance, f fields) {
	if ap := f.attr("enable_autopilot"); ap.written() {
		if b, _ := boolOf(ap.v); b {
			m.r.Notes = append(m.r.Notes, fmt.Sprintf("Terraform: %s (%s:%d:%d) is an Autopilot cluster: GKE makes its nodes for each pod, so it adds no pool", in.addr, file, f.rng().Start.Line, f.rng().Start.Column))
			return
		}
	}
	pools, rngs, why := f.blocks("node_pool")
	if len(why) > 0 { // a dynamic node_pool over what is not known: pools all the same, and no default-pool
		m.unknownPools(file, in.addr+".node_pool", "google_container_cluster", "node_pool", tfField{v: cty.DynamicVal, rng: f.rng(), why: why})
	}
	for i, np := range pools {
		name := np.attr("name")
		n, known := str(name.v)
		addr := fmt.Sprintf("%s.node_pool[%q]", in.addr, n)
		p := m.newPool(file, addr, "google_container_cluster", in.name+".node_pool["+n+"]", rngs[i])
		p.readGKENodeConfig(np, n, known, p.tree.mark(name.rng, "name"), name.why)
		m.pools = append(m.pools, p)
	}
	if len(pools) > 0 || len(why) > 0 {
		return
	}
	rm := f.attr("remove_default_node_pool")
	if b, _ := boolOf(rm.v); b {
		return
	}
	p := m.newPool(file, in.addr+" default-pool", "google_container_cluster", in.name, f.rng())
	if rm.unknown() {
		why := "whether the default pool is kept (remove_default_node_pool: " + strings.Join(rm.why, ", ") + ")"
		u := p.unknownOf()
		u.Exists = why
		u.Attributes = append(u.Attributes, "whether it is made (remove_default_node_pool)")
		p.unknown = append(p.unknown, why)
	}
	p.readGKENodeConfig(f, "default-pool", true, p.tree.mark(f.rng()), nil)
	m.pools = append(m.pools, p)
}

// readModuleCall reads the node groups a call of the terraform-aws-eks
// module (or a module of the same inputs) defines.
func (m *tfModule) readModuleCall(file string, b *hclsyntax.Block) {
	f := hclFields{m: m, body: b.Body, at: b.TypeRange}
	if c := f.attr("create"); c.written() {
		if v, ok := boolOf(c.v); ok && !v {
			return
		}
	}
	// count = 0 or an empty for_each makes no instance of the module, so
	// none of its pools; an unknown one makes pools that may not be.
	// Known instances are read as one: their pools are alike.
	ins := m.instances("module", b.Labels[0], b.Body, b.TypeRange)
	if len(ins) == 0 {
		return
	}
	if why := ins[0].unknown; why != "" {
		first := len(m.pools)
		defer func() {
			for _, p := range m.pools[first:] {
				p.unknownExists(why)
			}
		}()
	}
	source, _ := str(f.attr("source").v)
	switch {
	case strings.Contains(source, "kubernetes-engine/google"):
		_, sub, _ := strings.Cut(source, "//modules/")
		switch sub {
		case "", "private-cluster", "private-cluster-update-variant", "beta-private-cluster", "beta-private-cluster-update-variant", "beta-public-cluster", "beta-public-cluster-update-variant":
			m.readGKEModule(file, b, f, true)
		case "safer-cluster", "safer-cluster-update-variant":
			// modules/safer-cluster/main.tf sets remove_default_node_pool = true.
			m.readGKEModule(file, b, f, false)
		case "gke-standard-cluster", "gke-node-pool":
			m.r.Notes = append(m.r.Notes, fmt.Sprintf("Terraform: module.%s (%s:%d:%d) is not read: the module %s is not among the pool formats (docs/inventory.md)", b.Labels[0], file, b.TypeRange.Start.Line, b.TypeRange.Start.Column, sub))
		}
		return
	case strings.Contains(source, "aks/azurerm") || strings.Contains(source, "terraform-azurerm-aks") || aksInputs(b.Body, source):
		m.readAKSModule(file, b, f)
		return
	}
	if cc := f.attr("compute_config"); cc.written() || cc.unknown() {
		m.readAutoMode(file, "module."+b.Labels[0], "module."+b.Labels[0], valFields{v: cc.v, at: cc.rng, expr: cc.expr}, cc.rng)
	}
	for _, g := range []struct {
		attr, defaults string
		managed        bool
	}{{"eks_managed_node_groups", "eks_managed_node_group_defaults", true}, {"self_managed_node_groups", "self_managed_node_group_defaults", false}} {
		fd := f.attr(g.attr)
		if !fd.written() && !fd.unknown() {
			continue
		}
		if !fd.v.IsKnown() || fd.v.IsNull() || !(fd.v.Type().IsMapType() || fd.v.Type().IsObjectType()) {
			m.unknownPools(file, fmt.Sprintf("module.%s.%s", b.Labels[0], g.attr), "module."+b.Labels[0], g.attr, fd)
			continue
		}
		var defaults *valFields
		if d := f.attr(g.defaults); d.written() {
			defaults = &valFields{v: d.v, at: d.rng, expr: d.expr}
		}
		keys := []string{}
		for it := fd.v.ElementIterator(); it.Next(); {
			k, _ := it.Element()
			keys = append(keys, k.AsString())
		}
		sort.Strings(keys)
		for _, k := range keys {
			var gv cty.Value
			if fd.v.Type().IsObjectType() {
				gv = fd.v.GetAttr(k)
			} else {
				gv = fd.v.Index(cty.StringVal(k))
			}
			e, r := subExpr(fd.expr, k)
			if e == nil {
				r = fd.rng
			}
			gf := valFields{v: gv, at: r, expr: e, fallback: defaults}
			if c := gf.attr("create"); c.written() {
				if v, ok := boolOf(c.v); ok && !v {
					continue
				}
			}
			addr := fmt.Sprintf("module.%s.%s[%q]", b.Labels[0], g.attr, k)
			p := m.newPool(file, addr, "module."+b.Labels[0], fmt.Sprintf("%s[%s]", g.attr, k), r)
			p.readEKSModuleGroup(gf, k, g.managed)
			m.pools = append(m.pools, p)
		}
	}
}
