package loader

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/testfs"
)

// chartFiles is a chart exercising what helm template does beyond plain
// templates: a hook, a dependency under charts/ and one turned off by its
// condition, lookup, partials, NOTES.txt, crds/ and a values-driven list.
var chartFiles = map[string]string{
	"app/Chart.yaml": `apiVersion: v2
name: app
version: 1.0.0
dependencies:
- name: cache
  version: 0.1.0
  condition: cache.enabled
- name: extra
  version: 0.1.0
  condition: extra.enabled
`,
	"app/values.yaml": `replicas: 1
tolerations:
- key: pool
  operator: Equal
  value: batch
  effect: NoSchedule
nodeSelector:
  kubernetes.io/os: linux
cache:
  enabled: true
extra:
  enabled: false
`,
	"app/templates/_helpers.tpl": `{{- define "app.name" -}}{{ .Release.Name }}-app{{- end }}
`,
	"app/templates/NOTES.txt": "Installed {{ .Release.Name }}.\n",
	"app/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.name" . }}
  namespace: {{ .Release.Namespace }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
      - name: app
        image: app:1
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      nodeSelector: {{- toYaml .Values.nodeSelector | nindent 8 }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace "app" }}
{{- if not $existing }}
---
apiVersion: v1
kind: Secret
metadata:
  name: app
{{- end }}
`,
	"app/templates/hook.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    helm.sh/hook: pre-install
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: "m:1"}]
`,
	"app/crds/crd.yaml":                   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: crd}\n",
	"app/charts/cache/Chart.yaml":         "apiVersion: v2\nname: cache\nversion: 0.1.0\n",
	"app/charts/cache/values.yaml":        "size: 2\n",
	"app/charts/cache/templates/sts.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: cache-{{ .Values.size }}\n",
	"app/charts/extra/Chart.yaml":         "apiVersion: v2\nname: extra\nversion: 0.1.0\n",
	"app/charts/extra/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n",
	"prod.yaml":                           "replicas: 3\ntolerations:\n- key: pool\n  operator: Exists\nnodeSelector:\n  pool: batch\n",
	"lib/Chart.yaml":                      "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n",
	"lib/templates/_x.tpl":                "{{- define \"lib.x\" }}x{{ end }}\n",
	"broken/Chart.yaml":                   "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
	"broken/templates/a.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.missing.name }}\n",
	"badyaml/Chart.yaml":                  "apiVersion: v2\nname: badyaml\nversion: 0.1.0\n",
	"badyaml/templates/a.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n",
	"kube/Chart.yaml":                     "apiVersion: v2\nname: kube\nversion: 0.1.0\nkubeVersion: \">=1.40.0\"\n",
	"kube/templates/a.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
}

func objectNames(r *Result) []string {
	var out []string
	for _, o := range r.Objects {
		out = append(out, o.Kind+"/"+o.Name)
	}
	slices.Sort(out)
	return out
}

func TestRenderChart(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, chartFiles)
	t.Chdir(dir)
	load := func(t *testing.T, opts Options, paths ...string) *Result {
		t.Helper()
		r, err := Load(context.Background(), paths, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	t.Run("defaults", func(t *testing.T) {
		r := load(t, Options{}, "app")
		if len(r.Errors) > 0 {
			t.Fatalf("errors: %v", r.Errors)
		}
		want := []string{"Deployment/release-name-app", "Job/migrate", "Secret/app", "StatefulSet/cache-2"}
		if got := objectNames(r); !slices.Equal(got, want) {
			t.Errorf("objects = %v, want %v", got, want)
		}
		for _, o := range r.Objects {
			if o.Kind == "Deployment" {
				if o.Namespace != "default" || o.File != "app/templates/deployment.yaml" {
					t.Errorf("deployment: namespace %q file %q", o.Namespace, o.File)
				}
				pos, exact := o.Locate("spec.template.spec.tolerations[0].value")
				if pos.String() != "app/values.yaml:5:3" || exact != Exact {
					t.Errorf("toleration value at %v (%v), want app/values.yaml:5:3", pos, exact)
				}
				pos, _ = o.Locate("spec.replicas")
				if pos.String() != "app/templates/deployment.yaml:7:3" {
					t.Errorf("replicas at %v, want the template line", pos)
				}
				pos, exact = o.Locate("metadata.name")
				if pos.String() != "app/templates/deployment.yaml:4:3" || exact != Exact {
					t.Errorf("name at %v (%v)", pos, exact)
				}
			}
			if o.Kind == "StatefulSet" && o.File != "app/charts/cache/templates/sts.yaml" {
				t.Errorf("subchart object file %q", o.File)
			}
		}
	})

	t.Run("values files and set", func(t *testing.T) {
		opts := Options{Helm: HelmOptions{ValuesFiles: []string{"prod.yaml"}, Set: []string{"cache.size=5", "extra.enabled=true"}, ReleaseName: "web", Namespace: "prod"}}
		r := load(t, opts, "app")
		if len(r.Errors) > 0 {
			t.Fatalf("errors: %v", r.Errors)
		}
		want := []string{"ConfigMap/extra", "Deployment/web-app", "Job/migrate", "Secret/app", "StatefulSet/cache-5"}
		if got := objectNames(r); !slices.Equal(got, want) {
			t.Errorf("objects = %v, want %v", got, want)
		}
		for _, o := range r.Objects {
			if o.Kind != "Deployment" {
				continue
			}
			pos, _ := o.Locate("spec.template.spec.tolerations[0].operator")
			if pos.String() != "prod.yaml:4:3" {
				t.Errorf("toleration from the values file at %v, want prod.yaml:4:3", pos)
			}
			// Merged from two files, the map equals neither: the entry is found.
			if pos, _ := o.Locate("spec.template.spec.nodeSelector[pool]"); pos.String() != "prod.yaml:6:3" {
				t.Errorf("merged nodeSelector entry at %v, want prod.yaml:6:3", pos)
			}
			if pos, _ := o.Locate("spec.template.spec.nodeSelector[kubernetes.io/os]"); pos.String() != "app/values.yaml:8:3" {
				t.Errorf("default nodeSelector entry at %v, want app/values.yaml:8:3", pos)
			}
			if pos, _ := o.Locate("spec.replicas"); pos.File != "app/templates/deployment.yaml" {
				t.Errorf("replicas at %v", pos)
			}
		}
	})

	t.Run("per-chart settings", func(t *testing.T) {
		opts := Options{Helm: HelmOptions{Chart: func(p string) ([]string, []string) {
			if p == "app" {
				return []string{"prod.yaml"}, []string{"replicas=7"}
			}
			return nil, nil
		}}}
		r := load(t, opts, "app/templates/deployment.yaml", "app/values.yaml")
		n := 0
		for _, o := range r.Objects {
			if o.Kind == "Deployment" {
				n++
				j, _ := o.JSON()
				if !bytes.Contains(j, []byte(`"replicas":7`)) || !bytes.Contains(j, []byte(`"operator":"Exists"`)) {
					t.Errorf("deployment %s", j)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d deployments, want the chart rendered once", n)
		}
	})

	t.Run("failures", func(t *testing.T) {
		r := load(t, Options{}, "broken", "badyaml", "kube", "lib")
		var got []string
		for _, e := range r.Errors {
			got = append(got, e.Error())
		}
		want := []string{
			"broken/templates/a.yaml:4:18: Helm chart failed to render",
			"badyaml/templates/a.yaml:1:1: Helm chart failed to render: YAML parse error",
			"kube/Chart.yaml:1:1: Helm chart failed to render: chart requires kubeVersion: >=1.40.0 which is incompatible with Kubernetes v1.37.0",
		}
		if len(got) != len(want) {
			t.Fatalf("errors = %q, want %d", got, len(want))
		}
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("error %d = %q, want prefix %q", i, got[i], want[i])
			}
		}
		if len(r.Objects) != 0 || r.Skipped != 1 {
			t.Errorf("objects %v skipped %d, want none and the library chart skipped", objectNames(r), r.Skipped)
		}
	})

	t.Run("kube version", func(t *testing.T) {
		r := load(t, Options{Helm: HelmOptions{KubeVersion: "1.41.0"}}, "kube")
		if len(r.Errors) > 0 || len(r.Objects) != 1 {
			t.Errorf("errors %v objects %v", r.Errors, objectNames(r))
		}
	})

	t.Run("archive", func(t *testing.T) {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for name, data := range chartFiles {
			if !strings.HasPrefix(name, "app/") || strings.Contains(name, "/charts/") {
				continue
			}
			if name == "app/Chart.yaml" {
				data = "apiVersion: v2\nname: app\nversion: 1.0.0\n"
			}
			tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data))})
			tw.Write([]byte(data))
		}
		tw.Close()
		gz.Close()
		if err := os.WriteFile("app-1.0.0.tgz", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		r := load(t, Options{}, "app-1.0.0.tgz")
		want := []string{"Deployment/release-name-app", "Job/migrate", "Secret/app"}
		if got := objectNames(r); !slices.Equal(got, want) || len(r.Errors) > 0 {
			t.Errorf("objects = %v errors %v, want %v", got, r.Errors, want)
		}
		for _, o := range r.Objects {
			if !strings.HasPrefix(o.File, "app-1.0.0.tgz/templates/") {
				t.Errorf("file %q", o.File)
			}
		}
	})
}

// TestHelmLocateFallback: a field from an action that neither the
// template's text nor a values file holds is at the object's first line in
// its template, marked Rendered.
func TestHelmLocateFallback(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/pod.yaml": `# a comment
{{- $t := dict "key" "computed" "operator" "Exists" }}
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  tolerations:
  {{- list $t | toYaml | nindent 2 }}
`,
	})
	t.Chdir(dir)
	r, err := Load(context.Background(), []string{"c"}, Options{})
	if err != nil || len(r.Objects) != 1 {
		t.Fatalf("load: %v %v %v", err, r.Errors, r.Objects)
	}
	o := r.Objects[0]
	pos, exact := o.Locate("spec.tolerations[0].key")
	if pos.String() != "c/templates/pod.yaml:3:1" || exact != Rendered {
		t.Errorf("computed key at %v (%v), want the object's first template line, Rendered", pos, exact)
	}
	pos, exact = o.Locate("spec.tolerations")
	if pos.String() != "c/templates/pod.yaml:8:3" || exact != Exact {
		t.Errorf("tolerations at %v (%v)", pos, exact)
	}
	if pos, _ := o.Locate(""); pos.String() != "c/templates/pod.yaml:3:1" {
		t.Errorf("object at %v", pos)
	}
}

// TestChartSymlinks: Helm's own loader follows every symbolic link in a
// chart directory; taintlint's reads a link only when it names a file
// inside the chart. A link out of the chart (its target would become a
// template) and a link to a directory (a loop through one lists the
// chart again at every level) are refused with an error at the link.
func TestChartSymlinks(t *testing.T) {
	outside := t.TempDir()
	testfs.Write(t, outside, map[string]string{"secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: leaked}\n"})
	chart := map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: links\nversion: 0.1.0\n",
		"values.yaml":         "",
		"real/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside}\n",
		"templates/keep.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept}\n",
	}
	tests := []struct {
		name, link, target string
		want               string // error at the link; "" for none
		objects            []string
	}{
		{"outside", "templates/leak.yaml", filepath.Join(outside, "secret.yaml"), "links/templates/leak.yaml:1:1: cannot load Helm chart: templates/leak.yaml: symbolic link leads outside the chart", nil},
		{"relative outside", "templates/leak.yaml", "", "links/templates/leak.yaml:1:1: cannot load Helm chart: templates/leak.yaml: symbolic link leads outside the chart", nil},
		{"loop", "templates/loop", "..", "links/templates/loop:1:1: cannot load Helm chart: templates/loop: symbolic link to a directory", nil},
		{"directory outside", "templates/dir", outside, "links/templates/dir:1:1: cannot load Helm chart: templates/dir: symbolic link leads outside the chart", nil},
		{"inside", "templates/cm.yaml", "../real/cm.yaml", "", []string{"ConfigMap/inside", "ConfigMap/kept"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.name == "relative outside" {
				root = filepath.Dir(outside) // the link climbs to the sibling
				root, _ = os.MkdirTemp(root, "chart")
				tt.target = "../../../" + filepath.Base(outside) + "/secret.yaml"
			}
			dir := filepath.Join(root, "links")
			testfs.Write(t, dir, chart)
			if err := os.Symlink(tt.target, filepath.Join(dir, filepath.FromSlash(tt.link))); err != nil {
				t.Skip(err)
			}
			t.Chdir(root)
			r, err := Load(context.Background(), []string{"links"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkLoaded(t, r, tt.want, tt.objects)
		})
	}
}

// TestChartLinksInRepository: with the repository's root known, a chart
// directory linked from elsewhere in the repository (a library chart
// under charts/, as rook links its own) is read as Helm reads it, under
// the link's name; a link out of the repository and a link back into a
// directory being walked are still refused.
func TestChartLinksInRepository(t *testing.T) {
	outside := t.TempDir()
	testfs.Write(t, outside, map[string]string{"lib/Chart.yaml": "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n"})
	repo := map[string]string{
		"app/Chart.yaml":              "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: lib\n  version: 0.1.0\n",
		"app/values.yaml":             "name: kept\n",
		"app/templates/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"lib.name\" . }}\n",
		"library/Chart.yaml":          "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n",
		"library/templates/_name.tpl": "{{- define \"lib.name\" -}}{{ .Values.name }}{{- end -}}\n",
	}
	tests := []struct {
		name, target string
		want         string // error at the link; "" for none
		objects      []string
	}{
		{"library in the repository", "../../library", "", []string{"ConfigMap/kept"}},
		{"library outside", filepath.Join(outside, "lib"), "app/charts/lib:1:1: cannot load Helm chart: charts/lib: symbolic link leads outside the repository", nil},
		{"loop", "..", "app/charts/lib:1:1: cannot load Helm chart: charts/lib: symbolic link to a directory that holds it", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			testfs.Write(t, root, repo)
			if err := os.MkdirAll(filepath.Join(root, "app", "charts"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tt.target, filepath.Join(root, "app", "charts", "lib")); err != nil {
				t.Skip(err)
			}
			t.Chdir(root)
			r, err := Load(context.Background(), []string{"app"}, Options{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			checkLoaded(t, r, tt.want, tt.objects)
		})
	}
}

// TestHelmValuesByPath: a field a template printed from .Values is at the
// line of its path in the values it came from, in Helm's precedence:
// --set (said so, at the template line printing it), the --values files
// from the last, the chart's values.yaml, a subchart's under its alias,
// the parent's globals over the subchart's. Values that read the same at
// two paths are told apart.
func TestHelmValuesByPath(t *testing.T) {
	dir := t.TempDir()
	tol := "  tolerations:\n  - key: k\n    operator: Exists\n"
	ds := func(name, expr string) string {
		return "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: " + name + "}\nspec:\n  template:\n    spec:\n      tolerations:\n        {{- toYaml " + expr + " | nindent 8 }}\n"
	}
	testfs.Write(t, dir, map[string]string{
		"app/Chart.yaml":                    "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: agent\n  version: 0.1.0\n  alias: gpu\n",
		"app/values.yaml":                   "a:\n" + tol + "b:\n" + tol + "c:\n" + tol + "gpu:\n" + tol + "global:\n" + tol,
		"app/templates/a.yaml":              ds("a", ".Values.a.tolerations"),
		"app/templates/b.yaml":              ds("b", ".Values.b.tolerations"),
		"app/templates/c.yaml":              ds("c", ".Values.c.tolerations"),
		"app/charts/agent/Chart.yaml":       "apiVersion: v2\nname: agent\nversion: 0.1.0\n",
		"app/charts/agent/values.yaml":      "tolerations:\n- key: k\n  operator: Exists\n",
		"app/charts/agent/templates/d.yaml": ds("d", ".Values.tolerations") + "---\n" + ds("g", ".Values.global.tolerations"),
		"override.yaml":                     "b:\n" + tol,
	})
	t.Chdir(dir)
	r, err := Load(context.Background(), []string{"app"}, Options{Helm: HelmOptions{ValuesFiles: []string{"override.yaml"}, Set: []string{"c.tolerations[0].key=k"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %v", r.Errors)
	}
	want := map[string]string{
		"a": "app/values.yaml:4:5",
		"b": "override.yaml:4:5",
		"c": "app/templates/c.yaml:7:1",
		"d": "app/values.yaml:16:5",
		"g": "app/values.yaml:20:5",
	}
	for _, o := range r.Objects {
		pos, exact := o.Locate("spec.template.spec.tolerations[0].operator")
		wantExact := Exact
		if o.Name == "c" {
			wantExact = CommandLine
		}
		if pos.String() != want[o.Name] || exact != wantExact {
			t.Errorf("%s: operator at %v (%v), want %s (%v)", o.Name, pos, exact, want[o.Name], wantExact)
		}
	}
	if len(r.Objects) != len(want) {
		t.Errorf("objects %v", objectNames(r))
	}
}

// TestHelmRangeIterations: every object a {{ range }} writes is located
// in the template as the first is; the later ones used to be at 1:1.
func TestHelmRangeIterations(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"c/Chart.yaml":  "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/values.yaml": "names: [a, b, c]\n",
		"c/templates/p.yaml": "{{- range .Values.names }}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ . }}\n" +
			"spec:\n  containers: [{name: x, image: x}]\n  tolerations:\n  - operator: Exists\n    value: bad\n{{- end }}\n",
	})
	t.Chdir(dir)
	r, err := Load(context.Background(), []string{"c"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := objectNames(r); !slices.Equal(got, []string{"Pod/a", "Pod/b", "Pod/c"}) {
		t.Fatalf("objects %v", got)
	}
	for _, o := range r.Objects {
		if pos, exact := o.Locate("spec.tolerations[0].value"); pos.String() != "c/templates/p.yaml:11:5" || exact != Exact {
			t.Errorf("%s: value at %v (%v), want c/templates/p.yaml:11:5", o.Name, pos, exact)
		}
		if pos, _ := o.Locate("metadata.name"); pos.String() != "c/templates/p.yaml:6:3" {
			t.Errorf("%s: name at %v, want c/templates/p.yaml:6:3", o.Name, pos)
		}
	}
}

// checkLoaded fails the test unless r holds no error (want "") or one
// starting with want, and exactly the objects named.
func checkLoaded(t *testing.T, r *Result, want string, objects []string) {
	t.Helper()
	var got []string
	for _, e := range r.Errors {
		got = append(got, e.Error())
	}
	switch {
	case want == "" && len(got) > 0:
		t.Errorf("errors %q", got)
	case want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], want)):
		t.Errorf("errors %q, want one starting %q", got, want)
	}
	if names := objectNames(r); !slices.Equal(names, objects) {
		t.Errorf("objects %v, want %v", names, objects)
	}
}
