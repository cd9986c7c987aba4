package loader

import (
	"context"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/testfs"
)

// TestRenderChartSchema: a chart's values.schema.json fails the chart as
// helm template does, and a schema the renderer cannot check exactly is
// a note, not a finding.
func TestRenderChartSchema(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"ok/Chart.yaml":             "apiVersion: v2\nname: ok\nversion: 0.1.0\n",
		"ok/values.yaml":            "replicas: 2\n",
		"ok/values.schema.json":     `{"properties":{"replicas":{"type":"integer","minimum":1}}}`,
		"ok/templates/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"bad/Chart.yaml":            "apiVersion: v2\nname: bad\nversion: 0.1.0\n",
		"bad/values.yaml":           "replicas: zero\n",
		"bad/values.schema.json":    `{"properties":{"replicas":{"type":"integer"}},"required":["image"]}`,
		"bad/templates/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"format/Chart.yaml":         "apiVersion: v2\nname: format\nversion: 0.1.0\n",
		"format/values.yaml":        "mail: nobody\n",
		"format/values.schema.json": `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"mail":{"format":"email"}}}`,
		"format/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
	})
	t.Chdir(dir)
	tests := []struct {
		chart     string
		objects   int
		err, note string
	}{
		{chart: "ok", objects: 1},
		{chart: "bad", err: "bad/Chart.yaml:1:1: Helm chart failed to render: values don't meet the specifications of the schema(s) in the following chart(s):\nbad:\n- at '': missing property 'image'\n- at '/replicas': got string, want integer"},
		{chart: "format", objects: 1, note: "format/Chart.yaml: values.schema.json of chart format not checked (Helm checks it): it uses format under a draft that asserts it (at #/properties/mail)"},
	}
	for _, tt := range tests {
		t.Run(tt.chart, func(t *testing.T) {
			r, err := Load(context.Background(), []string{tt.chart}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Objects) != tt.objects {
				t.Errorf("%d objects, want %d", len(r.Objects), tt.objects)
			}
			var errs []string
			for _, e := range r.Errors {
				errs = append(errs, e.Error())
			}
			if got := strings.Join(errs, "\n"); got != tt.err {
				t.Errorf("errors:\n%s\nwant:\n%s", got, tt.err)
			}
			if got := strings.Join(r.Notes, "\n"); !strings.HasPrefix(got, tt.note) || (tt.note == "") != (got == "") {
				t.Errorf("notes %q, want one starting %q", got, tt.note)
			}
		})
	}
}
