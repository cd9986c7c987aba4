package pools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/taintlint/taintlint/loader"
)

// tfResource is a resource of terraform show -json output: from a plan,
// its planned values (change.after, with change.after_unknown marking
// what is known only after apply); from a state, its values.
type tfResource struct {
	Address string `json:"address"`
	Mode    string `json:"mode"`
	Type    string `json:"type"`
	Name    string `json:"name"`
	Values  any    `json:"values"`
	Change  *struct {
		Actions      []string `json:"actions"`
		After        any      `json:"after"`
		AfterUnknown any      `json:"after_unknown"`
	} `json:"change"`
}

type tfModuleJSON struct {
	Resources    []tfResource   `json:"resources"`
	ChildModules []tfModuleJSON `json:"child_modules"`
}

// readTerraformJSON reads the node pools of terraform show -json output
// (Terraform's internal/command/jsonplan and jsonstate formats): a plan's
// resource_changes, or a state's values.root_module and its
// child_modules. Values are resolved already; what a plan knows only
// after apply (after_unknown) stays unknown.
func readTerraformJSON(r *TerraformResult, f loader.TerraformFile) {
	var doc struct {
		ResourceChanges []tfResource `json:"resource_changes"`
		Values          *struct {
			RootModule tfModuleJSON `json:"root_module"`
		} `json:"values"`
	}
	dec := json.NewDecoder(bytes.NewReader(f.Data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		r.Errors = append(r.Errors, &loader.Error{Pos: loader.Position{File: f.Name, Line: 1, Column: 1}, Msg: "terraform show -json output: " + err.Error()})
		return
	}
	var res []tfResource
	if doc.ResourceChanges != nil {
		for _, rc := range doc.ResourceChanges {
			if rc.Change == nil || rc.Change.After == nil {
				continue // deleted
			}
			rc.Values = rc.Change.After
			res = append(res, rc)
		}
	} else if doc.Values != nil {
		var walk func(m tfModuleJSON)
		walk = func(m tfModuleJSON) {
			res = append(res, m.Resources...)
			for _, c := range m.ChildModules {
				walk(c)
			}
		}
		walk(doc.Values.RootModule)
	}
	sort.SliceStable(res, func(i, j int) bool { return res[i].Address < res[j].Address })
	m := &tfModule{r: r, docs: map[string]int{}}
	for _, rs := range res {
		if rs.Mode != "managed" && rs.Mode != "" {
			continue
		}
		at := addressRange(f, rs.Address)
		var unknown any
		if rs.Change != nil {
			unknown = rs.Change.AfterUnknown
		}
		v := jsonValue(rs.Values, unknown)
		f := valFields{v: v, at: at}
		switch rs.Type {
		case "aws_eks_node_group":
			p := m.newPool(at.Filename, rs.Address, rs.Type, rs.Address, at)
			p.readEKSNodeGroup(f)
			m.pools = append(m.pools, p)
		case "google_container_node_pool":
			p := m.newPool(at.Filename, rs.Address, rs.Type, rs.Address, at)
			name := f.attr("name")
			n, known := str(name.v)
			p.readGKENodeConfig(f, n, known, p.tree.mark(at, "name"), name.why)
			m.pools = append(m.pools, p)
		case "google_container_cluster":
			m.readGKECluster(at.Filename, instance{addr: rs.Address, name: rs.Address}, f)
		case "azurerm_kubernetes_cluster_node_pool":
			p := m.newPool(at.Filename, rs.Address, rs.Type, rs.Address, at)
			p.readAKSPool(f, false)
			m.pools = append(m.pools, p)
		case "azurerm_kubernetes_cluster":
			dps, _, _ := f.blocks("default_node_pool")
			for _, dp := range dps {
				p := m.newPool(at.Filename, rs.Address+".default_node_pool", rs.Type, rs.Address+".default_node_pool", at)
				p.readAKSPool(dp, true)
				m.pools = append(m.pools, p)
			}
		}
	}
	finishGKE(m.pools)
	for _, p := range m.pools {
		r.add(p)
	}
}

// addressRange is where a resource's address is written in the file:
// its pool's findings point there (the JSON has no finer positions that
// a person edits; the .tf file is where it is fixed).
func addressRange(f loader.TerraformFile, addr string) hcl.Range {
	q, _ := json.Marshal(addr)
	line, col := 1, 1
	if i := bytes.Index(f.Data, append([]byte(`"address": `), q...)); i >= 0 {
		line = bytes.Count(f.Data[:i], []byte("\n")) + 1
		col = i - bytes.LastIndexByte(f.Data[:i], '\n')
	} else if i := bytes.Index(f.Data, append([]byte(`"address":`), q...)); i >= 0 {
		line = bytes.Count(f.Data[:i], []byte("\n")) + 1
		col = i - bytes.LastIndexByte(f.Data[:i], '\n')
	}
	pos := hcl.Pos{Line: line, Column: col}
	return hcl.Range{Filename: f.Name, Start: pos, End: pos}
}

// jsonValue is a decoded JSON value as a cty value; where unknown (the
// plan's after_unknown) is true, the value is unknown.
func jsonValue(v any, unknown any) cty.Value {
	if u, ok := unknown.(bool); ok && u {
		return cty.DynamicVal
	}
	switch v := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType)
	case string:
		return cty.StringVal(v)
	case bool:
		return cty.BoolVal(v)
	case json.Number:
		if n, err := cty.ParseNumberVal(v.String()); err == nil {
			return n
		}
		return cty.StringVal(v.String())
	case []any:
		us, _ := unknown.([]any)
		if len(v) == 0 {
			return cty.EmptyTupleVal
		}
		out := make([]cty.Value, len(v))
		for i, e := range v {
			var ue any
			if i < len(us) {
				ue = us[i]
			}
			out[i] = jsonValue(e, ue)
		}
		return cty.TupleVal(out)
	case map[string]any:
		us, _ := unknown.(map[string]any)
		out := make(map[string]cty.Value, len(v))
		for k, e := range v {
			out[k] = jsonValue(e, us[k])
		}
		// Members known only after apply are absent from after.
		for k, u := range us {
			if b, ok := u.(bool); ok && b {
				out[k] = cty.DynamicVal
			}
		}
		if len(out) == 0 {
			return cty.EmptyObjectVal
		}
		return cty.ObjectVal(out)
	}
	return cty.StringVal(strings.TrimSpace(fmt.Sprint(v)))
}
