package helmrender

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/testfs"
	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/strvals"
)

// synthCharts are charts written to exercise what helm template does
// beyond plain substitution; each is rendered under every values set of
// synthValues.
var synthCharts = map[string]map[string]string{
	"deps": {
		"Chart.yaml": `apiVersion: v2
name: deps
version: 1.0.0
kubeVersion: ">=1.20.0-0"
dependencies:
- name: sub
  version: "~0.1"
  condition: sub.enabled,global.subOn
  tags: [back]
  import-values:
  - child: exported
    parent: fromSub
  - data
- name: sub
  alias: second
  version: 0.1.0
  condition: second.on
- name: other
  version: 2.x
  tags: [front, back]
- name: lib
  version: 0.1.0
`,
		"values.yaml": `global:
  region: eu
  shared: {a: 1, b: {c: 2}}
  list: [1, 2]
sub:
  enabled: true
  size: 3
  nested: {keep: yes, drop: null}
second:
  on: false
fromSub: {local: 1}
tags: {}
replicas: 2
nullable: null
map: {x: 1, y: {z: 2}}
`,
		"templates/_helpers.tpl": `{{- define "deps.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}
{{- define "deps.labels" -}}
app: {{ include "deps.name" . }}
chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
{{- end -}}
`,
		"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "deps.name" . }}
  labels: {{- include "deps.labels" . | nindent 4 }}
data:
  values: |
{{ toYaml .Values | indent 4 }}
  pretty: |
{{ toYamlPretty .Values.map | indent 4 }}
  json: {{ toJson .Values.map | quote }}
  mustjson: {{ mustToJson .Values.global | quote }}
  toml: {{ toToml .Values.map | quote }}
  fromtoml: {{ fromToml "a = 1\nb = 'x'" | toJson | quote }}
  badtoml: {{ fromToml "a = " | toJson | quote }}
  fromyaml: {{ fromYaml "a: [1, 2]\nb: {c: d}" | toJson | quote }}
  badyaml: {{ fromYaml "a: [" | toJson | quote }}
  yamlarr: {{ fromYamlArray "- 1\n- x" | toJson | quote }}
  jsonarr: {{ fromJsonArray "[1, \"x\"]" | toJson | quote }}
  badjson: {{ fromJson "{" | toJson | quote }}
  caps: {{ .Capabilities.KubeVersion }} {{ .Capabilities.KubeVersion.Major }} {{ .Capabilities.KubeVersion.Minor }} {{ .Capabilities.KubeVersion.GitVersion }}
  helm: {{ .Capabilities.HelmVersion.Version }}
  has: {{ .Capabilities.APIVersions.Has "apps/v1" }} {{ .Capabilities.APIVersions.Has "policy/v1beta1" }} {{ .Capabilities.APIVersions.Has "batch/v1/Job" }}
  release: {{ .Release.Name }} {{ .Release.Namespace }} {{ .Release.Revision }} {{ .Release.IsInstall }} {{ .Release.IsUpgrade }} {{ .Release.Service }}
  template: {{ .Template.Name }} {{ .Template.BasePath }}
  chart: {{ .Chart.Name }} {{ .Chart.Version }} {{ .Chart.AppVersion }} {{ .Chart.KubeVersion }} {{ .Chart.IsRoot }} {{ .Chart.APIVersion }} {{ .Chart.Type }}
  missing: {{ .Values.nothing }} {{ .Values.map.nothing }}
  nullable: {{ .Values.nullable }}
  global: {{ .Values.global.region }} {{ .Values.global.list }}
  fromSub: {{ toJson .Values.fromSub | quote }}
  imported: {{ .Values.imported | toJson | quote }}
  subcharts: {{ keys .Subcharts | sortAlpha | join "," }}
  subvals: {{ .Subcharts.sub.Values.size }}
  subtype: {{ typeOf .Subcharts.sub }} {{ typeOf .Release }} {{ kindOf .Values }} {{ typeOf .Values.map }} {{ typeOf .Chart }}
  lookup: {{ lookup "v1" "Secret" "default" "x" | toJson | quote }}
  host: {{ getHostByName "example.com" | quote }}
  tpl: {{ tpl "{{ .Values.replicas }}-{{ .Release.Name }}" . | quote }}
  tplinclude: {{ tpl "{{ include \"deps.name\" . }}" . | quote }}
  printmap: {{ .Values.map }}
  kind: {{ kindOf .Values.map }} {{ kindOf .Values.replicas }} {{ typeOf .Values.replicas }}
  files: {{ .Files.Get "files/a.txt" | quote }} {{ .Files.GetBytes "files/a.txt" | len }} {{ .Files.Get "nope" | quote }}
  lines: {{ range .Files.Lines "files/a.txt" }}[{{ . }}]{{ end }}
  glob: {{ range $k, $v := .Files.Glob "files/*.txt" }}{{ $k }};{{ end }}
  deepglob: {{ range $k, $v := .Files.Glob "**.conf" }}{{ $k }};{{ end }}
  config: |
{{ (.Files.Glob "files/*").AsConfig | indent 4 }}
  secrets: |
{{ (.Files.Glob "files/*").AsSecrets | indent 4 }}
  semver: {{ semverCompare ">=1.30" .Capabilities.KubeVersion.Version }}
  sprig: {{ list 3 1 2 | sortAlpha | join "-" }} {{ dict "a" 1 | toJson }} {{ default "d" .Values.nothing }} {{ "abc" | upper | trunc 2 }} {{ b64enc "x" }} {{ sha256sum "x" | trunc 8 }}
  ternary: {{ ternary "y" "n" (eq (int .Values.replicas) 2) }} {{ empty .Values.nothing }} {{ coalesce .Values.nothing "c" }}
`,
		"templates/NOTES.txt":           "Hello {{ .Release.Name }} {{ .Values.missing }}\n",
		"values.schema.json":            `{"type":"object","properties":{"replicas":{"type":"integer","minimum":1},"map":{"type":["object","null"]},"global":{"type":["object","integer"]}},"required":["replicas"]}`,
		"charts/sub/values.schema.json": `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"size":{"type":"integer","minimum":1,"maximum":5},"nested":{"type":["object","null"],"additionalProperties":{"type":["boolean","integer","object","null"]}}}}`,
		"files/a.txt":                   "line1\nline2\n",
		"files/b.txt":                   "b\n",
		"files/sub/c.conf":              "c=1\n",
		"charts/sub/Chart.yaml":         "apiVersion: v2\nname: sub\nversion: 0.1.0\nappVersion: \"1.2\"\n",
		"charts/sub/values.yaml":        "size: 1\nexported: {e: 1, f: [1, 2]}\nexports:\n  data: {imported: {from: sub}}\nnested: {keep: no, drop: 1, more: {x: 1}}\nglobal:\n  region: us\n  own: 1\n  shared: {b: {d: 3}}\n",
		"charts/sub/templates/d.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  labels:
    root: {{ .Chart.IsRoot | quote }}
spec:
  replicas: {{ .Values.size }}
  template:
    metadata:
      annotations:
        nested: {{ toJson .Values.nested | quote }}
        global: {{ toJson .Values.global | quote }}
        tpl: {{ .Template.Name }} {{ .Template.BasePath }}
`,
		"charts/other/Chart.yaml":           "apiVersion: v2\nname: other\nversion: 2.0.0\n",
		"charts/other/templates/o.yaml":     "apiVersion: v1\nkind: Service\nmetadata:\n  name: other-{{ .Values.global.region }}\n",
		"charts/lib/Chart.yaml":             "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n",
		"charts/lib/templates/_lib.tpl":     "{{- define \"lib.x\" }}lib-{{ .Chart.Name }}{{ end }}\n{{- define \"deps.name\" -}}overridden{{- end -}}\n",
		"charts/lib/templates/ignored.yaml": "kind: X\n",
		"templates/uses-lib.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"lib.x\" . }}\n",
	},
	"errors": {
		"Chart.yaml":  "apiVersion: v2\nname: errors\nversion: 1.0.0\n",
		"values.yaml": "mode: ok\nname: x\n",
		"templates/a.yaml": `{{- if eq .Values.mode "required" }}
{{ required "name is required!" .Values.nope }}
{{- else if eq .Values.mode "fail" }}
{{ fail "failed: on purpose" }}
{{- else if eq .Values.mode "nilmap" }}
{{ .Values.missing.deeper }}
{{- else if eq .Values.mode "badcall" }}
{{ add1 "x" | int | div 0 }}
{{- else if eq .Values.mode "include" }}
{{ include "nope" . }}
{{- else if eq .Values.mode "tplerr" }}
{{ tpl "{{ .Values.nope.x }}" . }}
{{- else if eq .Values.mode "tplparse" }}
{{ tpl "{{ .Values" . }}
{{- else if eq .Values.mode "tplreq" }}
{{ tpl "{{ required \"in tpl\" .Values.nope }}" . }}
{{- else if eq .Values.mode "recurse" }}
{{ include "loop" . }}
{{- else if eq .Values.mode "badyaml" }}
apiVersion: v1
kind: ConfigMap
metadata: [oops
{{- else if eq .Values.mode "badann" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  annotations:
    n: 1
{{- else if eq .Values.mode "numkind" }}
apiVersion: 1
kind: 2
{{- else }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Values.name }}
---
# comment only
---

---
apiVersion: v1
kind: Secret
metadata: {name: s}
{{- end }}
`,
		"templates/_loop.tpl": "{{ define \"loop\" }}{{ include \"loop\" . }}{{ end }}\n",
	},
	"parseerr": {
		"Chart.yaml":       "apiVersion: v2\nname: parseerr\nversion: 1.0.0\n",
		"templates/a.yaml": "x: {{ .Values.a \n",
	},
	"kube": {
		"Chart.yaml":       "apiVersion: v2\nname: kube\nversion: 1.0.0\nkubeVersion: \">=1.40.0\"\n",
		"templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
	},
	"v1chart": {
		"Chart.yaml":                "apiVersion: v1\nname: v1chart\nversion: 1.0.0\n",
		"requirements.yaml":         "dependencies:\n- name: s\n  version: 0.1.0\n  condition: s.on\n",
		"values.yaml":               "s: {on: true, v: 1}\n",
		"charts/s/Chart.yaml":       "apiVersion: v1\nname: s\nversion: 0.1.0\n",
		"charts/s/templates/a.yaml": "v: {{ .Values.v }}\nparent: {{ .Values.global }}\n",
	},
	"typemismatch": {
		"Chart.yaml":                "apiVersion: v2\nname: typemismatch\nversion: 1.0.0\ndependencies:\n- name: s\n  version: 0.1.0\n",
		"values.yaml":               "s: 3\n",
		"charts/s/Chart.yaml":       "apiVersion: v2\nname: s\nversion: 0.1.0\n",
		"charts/s/templates/a.yaml": "v: 1\n",
	},
}

// synthValues are user values (helm --set syntax) each chart is rendered
// under, besides none.
var synthValues = []string{
	"",
	"replicas=5",
	"sub.enabled=false",
	"sub.enabled=null",
	"global.subOn=false,sub.enabled=null",
	"tags.back=false",
	"tags.back=false,tags.front=true",
	"tags.back=false,sub.enabled=true",
	"second.on=true",
	"second.on=true,second.size=9",
	"sub.nested.keep=null",
	"sub.nested=null",
	"map=null",
	"map.y=null",
	"map.y.z=null,map.x=null",
	"global.region=null",
	"global.shared.a=null",
	"global.shared=7",
	"global=3",
	"sub.global.region=asia",
	"nullable=1",
	"fromSub.local=null",
	"mode=required",
	"mode=fail",
	"mode=nilmap",
	"mode=badcall",
	"mode=include",
	"mode=tplerr",
	"mode=tplparse",
	"mode=tplreq",
	"mode=recurse",
	"mode=badyaml",
	"mode=badann",
	"mode=numkind",
	"name=null",
	"s.on=false",
	"s.v=null",
	"s=null",
	"sub=3",
	"replicas=abc",
	"replicas=0,sub.size=0",
	"second.on=true,second.size=9,sub.size=7",
	"sub.nested.keep=str",
	"global.region=1",
}

func parseSet(t testing.TB, s string) map[string]any {
	t.Helper()
	v := map[string]any{}
	if s != "" {
		if err := strvals.ParseInto(s, v); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func dirLoader(dir string) func() (*chart.Chart, error) {
	return func() (*chart.Chart, error) { return chartloader.Load(dir) }
}

// TestRenderMatchesHelm is the exactness gate: every chart of the
// repository and every synthetic chart, under every values set, renders
// to the same bytes per template as with Helm's engine, or fails with the
// same message.
func TestRenderMatchesHelm(t *testing.T) {
	dirs := repoCharts(t)
	tmp := t.TempDir()
	for name, files := range synthCharts {
		d := filepath.Join(tmp, name)
		testfs.Write(t, d, files)
		dirs = append(dirs, d)
	}
	if len(dirs) < len(synthCharts)+5 {
		t.Fatalf("found only %d charts", len(dirs))
	}
	for _, dir := range dirs {
		for _, set := range synthValues {
			t.Run(filepath.Base(dir)+"/"+set, func(t *testing.T) {
				if d, _ := diffOutcome(t, dirLoader(dir), parseSet(t, set)); d != "" {
					t.Error(d)
				}
			})
		}
	}
}

// TestRenderMatchesHelmOutside runs the same comparison over every chart
// below the directories in $HELMRENDER_CHART_DIRS (colon-separated; for
// chart collections fetched by hand, never committed), reporting counts.
func TestRenderMatchesHelmOutside(t *testing.T) {
	roots := os.Getenv("HELMRENDER_CHART_DIRS")
	if roots == "" {
		t.Skip("HELMRENDER_CHART_DIRS not set")
	}
	var compared, identical, differing, unloadable, fallbacks, renders int
	reasons, skips := map[string]int{}, map[string]int{}
	for _, root := range filepath.SplitList(roots) {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "Chart.yaml" {
				return nil
			}
			dir := filepath.Dir(p)
			if parent := filepath.Dir(dir); filepath.Base(parent) == "charts" {
				if _, err := os.Stat(filepath.Join(filepath.Dir(parent), "Chart.yaml")); err == nil {
					return nil // a vendored subchart: rendered with its parent
				}
			}
			ch, err := chartloader.Load(dir)
			if err == nil && missingDeps(ch) {
				err = errors.New("dependencies not vendored")
			}
			if err != nil {
				unloadable++
				why := err.Error()
				if i := strings.Index(why, ":"); i > 0 && why != "dependencies not vendored" {
					why = why[:i]
				}
				skips[why]++
				return nil
			}
			compared++
			sets := flagVariations(ch.Values, 8)
			renders += len(sets)
			var diff string
			fb := false
			for _, vals := range sets {
				d, f := diffOutcome(t, dirLoader(dir), vals)
				fb = fb || f
				if d != "" && diff == "" {
					diff = fmt.Sprintf("with %v: %s", vals, d)
				}
			}
			if fb {
				fallbacks++
			}
			if diff == "" {
				identical++
				return nil
			}
			differing++
			first, _, _ := strings.Cut(diff, "\n")
			reasons[first]++
			t.Logf("%s: %s", dir, diff[:min(len(diff), 2000)])
			return nil
		})
	}
	t.Logf("charts compared %d (%d renders), identical %d, differing %d, schema fallbacks %d, skipped (unloadable or dependencies not vendored) %d", compared, renders, identical, differing, fallbacks, unloadable)
	for r, n := range reasons {
		t.Logf("  differing: %d× %s", n, r)
	}
	for r, n := range skips {
		t.Logf("  skipped: %d× %s", n, r)
	}
	if differing > 0 {
		t.Fail()
	}
}

// missingDeps reports whether a chart (or a subchart) names a dependency
// it does not hold.
func missingDeps(ch *chart.Chart) bool {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
		if missingDeps(d) {
			return true
		}
	}
	for _, req := range ch.Metadata.Dependencies {
		if !have[req.Name] {
			return true
		}
	}
	return false
}

// flagVariations are the values sets a fetched chart is rendered under:
// none, then each of the first n boolean defaults whose key says
// "enabled" flipped alone, then all of them flipped.
func flagVariations(defaults map[string]any, n int) []map[string]any {
	var paths [][]string
	var walk func(m map[string]any, path []string)
	walk = func(m map[string]any, path []string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			p := append(slices.Clone(path), k)
			switch v := m[k].(type) {
			case map[string]any:
				walk(v, p)
			case bool:
				if strings.Contains(strings.ToLower(k), "enabled") {
					paths = append(paths, p)
				}
			}
		}
	}
	walk(defaults, nil)
	paths = paths[:min(len(paths), n)]
	flip := func(vals map[string]any, p []string) {
		cur := vals
		d := defaults
		for _, k := range p[:len(p)-1] {
			next, ok := cur[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[k] = next
			}
			cur = next
			d, _ = d[k].(map[string]any)
		}
		b, _ := d[p[len(p)-1]].(bool)
		cur[p[len(p)-1]] = !b
	}
	sets := []map[string]any{nil}
	all := map[string]any{}
	for _, p := range paths {
		one := map[string]any{}
		flip(one, p)
		flip(all, p)
		sets = append(sets, one)
	}
	if len(paths) > 1 {
		sets = append(sets, all)
	}
	return sets
}
