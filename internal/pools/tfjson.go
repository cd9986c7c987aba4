package pools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/taintlint/taintlint/loader"
)

// readJSONConfig reads the node pool resources of a configuration file
// in Terraform's JSON syntax (.tf.json: "resource": {type: {name: body}},
// a nested block an object or a list of objects, a string a template
// that may hold ${...}), as part of its directory's module: each string
// is evaluated as a template with the module's variables and locals,
// the rest is literal. A resource with count or for_each stands for an
// unknown number of pools (addr[*]); a module call of a pool module is
// not read, and joins as a pool of unknown taints and labels, so that no
// judgement it could change is made. Findings relate to the line of the
// resource's name.
func (m *tfModule) readJSONConfig(f loader.TerraformFile) {
	doc, ok := m.jsonDoc(f)
	if !ok {
		return
	}
	resources, _ := doc["resource"].(map[string]any)
	types := make([]string, 0, len(resources))
	for t := range resources {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, typ := range types {
		switch typ {
		case "aws_eks_node_group", "google_container_node_pool", "google_container_cluster", "azurerm_kubernetes_cluster_node_pool", "azurerm_kubernetes_cluster", "aws_eks_cluster":
		default:
			continue
		}
		byName, _ := resources[typ].(map[string]any)
		for _, name := range sortedKeys(byName) {
			body, ok := byName[name].(map[string]any)
			if !ok {
				if list, _ := byName[name].([]any); len(list) > 0 {
					body, _ = list[0].(map[string]any)
				}
			}
			if body == nil {
				continue
			}
			at := keyRange(f, name)
			in := instance{addr: typ + "." + name, name: name}
			_, count := body["count"]
			_, forEach := body["for_each"]
			if count || forEach {
				in = unknownInstance(typ, name, "count or for_each", []string{"not evaluated in JSON syntax"})[0]
			}
			v := m.configValue(body, in.extra)
			first := len(m.pools)
			m.readPoolResource(f.Name, typ, in, valFields{v: v, at: at}, at)
			if in.unknown != "" {
				for _, p := range m.pools[first:] {
					p.unknownExists(in.unknown)
				}
			}
		}
	}
	modules, _ := doc["module"].(map[string]any)
	for _, name := range sortedKeys(modules) {
		body, _ := modules[name].(map[string]any)
		source, _ := body["source"].(string)
		if !strings.Contains(source, "eks/aws") && !strings.Contains(source, "kubernetes-engine/google") && !strings.Contains(source, "aks/azurerm") {
			continue
		}
		at := keyRange(f, name)
		m.r.Notes = append(m.r.Notes, fmt.Sprintf("Terraform: module.%s (%s:%d:%d) is a module call in JSON syntax, which is not read: its pools join as one pool of unknown taints and labels", name, f.Name, at.Start.Line, at.Start.Column))
		m.unknownPools(f.Name, "module."+name, "module."+name, "module."+name, tfField{v: cty.DynamicVal, rng: at, why: []string{"a module call in JSON syntax is not read"}})
	}
}

// configValue is a JSON-syntax value as Terraform reads it: strings are
// templates evaluated with the module's variables, locals and extra
// (each, count); a template that does not parse is unknown.
func (m *tfModule) configValue(v any, extra map[string]cty.Value) cty.Value {
	switch v := v.(type) {
	case string:
		if !strings.Contains(v, "${") && !strings.Contains(v, "%{") {
			return cty.StringVal(v)
		}
		expr, diags := hclsyntax.ParseTemplate([]byte(v), "", hcl.InitialPos)
		if diags.HasErrors() {
			return cty.DynamicVal
		}
		val, _ := m.eval(expr, extra)
		return val
	case []any:
		if len(v) == 0 {
			return cty.EmptyTupleVal
		}
		out := make([]cty.Value, len(v))
		for i, e := range v {
			out[i] = m.configValue(e, extra)
		}
		return cty.TupleVal(out)
	case map[string]any:
		out := make(map[string]cty.Value, len(v))
		for k, e := range v {
			out[k] = m.configValue(e, extra)
		}
		return cty.ObjectVal(out)
	}
	return jsonValue(v, nil)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// keyRange is where the object key name is first written in the file.
func keyRange(f loader.TerraformFile, name string) hcl.Range {
	q, _ := json.Marshal(name)
	line, col := 1, 1
	if i := bytes.Index(f.Data, q); i >= 0 {
		line = bytes.Count(f.Data[:i], []byte("\n")) + 1
		col = i - bytes.LastIndexByte(f.Data[:i], '\n')
	}
	pos := hcl.Pos{Line: line, Column: col}
	return hcl.Range{Filename: f.Name, Start: pos, End: pos}
}

// jsonVars applies a variable definitions file in JSON syntax
// (terraform.tfvars.json, *.auto.tfvars.json): each member is a
// variable's literal value.
func (m *tfModule) jsonVars(f loader.TerraformFile) {
	doc, ok := m.jsonDoc(f)
	if !ok {
		return
	}
	for name, v := range doc {
		m.vars[name] = jsonValue(v, nil)
		delete(m.varWhy, name)
	}
}

// jsonDoc decodes a JSON-syntax file, numbers kept as written; a file
// that is no JSON object is an error at its first line.
func (m *tfModule) jsonDoc(f loader.TerraformFile) (map[string]any, bool) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(f.Data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		m.r.Errors = append(m.r.Errors, &loader.Error{Pos: loader.Position{File: f.Name, Line: 1, Column: 1}, Msg: "Terraform JSON syntax: " + err.Error()})
		return nil, false
	}
	return doc, true
}
