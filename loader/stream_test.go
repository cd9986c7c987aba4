package loader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONStreams: a .json file is read as kubectl's decoder reads it. A
// series of JSON objects is a series of objects; after two, anything else
// is an error; after one, the rest is YAML and a document there that is
// not an object is an error. Nothing after the first value is dropped
// without a word.
func TestJSONStreams(t *testing.T) {
	obj := func(name string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"a","image":"a"}]}}`
	}
	tests := []struct {
		name, data string
		objects    []string // names
		errs       []string // line:col: message prefix
	}{
		{name: "one", data: obj("a") + "\n", objects: []string{"a"}},
		{name: "two concatenated", data: obj("a") + "\n" + obj("b") + "\n", objects: []string{"a", "b"}},
		{name: "two on one line", data: obj("a") + obj("b"), objects: []string{"a", "b"}},
		{name: "trailing garbage", data: obj("a") + "\n\n garbage\n", objects: []string{"a"},
			errs: []string{"3:2: a document after the JSON object is not a Kubernetes object"}},
		{name: "garbage after two", data: obj("a") + "\n" + obj("b") + "\nxyz\n", objects: []string{"a", "b"},
			errs: []string{"3:1: invalid JSON after 2 JSON objects"}},
		{name: "stray brace", data: obj("a") + "\n}\n", objects: []string{"a"},
			errs: []string{"2:1: invalid YAML"}},
		{name: "comment after", data: obj("a") + "\n# done\n", objects: []string{"a"}},
		{name: "YAML document after", data: obj("a") + "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n", objects: []string{"a", "b"}},
		{name: "array", data: `[1, 2]` + "\n", objects: nil},
		{name: "invalid JSON is YAML's to report", data: "{\"a\": [1,\n", errs: []string{"invalid YAML"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse("x.json", []byte(tt.data))
			var names []string
			for _, o := range r.Objects {
				names = append(names, o.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.objects) {
				t.Errorf("objects %v, want %v", names, tt.objects)
			}
			if len(r.Errors) != len(tt.errs) {
				t.Fatalf("errors %v, want %v", r.Errors, tt.errs)
			}
			for i, e := range r.Errors {
				got := fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
				if !strings.HasPrefix(got, tt.errs[i]) && !strings.Contains(got, tt.errs[i]) {
					t.Errorf("error %q, want %q", got, tt.errs[i])
				}
			}
		})
	}
}

// TestHiddenFilesCounted: a walk leaves out manifest files whose names
// start with a dot, and says which; a hidden file named on the command
// line is read.
func TestHiddenFilesCounted(t *testing.T) {
	dir := t.TempDir()
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n"
	for _, n := range []string{".hidden.yaml", "shown.yaml", ".notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(pod), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Load(context.Background(), []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Objects) != 1 || len(r.Hidden) != 1 || filepath.Base(r.Hidden[0]) != ".hidden.yaml" {
		t.Errorf("objects %d, hidden %v; want 1 and [.hidden.yaml]", len(r.Objects), r.Hidden)
	}
	r, err = Load(context.Background(), []string{filepath.Join(dir, ".hidden.yaml")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Objects) != 1 || len(r.Hidden) != 0 {
		t.Errorf("named hidden file: objects %d, hidden %v; want 1 and none", len(r.Objects), r.Hidden)
	}
}

// FuzzParseJSON: a .json file never panics the loader, and every error is
// at a line of the file.
func FuzzParseJSON(f *testing.F) {
	obj := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}`
	for _, s := range []string{obj, obj + obj, obj + "\nx\n", obj + "\n---\n" + "kind: A\napiVersion: v1\n", "[1]{}", obj + "\n}", "{\"a\":"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Parse("f.json", data)
		lines := 1 + strings.Count(string(data), "\n")
		for _, e := range r.Errors {
			if e.Pos.Line < 1 || e.Pos.Line > lines {
				t.Fatalf("error at line %d of %d: %s", e.Pos.Line, lines, e.Msg)
			}
		}
	})
}
