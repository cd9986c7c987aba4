package loader

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// treePaths lists the field path of every key and element below n, in
// Locate's form, and for each a sibling that does not exist.
func treePaths(n *yaml.Node, prefix string, out []string, limit int) []string {
	n = yamltree.Deref(n)
	if n == nil || len(out) >= limit {
		return out
	}
	switch n.Kind {
	case yaml.MappingNode:
		out = append(out, prefix+".absent", prefix+"[0]")
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			var p string
			switch {
			case strings.Contains(k, "]"):
				continue
			case k == "" || strings.ContainsAny(k, ".["):
				p = prefix + "[" + k + "]"
			case prefix == "":
				p = k
			default:
				p = prefix + "." + k
			}
			out = append(out, p)
			out = treePaths(n.Content[i+1], p, out, limit)
		}
	case yaml.SequenceNode:
		out = append(out, prefix+"["+strconv.Itoa(len(n.Content))+"]", prefix+".absent")
		for i, e := range n.Content {
			p := prefix + "[" + strconv.Itoa(i) + "]"
			out = append(out, p)
			out = treePaths(e, p, out, limit)
		}
	default:
		out = append(out, prefix+".absent", prefix+"[0]")
	}
	return out
}

// checkMarks holds Locate from the kept marks to Locate on the tree, for
// every field of o and a missing one beside each.
func checkMarks(t *testing.T, o *Object, limit int) {
	t.Helper()
	if _, ms := o.form(); ms == nil {
		return
	}
	tree := o.Tree() // held: locateTree walks it for every path
	defer runtime.KeepAlive(tree)
	for _, p := range append(treePaths(tree, "", []string{""}, limit), "[", "a[", "..") {
		steps, err := jsonscan.ParsePath(p)
		if err != nil {
			steps = nil
		}
		wantPos, wantExact := locateTree(tree, o.File, o.src.docLine(), steps)
		gotPos, gotExact := o.Locate(p)
		if gotPos != wantPos || gotExact != wantExact {
			t.Fatalf("%s %s: Locate(%q) = %v %v from marks, %v %v from the tree", o.File, o.Ref, p, gotPos, gotExact, wantPos, wantExact)
		}
	}
}

func TestMarksMatchTree(t *testing.T) {
	var objects, marked int
	root := filepath.Join("..", "testdata")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifestName(d.Name()) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil // the hostile fixtures hold dangling links
		}
		for _, o := range Parse(p, data).Objects {
			objects++
			if _, ms := o.form(); ms != nil {
				marked++
			}
			checkMarks(t, o, 1<<20)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Most fixtures are plain: the marks route must be the one taken.
	if marked < objects*9/10 {
		t.Fatalf("%d of %d objects keep marks", marked, objects)
	}
}

func TestMarksEdgeCases(t *testing.T) {
	const doc = `apiVersion: v1
kind: Pod
metadata:
  name: "p"
  labels: {a.b/c: x, "0": y, "": z}
  annotations:
    note: |
      spec:
        not: a field
spec:
  tolerations:
  - {key: a, operator: Exists}
  -
  - key: "b,c]"
    value: "x: [1, {2}]"
  - []
  - [[], {}, [1, [2, 3]]]
  containers: [{name: c, args: ["a", 'b"', "\"{"]}]
  ? complex key
  : 1
  unicode: "é ü"
  é: 2
`
	r := Parse("edge.yaml", []byte("# lead\n---\n"+doc+"---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n- "+strings.ReplaceAll(doc, "\n", "\n  ")+"\n"))
	if len(r.Errors) > 0 || len(r.Objects) != 3 {
		t.Fatalf("objects %d, errors %v", len(r.Objects), r.Errors)
	}
	for _, o := range r.Objects {
		if _, ms := o.form(); ms == nil {
			t.Fatalf("%s: no marks", o.Ref)
		}
		checkMarks(t, o, 1<<20)
	}
	pos, exact := r.Objects[0].Locate("spec.tolerations[2].value")
	if pos.Line != 17 || pos.Column != 5 || exact != Exact {
		t.Fatalf("spec.tolerations[2].value at %v %v, want edge.yaml:17:5", pos, exact)
	}
}

// A document with aliases keeps no marks and locates on its tree.
func TestNoMarksWithAliases(t *testing.T) {
	r := Parse("a.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: &m {name: p}\nspec:\n  x: *m\n"))
	if len(r.Objects) != 1 || hasMarks(r.Objects[0]) {
		t.Fatalf("objects %v", r.Objects)
	}
	if pos, _ := r.Objects[0].Locate("spec.x.name"); pos.Line != 3 {
		t.Fatalf("spec.x.name at %v", pos)
	}
}

func hasMarks(o *Object) bool {
	_, ms := o.form()
	return ms != nil
}

func formJSON(o *Object) []byte {
	j, _ := o.form()
	return j
}

func formMarks(o *Object) yamltree.Marks {
	_, ms := o.form()
	return ms
}
