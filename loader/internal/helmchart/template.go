package helmchart

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"

	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
)

// Helm chart templates are Go templates, not manifests: linted as they are,
// they give parse errors or, worse, findings about "{{ .Values.x }}" strings.
// A chart is rendered instead (helmchart.go); a loose file that is a Helm
// template without its chart is left out, without a finding.

// IsTemplatesDir reports whether dir is the templates directory of a
// Helm chart: named templates, beside a Chart.yaml.
func IsTemplatesDir(dir string) bool {
	if filepath.Base(dir) != "templates" {
		return false
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(dir), "Chart.yaml"))
	return err == nil && fi.Mode().IsRegular()
}

// helmActionRE matches a template action that uses what only Helm provides:
// its built-in objects or its own functions.
var helmActionRE = regexp.MustCompile(`\{\{-?[^}]*?(\.(Values|Release|Chart|Capabilities|Files|Template)\b|\b(include|tpl|toYaml|fromYaml|required|lookup)\b)`)

// IsTemplate reports whether a file's content is a Helm (Go) template
// rather than a manifest. "{{" alone is not enough: real manifests carry Go
// templates in string values (Alertmanager and Prometheus rules in
// ConfigMaps, Argo Workflows parameters) and must still be checked. So a
// file is a template when it has "{{" and an action names Helm's objects or
// functions, or the actions break the YAML, or they are YAML structure (an
// unquoted {{ x }} reads as a flow mapping inside a flow mapping).
func IsTemplate(data []byte) bool {
	if !bytes.Contains(data, []byte("{{")) {
		return false
	}
	if helmActionRE.Match(data) {
		return true
	}
	for _, d := range stream.Documents(data) {
		var doc yaml.Node
		if err := yamltree.Unmarshal(d.Data, &doc); err != nil {
			return true
		}
		if hasBraceStructure(&doc, 0) {
			return true
		}
	}
	return false
}

// hasBraceStructure reports whether a flow mapping has a flow mapping as a
// key: what "{{ x }}" becomes when YAML reads an unquoted template action.
// depth bounds the recursion on hostile input.
func hasBraceStructure(n *yaml.Node, depth int) bool {
	if n == nil || depth > maxTemplateDepth {
		return false
	}
	if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle != 0 {
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.MappingNode && k.Style&yaml.FlowStyle != 0 {
				return true
			}
		}
	}
	for _, c := range n.Content {
		if hasBraceStructure(c, depth+1) {
			return true
		}
	}
	return false
}

// maxTemplateDepth is deeper than any real manifest nests.
const maxTemplateDepth = 200
