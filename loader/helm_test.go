package loader

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/testfs"
	"github.com/taintlint/taintlint/loader/internal/helmchart"
)

func TestIsHelmTemplate(t *testing.T) {
	tests := []struct {
		name string
		data string
		want bool
	}{
		{name: "plain manifest", data: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", want: false},
		{name: "values reference in a string", data: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"{{ .Release.Name }}-web\"\n", want: true},
		{name: "include on its own line", data: "metadata:\n  labels:\n    {{- include \"chart.labels\" . | nindent 4 }}\n", want: true},
		{name: "control action breaks YAML", data: "{{- if .Enabled }}\napiVersion: v1\nkind: Pod\n  bad: [\n{{- end }}\n", want: true},
		{name: "unquoted action is YAML structure", data: "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: {{ .replicas }}\n", want: true},
		{name: "alertmanager template in a ConfigMap", data: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: am}\ndata:\n  msg.tmpl: |\n    {{ range .Alerts }}{{ .Labels.alertname }}{{ end }}\n", want: false},
		{name: "argo workflow parameter", data: "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nspec:\n  templates:\n  - container:\n      args: [\"{{inputs.parameters.message}}\"]\n", want: false},
		{name: "braces without action", data: "apiVersion: v1\nkind: ConfigMap\ndata: {a: \"{}\"}\n", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := helmchart.IsTemplate([]byte(tt.data)); got != tt.want {
				t.Errorf("IsTemplate = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestChartFiles: a chart is rendered, never its templates parsed as YAML,
// and a file of a chart named on the command line (a template, values.yaml,
// a CRD) stands for the chart, rendered once; crds/ is left out as helm
// template leaves it out.
func TestChartFiles(t *testing.T) {
	dir := t.TempDir()
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\n"
	testfs.Write(t, dir, map[string]string{
		"chart/Chart.yaml":                 "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
		"chart/values.yaml":                "replicas: 1\n",
		"chart/templates/pod.yaml":         strings.Replace(pod, "%s", "tpl", 1), // no action, still a template
		"chart/templates/sub/deep.yaml":    strings.Replace(pod, "%s", "deep", 1),
		"chart/crds/crd.yaml":              strings.Replace(pod, "%s", "crd", 1),
		"plain/templates/pod.yaml":         strings.Replace(pod, "%s", "notchart", 1), // no Chart.yaml beside
		"loose/helmish.yaml":               "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Values.name }}\n",
		"loose/configmap.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {t: \"{{ .Labels.x }}\"}\n",
		"chart/templates/NOTES.txt":        "{{ .Release.Name }}\n",
		"chart/templates/_helpers.tpl.yml": "{{- define \"x\" -}}\n{{- end -}}\n",
	})
	names := func(r *Result) string {
		var out []string
		for _, o := range r.Objects {
			out = append(out, o.Name)
		}
		return strings.Join(out, " ")
	}

	t.Run("walk", func(t *testing.T) {
		r, err := Load(context.Background(), []string{dir}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := names(r), "tpl deep cm notchart"; got != want {
			t.Errorf("objects = %q, want %q", got, want)
		}
		if len(r.Errors) != 0 {
			t.Errorf("errors = %v, want none", r.Errors)
		}
	})
	t.Run("named files", func(t *testing.T) {
		var paths []string
		for _, n := range []string{"chart/templates/pod.yaml", "chart/templates/sub/deep.yaml", "loose/helmish.yaml", "loose/configmap.yaml", "chart/values.yaml"} {
			paths = append(paths, filepath.Join(dir, filepath.FromSlash(n)))
		}
		r, err := Load(context.Background(), paths, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := names(r), "tpl deep cm"; got != want {
			t.Errorf("objects = %q, want %q", got, want)
		}
		if len(r.Errors) != 0 {
			t.Errorf("errors = %v, want none", r.Errors)
		}
	})
	t.Run("relative path", func(t *testing.T) {
		t.Chdir(filepath.Join(dir, "chart"))
		r, err := Load(context.Background(), []string{"templates/pod.yaml", "crds/crd.yaml"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := names(r), "tpl deep"; got != want {
			t.Errorf("objects = %q, want %q", got, want)
		}
	})
}

func TestFileInKustomizationTree(t *testing.T) {
	dir := t.TempDir()
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml]\n"
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
	testfs.Write(t, dir, map[string]string{
		"repo/.git/HEAD":                              "ref: refs/heads/main\n",
		"repo/base/kustomization.yaml":                kust,
		"repo/base/app.yaml":                          pod,
		"repo/base/patches/tolerations.yaml":          "- op: add\n",
		"repo/overlays/prod/kustomization.yml":        "resources: [../../base]\n",
		"repo/overlays/prod/patch.yaml":               pod,
		"repo/plain/app.yaml":                         pod,
		"kustomization.yaml":                          kust, // above the repository: never used
		"repo/other/Kustomization":                    kust,
		"repo/other/deep/er/x.yaml":                   pod,
		"repo/overlays/prod/ignored-name.txt.yaml.no": pod,
	})
	t.Chdir(filepath.Join(dir, "repo"))

	tests := []struct {
		name      string
		paths     []string
		kustomize bool
		want      []string // kind:name of each unit
	}{
		{name: "file replaced by the roots that include it", paths: []string{"base/app.yaml"}, kustomize: true, want: []string{"k:overlays/prod"}},
		{name: "nearest root wins", paths: []string{"overlays/prod/patch.yaml"}, kustomize: true, want: []string{"k:overlays/prod"}},
		{name: "deeper file", paths: []string{"base/patches/tolerations.yaml", "other/deep/er/x.yaml"}, kustomize: true, want: []string{"k:overlays/prod", "k:other"}},
		{name: "deduplicated, and the directory itself built", paths: []string{"base/app.yaml", "base", "base/kustomization.yaml", "./base/patches/tolerations.yaml"}, kustomize: true, want: []string{"k:overlays/prod", "k:base"}},
		{name: "file outside any tree", paths: []string{"plain/app.yaml"}, kustomize: true, want: []string{"f:plain/app.yaml"}},
		{name: "kustomize off", paths: []string{"base/app.yaml", "base/patches/tolerations.yaml"}, kustomize: false, want: []string{"f:base/app.yaml", "f:base/patches/tolerations.yaml"}},
		{name: "stops at the repository root", paths: []string{filepath.Join(dir, "repo", "plain", "app.yaml")}, kustomize: true, want: []string{"f:" + filepath.ToSlash(filepath.Join(dir, "repo", "plain", "app.yaml"))}},
	}
	t.Run("file roots off, as for the node inventory", func(t *testing.T) {
		units, err := expandPaths([]string{"base/app.yaml"}, Options{Kustomize: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(units) != 1 || units[0].kind != fileUnit || units[0].name != "base/app.yaml" {
			t.Errorf("units = %+v, want the file itself", units)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			units, err := expandPaths(tt.paths, Options{Kustomize: tt.kustomize, KustomizeFileRoots: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range units {
				if u.kind == leftoverUnit {
					continue // read only when no build includes it
				}
				k := "f:"
				if u.kind == kustomizeUnit {
					k = "k:"
				}
				got = append(got, k+u.name)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("units = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzIsHelmTemplate: the template check reads every named file before the
// parser does, so it must not panic or hang on any bytes.
func FuzzIsHelmTemplate(f *testing.F) {
	seedFromTestdata(f)
	f.Add([]byte("a: {{ .Values.x }}\n"))
	f.Add([]byte("{{{{{{{{ {{ }}: x\n"))
	f.Add([]byte(strings.Repeat("{", 5000) + "{{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		helmchart.IsTemplate(data)
	})
}
