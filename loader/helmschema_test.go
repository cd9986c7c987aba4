package loader

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/testfs"
	"github.com/taintlint/taintlint/internal/testnet"
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

// TestChartSchemaNeverFetches: a values.schema.json whose $ref names a URL
// or a file outside the schema is neither fetched nor read (Helm's
// validator would do both, so a chart could make the linter reach the
// network or read any file); the schema is left unchecked with a note.
func TestChartSchemaNeverFetches(t *testing.T) {
	addr, conns := testnet.Listen(t)
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.json")
	testfs.Write(t, filepath.Dir(outside), map[string]string{"outside.json": `{"properties":{"replicas":{"type":"integer"}}}`})
	refs := map[string]string{
		"http":  "http://" + addr + "/schema.json",
		"https": "https://" + addr + "/schema.json",
		"file":  "file://" + filepath.ToSlash(outside),
		"path":  filepath.ToSlash(outside),
		"rel":   "../outside.json",
	}
	for name, ref := range refs {
		testfs.Write(t, dir, map[string]string{
			name + "/Chart.yaml":         "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n",
			name + "/values.yaml":        "replicas: zero\n",
			name + "/values.schema.json": `{"properties":{"replicas":{"$ref":"` + ref + `"}}}`,
			name + "/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		})
	}
	t.Chdir(dir)
	for name, ref := range refs {
		t.Run(name, func(t *testing.T) {
			r, err := Load(context.Background(), []string{name}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Errors) != 0 || len(r.Objects) != 1 {
				t.Errorf("errors %v, %d objects; want none and 1", r.Errors, len(r.Objects))
			}
			if got := strings.Join(r.Notes, "\n"); !strings.Contains(got, "not checked") || !strings.Contains(got, ref) {
				t.Errorf("notes %q, want one saying the schema with %q was not checked", got, ref)
			}
		})
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections to the schema's URL, want none", n)
	}
}

// TestChartRenderedTooLarge: a template that renders more than a file may
// hold is refused at the template, as a file of that size is, without
// reading the rendered text first.
func TestChartRenderedTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 65 MiB")
	}
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"big/Chart.yaml":        "apiVersion: v2\nname: big\nversion: 0.1.0\n",
		"big/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: \"{{ repeat 68157440 \"x\" }}\"}\n",
		"big/templates/ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
	})
	t.Chdir(dir)
	r, err := Load(context.Background(), []string{"big"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "big/templates/cm.yaml:1:1: file is larger than 64 MiB; not read (in the rendered template)"
	if len(r.Errors) != 1 || r.Errors[0].Error() != want {
		t.Errorf("errors %v, want %q", r.Errors, want)
	}
	if len(r.Objects) != 1 {
		t.Errorf("%d objects, want the other template's 1", len(r.Objects))
	}
}
