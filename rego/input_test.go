package rego

import (
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// yamlCases are documents whose conversion is easy to get wrong.
var yamlCases = []struct{ name, doc string }{
	{"yaml 1.1 booleans", "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: 'yes'\ng: \"on\"\nh: !!str yes\ni: true\n"},
	{"numbers", "a: 1\nb: -7\nc: 0x1f\nd: 0o17\ne: 1_000\nf: 1.5\ng: 1e3\nh: .inf\ni: .nan\nj: 18446744073709551615\nk: 99999999999999999999\nl: '5'\nm: 010\n"},
	{"nulls", "a: null\nb: ~\nc:\nd: 'null'\n"},
	{"block scalars", "a: |\n  line one\n  line two\nb: >-\n  folded\n  text\n"},
	{"merge keys", "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nlist:\n  <<: [*b, {z: 4, x: 9}]\n"},
	{"duplicate keys", "a: 1\nb: 2\na: 3\n"},
	{"aliases", "a: &x [1, 2, {k: v}]\nb: *x\nc: *x\n"},
	{"tags", "a: !!binary aGVsbG8=\nb: !custom thing\nc: 2001-12-14\nd: !!float 3\n"},
	{"numeric keys", "1: one\ntrue: yes\nnull: x\n"},
	{"unicode", "a: \"caf\\u00e9 \\x41\"\nb: 日本\n"},
	{"empty", "{}\n"},
	{"non-scalar key", "? [a, b]\n: c\n"},
	{"merge of a list", "<<: [1, 2]\n"},
}

// TestAliasBomb: a "billion laughs" document (ten levels of ten aliases)
// gives no policy input (the loader's expansion budget stops it) instead
// of exhausting memory.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", ")
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, refs)
	}
	objs := loader.Parse("bomb.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  "+strings.ReplaceAll(b.String(), "\n", "\n  ")+"\n"))
	if len(objs.Objects) != 1 {
		t.Fatalf("%d objects, want the one the document holds", len(objs.Objects))
	}
	for _, obj := range objs.Objects {
		if _, err := objectInput(obj, nil, nil); err == nil {
			t.Fatal("a billion-laughs document converted without error")
		}
	}
}

func TestObjectInput(t *testing.T) {
	tests := []struct {
		name, doc, specPath string
		wantSpec            string // the podSpec value as Rego text
		workload            int    // which of the object's workloads
	}{
		{
			name:     "second template of several",
			doc:      "apiVersion: elasticsearch.k8s.elastic.co/v1\nkind: Elasticsearch\nmetadata: {name: es}\nspec:\n  nodeSets:\n  - name: a\n    podTemplate: {spec: {containers: [{name: a}]}}\n  - name: b\n    podTemplate: {spec: {containers: [{name: b}]}}\n",
			specPath: "spec.nodeSets[1].podTemplate.spec",
			wantSpec: `{"containers": [{"name": "b"}]}`,
			workload: 1,
		},
		{
			name:     "deployment",
			doc:      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: prod}\nspec:\n  template:\n    spec:\n      containers: [{name: a}]\n",
			specPath: "spec.template.spec",
			wantSpec: `{"containers": [{"name": "a"}]}`,
		},
		{
			name:     "no pod spec",
			doc:      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
			wantSpec: "null",
		},
		{
			name:     "pod spec path absent",
			doc:      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
			specPath: "spec",
			wantSpec: "null",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loader.Parse("t.yaml", []byte(tt.doc))
			if len(r.Objects) != 1 {
				t.Fatalf("%d objects, errors %v", len(r.Objects), r.Errors)
			}
			obj := r.Objects[0]
			var meta struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct{ Name, Namespace string }
			}
			if err := obj.Decode("", &meta); err != nil {
				t.Fatal(err)
			}
			obj.Ref = loader.Ref{APIVersion: meta.APIVersion, Kind: meta.Kind, Name: meta.Metadata.Name, Namespace: meta.Metadata.Namespace}
			var w *k8s.Workload
			if tt.specPath != "" {
				ws, _ := k8s.NewInterner().Workloads(obj)
				if len(ws) <= tt.workload || ws[tt.workload].SpecPathString() != tt.specPath {
					t.Fatalf("workloads %v, want one at %s", ws, tt.specPath)
				}
				w = ws[tt.workload]
			}
			v, err := objectInput(obj, w, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := v.(ast.Object)
			get := func(k string) string { return in.Get(ast.StringTerm(k)).Value.String() }
			if got := get("podSpec"); got != tt.wantSpec {
				t.Errorf("podSpec %s, want %s", got, tt.wantSpec)
			}
			wantPath := "null"
			if tt.specPath != "" {
				wantPath = `"` + tt.specPath + `"`
			}
			if got := get("podSpecPath"); got != wantPath {
				t.Errorf("podSpecPath %s, want %s", got, wantPath)
			}
			if got := get("kind"); got != `"`+meta.Kind+`"` {
				t.Errorf("kind %s, want %q", got, meta.Kind)
			}
			if got := get("namespace"); got != `"`+meta.Metadata.Namespace+`"` {
				t.Errorf("namespace %s, want %q", got, meta.Metadata.Namespace)
			}
			if got := in.Get(ast.StringTerm("object")).Value.(ast.Object).Get(ast.StringTerm("kind")).Value.String(); got != `"`+meta.Kind+`"` {
				t.Errorf("object.kind %s", got)
			}
		})
	}
}
