package helmrender

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
)

// FuzzRenderMatchesHelm renders a chart of one template, its values and
// a subchart with Helm's engine and with Render: same bytes, or the same
// error.
func FuzzRenderMatchesHelm(f *testing.F) {
	for _, files := range synthCharts {
		for name, data := range files {
			if strings.HasPrefix(name, "templates/") && !strings.HasPrefix(name, "templates/_") {
				f.Add(data, files["values.yaml"], "")
			}
		}
	}
	f.Add(`{{ .Values.a | default "x" }} {{ include "sub.t" . }}`, "a: 1\nsub: {b: 2}\n", "b: 3\nglobal: {g: 1}\n")
	f.Add(`{{ toYaml .Values }}`, "global: {g: 2}\nsub: null\n", "c: {d: null}\n")
	f.Fuzz(func(t *testing.T, tpl, values, subValues string) {
		load := func() (*chart.Chart, error) {
			return chartloader.LoadFiles([]*chartloader.BufferedFile{
				{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: top\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  condition: sub.on\n")},
				{Name: "values.yaml", Data: []byte(values)},
				{Name: "templates/t.yaml", Data: []byte(tpl)},
				{Name: "charts/sub/Chart.yaml", Data: []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n")},
				{Name: "charts/sub/values.yaml", Data: []byte(subValues)},
				{Name: "charts/sub/templates/_t.tpl", Data: []byte(`{{ define "sub.t" }}{{ toJson .Values }}{{ end }}`)},
				{Name: "charts/sub/templates/s.yaml", Data: []byte("s: {{ toJson .Values }}\n")},
			})
		}
		if strings.Contains(tpl, "until") || strings.Contains(tpl, "repeat") || len(tpl) > 2000 {
			return // unbounded loops and strings: time, not behaviour
		}
		if d, _ := diffOutcome(t, load, nil); d != "" {
			t.Error(d)
		}
	})
}
