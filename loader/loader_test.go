package loader

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/jsonscan"
	v1 "k8s.io/api/core/v1"
)

const sampleStream = `# leading comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels:
    app.kubernetes.io/name: web
spec:
  template:
    spec:
      tolerations:
      - key: a
        value: b
      - key: c
        operator: Exists
---
# only a comment
---
replicaCount: 3
---
apiVersion: v1
kind: NodeList
items:
- metadata:
    name: n1
  spec:
    taints:
    - {key: k, effect: NoSchedule}
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
...
---
apiVersion: v1
kind: Pod
metadata: {name: p}
`

func TestParseStream(t *testing.T) {
	r := Parse("s.yaml", []byte(sampleStream))
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %v", r.Errors[0])
	}
	var got []string
	for _, o := range r.Objects {
		got = append(got, o.APIVersion+" "+o.Ref.String())
	}
	want := []string{"apps/v1 Deployment/prod/web", "v1 Node/n1", "v1 Node/n2", "v1 Pod/p"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("objects = %q, want %q", got, want)
	}
	if r.Skipped != 1 {
		t.Errorf("skipped = %d, want 1 (the values document)", r.Skipped)
	}
	locs := []struct {
		obj   int
		path  string
		line  int
		col   int
		exact Exactness
	}{
		{0, "", 2, 1, Exact},
		{0, "metadata.name", 5, 3, Exact},
		{0, "metadata.labels[app.kubernetes.io/name]", 8, 5, Exact},
		{0, "spec.template.spec.tolerations[0]", 13, 9, Exact},
		{0, "spec.template.spec.tolerations[0].value", 14, 9, Exact},
		{0, "spec.template.spec.tolerations[1].operator", 16, 9, Exact},
		{0, "spec.template.spec.tolerations[1].effect", 15, 9, Ancestor},
		{0, "spec.template.spec.tolerations[7].effect", 12, 7, Ancestor},
		{1, "spec.taints[0].effect", 29, 16, Exact},
		{2, "metadata.name", 33, 5, Exact},
		{3, "metadata.name", 38, 12, Exact},
	}
	for _, l := range locs {
		pos, exact := r.Objects[l.obj].Locate(l.path)
		if pos.File != "s.yaml" || pos.Line != l.line || pos.Column != l.col || exact != l.exact {
			t.Errorf("object %d %q: got %v %v, want s.yaml:%d:%d %v", l.obj, l.path, pos, exact, l.line, l.col, l.exact)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		msg      string
		objects  int
	}{
		{"flow", "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: [x\n", 4, "invalid YAML", 0},
		{"mapping", "a: 1\nb: c: d\n", 2, "mapping values are not allowed", 0},
		{"tab", "a: 1\n\tb: 2\n", 2, "tab", 0},
		{"later document", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkey: [\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n", 5, "invalid YAML", 2},
		{"duplicate key", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n", 5, `mapping key "name" already defined at line 4 (field metadata.name; kubectl rejects the duplicate; the last value is checked)`, 1},
		{"binary", "abc\x00def", 1, "binary file", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse("f.yaml", []byte(tt.in))
			if len(r.Objects) != tt.objects {
				t.Errorf("objects = %d, want %d", len(r.Objects), tt.objects)
			}
			if len(r.Errors) != 1 {
				t.Fatalf("errors = %v, want one", r.Errors)
			}
			e := r.Errors[0]
			if e.Pos.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got %v, want line %d with %q", e, tt.line, tt.msg)
			}
		})
	}
}

// TestDuplicateKeys: every key given twice is an error at its second
// occurrence, and the object is checked with the last values, positions
// included.
func TestDuplicateKeys(t *testing.T) {
	in := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\nspec:\n  tolerations:\n  - key: k\n    effect: X\n    effect: NoSchedule\n"
	r := Parse("f.yaml", []byte(in))
	var got []string
	for _, e := range r.Errors {
		got = append(got, e.Error())
	}
	want := []string{
		`f.yaml:5:3: invalid YAML: mapping key "name" already defined at line 4 (field metadata.name; kubectl rejects the duplicate; the last value is checked)`,
		`f.yaml:10:5: invalid YAML: mapping key "effect" already defined at line 9 (field spec.tolerations[0].effect; kubectl rejects the duplicate; the last value is checked)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.Objects) != 1 || r.Objects[0].Name != "b" {
		t.Fatalf("objects %+v, want Pod b", r.Objects)
	}
	o := r.Objects[0]
	if j, _ := o.JSON(); !strings.Contains(string(j), `"effect":"NoSchedule"`) || strings.Contains(string(j), `"X"`) {
		t.Errorf("JSON %s, want the last effect only", j)
	}
	if pos, _ := o.Locate("spec.tolerations[0].effect"); pos.Line != 10 {
		t.Errorf("effect at %v, want line 10 (the value checked)", pos)
	}
}

func TestParseBOMAndJSON(t *testing.T) {
	r := Parse("x.json", []byte("\xef\xbb\xbf{\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n \"metadata\": {\"name\": \"j\"}}"))
	if len(r.Errors) > 0 || len(r.Objects) != 1 || r.Objects[0].Name != "j" {
		t.Fatalf("got %+v %v", r.Objects, r.Errors)
	}
	if pos, _ := r.Objects[0].Locate("metadata.name"); pos.Line != 2 {
		t.Errorf("metadata.name at %v, want line 2", pos)
	}
}

func TestDecode(t *testing.T) {
	src := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations:
  - key: ok
    operator: Exists
  - key: num
    value: 123
  - key: b
    value: yes
  - key: q
    value: "yes"
    tolerationSeconds: 30
  nodeSelector: &sel
    disk: ssd
`
	r := Parse("p.yaml", []byte(src))
	obj := r.Objects[0]
	var spec v1.PodSpec
	err := obj.Decode("spec", &spec)
	var de *jsonscan.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a DecodeError", err)
	}
	if de.Path != "spec.tolerations[1].value" || !strings.Contains(de.Msg, "number") {
		t.Errorf("got %q %q, want spec.tolerations[1].value and a number", de.Path, de.Msg)
	}
	if len(spec.Tolerations) != 4 || spec.Tolerations[3].Value != "yes" || *spec.Tolerations[3].TolerationSeconds != 30 {
		t.Errorf("best-effort decode lost data: %+v", spec.Tolerations)
	}
	if spec.NodeSelector["disk"] != "ssd" {
		t.Errorf("nodeSelector = %v", spec.NodeSelector)
	}
}

func TestDecodeYAML11Bool(t *testing.T) {
	r := Parse("p.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - key: b\n    value: on\n"))
	var spec v1.PodSpec
	err := r.Objects[0].Decode("spec", &spec)
	var de *jsonscan.DecodeError
	if !errors.As(err, &de) || de.Path != "spec.tolerations[0].value" || !strings.Contains(de.Msg, "bool") {
		t.Fatalf("err = %v, want a bool type error at spec.tolerations[0].value", err)
	}
}

func TestMergeKeys(t *testing.T) {
	src := `base: &base
  key: dedicated
  operator: Equal
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations:
  - <<: *base
    value: gpu
`
	r := Parse("m.yaml", []byte(src))
	var spec v1.PodSpec
	if err := r.Objects[0].Decode("spec", &spec); err != nil {
		t.Fatal(err)
	}
	tol := spec.Tolerations[0]
	if tol.Key != "dedicated" || tol.Operator != v1.TolerationOpEqual || tol.Value != "gpu" {
		t.Errorf("merged toleration = %+v", tol)
	}
	if pos, exact := r.Objects[0].Locate("spec.tolerations[0].key"); exact != Exact || pos.Line != 2 {
		t.Errorf("merged key located at %v (%v), want line 2", pos, exact)
	}
}

func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	r := Parse("bomb.yaml", []byte(b.String()))
	if len(r.Objects) != 1 {
		t.Fatalf("objects = %d, errors = %v", len(r.Objects), r.Errors)
	}
	var v map[string]any
	err := r.Objects[0].Decode("", &v)
	if err == nil || !strings.Contains(err.Error(), "alias expansion") {
		t.Fatalf("err = %v, want an alias expansion limit", err)
	}
}

func TestLoadPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\n"
	write("a.yaml", strings.Replace(pod, "%s", "a", 1))
	write("sub/b.yml", strings.Replace(pod, "%s", "b", 1))
	write("sub/c.json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"}}`)
	write("README.md", "# not read")
	write(".hidden/d.yaml", strings.Replace(pod, "%s", "d", 1))
	write(".github/workflows/ci.yaml", "on: push\njobs: {}\n")
	if err := os.Symlink("nowhere.yaml", filepath.Join(dir, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(dir, "sub", "loop")); err != nil {
		t.Fatal(err)
	}

	r, err := Load(context.Background(), []string{dir, "-"}, Options{Stdin: strings.NewReader(strings.Replace(pod, "%s", "stdin", 1)), StdinName: "<stdin>"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range r.Objects {
		names = append(names, o.Name+"@"+strings.TrimPrefix(o.File, filepath.ToSlash(dir)+"/"))
	}
	want := "a@a.yaml b@sub/b.yml c@sub/c.json stdin@<stdin>"
	if strings.Join(names, " ") != want {
		t.Errorf("objects = %q, want %q", strings.Join(names, " "), want)
	}
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Msg, "dangling symbolic link") {
		t.Errorf("errors = %v, want one dangling symlink error", r.Errors)
	}

	if _, err := Load(context.Background(), []string{filepath.Join(dir, "missing.yaml")}, Options{}); err == nil {
		t.Error("missing path: want an error")
	} else if !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing path error = %v", err)
	}
}

// TestSplitDocumentsLines: documents start where their markers are, and
// a line starting with --- followed by anything but white space or a
// comment is cut as kubectl cuts it, left out, and an issue.
func TestSplitDocumentsLines(t *testing.T) {
	docs, issues := stream.Split([]byte("a: 1\n---\nb: 2\n--- \nc: 3\n...\n---x: not a marker\nd: 4\n"), true)
	var lines []int
	for _, d := range docs {
		lines = append(lines, d.Line)
	}
	if len(docs) != 4 || lines[0] != 0 || lines[1] != 1 || lines[2] != 3 || lines[3] != 7 {
		t.Errorf("documents start at %v (%d docs), want [0 1 3 7]", lines, len(docs))
	}
	if len(issues) != 1 || issues[0].Line != 7 || !strings.Contains(issues[0].Msg, "invalid document separator") {
		t.Errorf("issues %v, want one at line 7", issues)
	}
}

// TestUnmarked: with a marker, Load lists the files read whole whose
// bytes do not hold it, small and large (a long List, searched while it
// is parsed), standard input included; without one, none.
func TestUnmarked(t *testing.T) {
	dir := t.TempDir()
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"
	var list strings.Builder
	list.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for list.Len() < 2<<20 {
		list.WriteString("- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: c}]}\n")
	}
	files := map[string]string{
		"plain.yaml":       pod,
		"marked.yaml":      pod + "# taintlint:ignore pod-unschedulable -- why\n",
		"long.yaml":        list.String(),
		"long-marked.yaml": list.String() + "# taintlint:ignore x\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, marker := range []string{"", "taintlint:ignore"} {
		opts := Options{Stdin: strings.NewReader(pod), Marker: []byte(marker)}
		r, err := Load(context.Background(), []string{dir, "-"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, f := range r.Unmarked {
			got[filepath.Base(f)] = true
		}
		want := map[string]bool{}
		if marker != "" {
			want = map[string]bool{"plain.yaml": true, "long.yaml": true, "-": true}
		}
		if len(r.Files) != 5 || !reflect.DeepEqual(got, want) {
			t.Errorf("marker %q: files %v, unmarked %v, want %v", marker, r.Files, got, want)
		}
	}
}

// TestSeparatorComment: a line of "---" followed at once by a comment
// separates documents as kubectl's YAMLReader and Helm's SplitManifests
// separate them; YAML alone reads it as text. Each document is read as
// the fast path and yaml.v3 read it, with positions in the file.
func TestSeparatorComment(t *testing.T) {
	src := "# notes\n---#\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---# {{- end }}\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  nodeName: n\n---#x: y\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n"
	for _, fast := range []bool{true, false} {
		r := parseStream("s.yaml", []byte(src), fast)
		if len(r.Errors) > 0 {
			t.Fatalf("fast %v: errors %v", fast, r.Errors)
		}
		var names []string
		for _, o := range r.Objects {
			names = append(names, o.Name)
		}
		if strings.Join(names, ",") != "a,b,c" {
			t.Fatalf("fast %v: objects %v, want a, b, c", fast, names)
		}
		if p, _ := r.Objects[1].Locate("spec.nodeName"); p.Line != 11 || p.Column != 3 {
			t.Errorf("fast %v: spec.nodeName of b at %v, want 11:3", fast, p)
		}
		if p := r.Objects[2].Pos(); p.Line != 14 {
			t.Errorf("fast %v: c at %v, want line 14", fast, p)
		}
	}
}
