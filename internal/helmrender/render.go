package helmrender

import (
	"fmt"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"sigs.k8s.io/yaml"
)

// Release is .Release: what helm template sets for a first install.
type Release struct {
	Name, Namespace string
}

// Options are the settings of a render.
type Options struct {
	Release Release
	// Capabilities are .Capabilities (NewCapabilities); the chart's
	// kubeVersion constraint is checked against their KubeVersion.
	Capabilities *Capabilities
}

// Result is a rendered chart.
type Result struct {
	// Manifests are the rendered templates by the engine's name for them
	// (chart/templates/x.yaml, chart/charts/sub/templates/y.yaml):
	// partials are left out, NOTES.txt is not.
	Manifests map[string]string
	// Unchecked are the values.schema.json files that could not be
	// checked exactly (see schema.go); rendering went on.
	Unchecked []Unchecked
	// Uses are the values of .Values each template printed whole, in
	// the order printed, by the Manifests' names (trace.go).
	Uses map[string][]ValueUse
}

// Unchecked is a chart whose schema was not checked, and why.
type Unchecked struct {
	Chart, Why string
}

// Render renders ch over the user's values vals (files and --set already
// merged) as helm template does: dependencies, the kubeVersion check, the
// values (coalesced, then checked against each chart's values.schema.json)
// and the engine. It changes ch (dependencies processed), as Helm does.
func Render(ch *chart.Chart, vals map[string]any, opts Options) (res *Result, err error) {
	defer func() {
		if x := recover(); x != nil {
			res, err = nil, fmt.Errorf("%v", x)
		}
	}()
	if err := processDependencies(ch, vals); err != nil {
		return nil, err
	}
	caps := opts.Capabilities
	if c := ch.Metadata.KubeVersion; c != "" && !isCompatibleRange(c, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c, caps.KubeVersion.String())
	}
	top := Values{
		"Chart":        ch.Metadata,
		"Capabilities": caps,
		"Release": map[string]any{
			"Name":      opts.Release.Name,
			"Namespace": opts.Release.Namespace,
			"IsUpgrade": false,
			"IsInstall": true,
			"Revision":  1,
			"Service":   "Helm",
		},
	}
	values, err := CoalesceValues(ch, vals)
	if err != nil {
		return nil, err
	}
	res = &Result{}
	msg, unchecked := validateCharts(ch, values)
	if msg != "" {
		return nil, fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s", msg)
	}
	res.Unchecked = unchecked
	top["Values"] = values
	tpls := map[string]renderable{}
	collectTemplates(ch, top, tpls)
	res.Manifests, res.Uses, err = execute(tpls, newTracer(values))
	if err != nil {
		return nil, err
	}
	return res, nil
}

// SimpleHead is what Helm reads of every rendered document
// (releaseutil.SimpleHead): the type name and fields are Helm's so that a
// document that does not decode gives the same message.
type SimpleHead struct {
	Version  string `json:"apiVersion"`
	Kind     string `json:"kind,omitempty"`
	Metadata *struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata,omitempty"`
}

// CheckManifests reads every document of a rendered template as helm
// template does before printing it (releaseutil.SortManifests), which
// fails the chart on a document it cannot read: "YAML parse error on
// <name>: <reason>".
func CheckManifests(name, rendered string) error {
	if strings.HasPrefix(path.Base(name), "_") || strings.TrimSpace(rendered) == "" {
		return nil
	}
	for _, d := range splitManifests(rendered) {
		var h SimpleHead
		if err := yaml.Unmarshal([]byte(d), &h); err != nil {
			// encoding/json names the Go type it decodes into; Helm's
			// messages name Helm's.
			msg := strings.ReplaceAll(err.Error(), "helmrender.SimpleHead", "releaseutil.SimpleHead")
			return fmt.Errorf("YAML parse error on %s: %s", name, msg)
		}
	}
	return nil
}

// splitManifests splits a rendered template at lines "---" as Helm does
// (releaseutil.SplitManifests): separators may be preceded by blanks at a
// line's end and followed by blanks, and empty documents are dropped.
func splitManifests(s string) []string {
	var out []string
	for _, d := range manifestSepRE.Split(strings.TrimSpace(s), -1) {
		if d == "" {
			continue
		}
		out = append(out, strings.TrimSpace(d))
	}
	return out
}
