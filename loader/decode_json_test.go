package loader

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	v1 "k8s.io/api/core/v1"
)

// jsonRoutePaths are the field paths the equivalence test decodes.
var jsonRoutePaths = []string{
	"", "metadata", "metadata.name", "metadata.labels[app.kubernetes.io/name]",
	"spec", "spec.template.spec", "spec.template.metadata", "spec.jobTemplate.spec.template.spec",
	"spec.template.spec.tolerations[0]", "spec.template.spec.tolerations[1].value",
	"spec.taints[0]", "spec.taints[9]", "items[0]", "template.spec", "data", "a.b[0].c",
}

// TestDecodeJSONMatchesTree holds Decode on the JSON the loader keeps to
// the same answers as Decode on the node tree, for every object of every
// fixture: same value, same error.
func TestDecodeJSONMatchesTree(t *testing.T) {
	var objs []*Object
	_ = filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 || !isManifestName(d.Name()) {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			objs = append(objs, Parse(p, data).Objects...)
		}
		return nil
	})
	objs = append(objs, Parse("s.yaml", []byte(sampleStream)).Objects...)
	objs = append(objs, Parse("q.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"a<b>&\\\"c\"\n  labels: {\"x\\\"y\": \"1\", \"<k>\": on}\nspec:\n  containers: [{name: a, image: 'b'}, {name: \"\\u00e9\", args: [1, 2.5, yes, null, ~]}]\n  tolerations: [{key: k, value: 1}]\n")).Objects...)
	var viaJSON int
	for _, o := range objs {
		j, ms := o.form()
		if j != nil {
			viaJSON++
		}
		if j != nil && ms == nil {
			// JSON read by sigs.k8s.io/yaml itself (kubectl.go): the tree
			// route is the loader's own emulation of it, which holds only
			// so far (merge keys nest 64 deep, kubectl's deeper).
			continue
		}
		for _, p := range append(jsonRoutePaths, "metadata.labels[x\"y]", "metadata.labels[<k>]", "spec.containers[1].args") {
			steps, _ := jsonscan.ParsePath(p)
			var a, b any
			errA := o.Decode(p, &a)
			errB := decodeNode(o.Tree(), p, steps, &b)
			if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(errA, errB) {
				t.Errorf("%s %s %q: JSON route %v, %v; tree %v, %v", o.File, o.Ref, p, a, errA, b, errB)
			}
		}
		for _, p := range []string{"spec", "spec.template.spec", "spec.jobTemplate.spec.template.spec"} {
			steps, _ := jsonscan.ParsePath(p)
			var a, b v1.PodSpec
			errA := o.Decode(p, &a)
			errB := decodeNode(o.Tree(), p, steps, &b)
			if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(errA, errB) {
				t.Errorf("%s %s %q: JSON route %v; tree %v", o.File, o.Ref, p, errA, errB)
			}
		}
	}
	if viaJSON < len(objs)/2 {
		t.Errorf("only %d of %d objects keep JSON", viaJSON, len(objs))
	}
}

// TestTreeReparsed checks that objects read from files keep no node tree
// and that Tree gives back the same node, List items included.
func TestTreeReparsed(t *testing.T) {
	r := Parse("s.yaml", []byte(sampleStream))
	if len(r.Objects) == 0 {
		t.Fatal("no objects")
	}
	for _, o := range r.Objects {
		if o.src.document() == nil || o.src.document().root.Value() != nil {
			t.Fatalf("%s keeps its tree after loading", o.Ref)
		}
	}
	for _, o := range r.Objects {
		n := o.Tree()
		_, meta := yamltree.Lookup(n, "metadata", 0)
		if got, _ := yamltree.Scalar(yamltree.Deref(meta), "name"); got != o.Name {
			t.Errorf("%s: Tree is named %q", o.Ref, got)
		}
		if o.Tree() != n {
			t.Errorf("%s: Tree parsed twice", o.Ref)
		}
		if !strings.Contains(string(o.src.document().raw), o.Name) {
			t.Errorf("%s: raw %q", o.Ref, o.src.document().raw)
		}
	}
}

// TestTreeReleased checks that a tree parsed again for a position is not
// kept once nobody holds it (a run with many findings would otherwise
// keep a tree per object), and that Tree then parses it again.
func TestTreeReleased(t *testing.T) {
	r := Parse("s.yaml", []byte(sampleStream))
	o := r.Objects[0]
	want, _ := o.Locate("metadata.name")
	runtime.GC()
	runtime.GC()
	if o.src.document().root.Value() != nil {
		t.Fatalf("%s keeps its tree after Locate", o.Ref)
	}
	if got, _ := o.Locate("metadata.name"); got != want {
		t.Errorf("Locate after release = %v, want %v", got, want)
	}
}

// TestLocateConcurrent: rules run in parallel and ask positions of the
// items of one List at once; the document is parsed again once, safely
// (run with -race).
func TestLocateConcurrent(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range 20 {
		b.WriteString("- apiVersion: v1\n  kind: Node\n  metadata: {name: n" + string(rune('a'+i)) + "}\n  spec: {taints: [{key: k, effect: NoSchedule}]}\n")
	}
	r := Parse("nodes.yaml", []byte(b.String()))
	if len(r.Objects) != 20 {
		t.Fatalf("%d objects", len(r.Objects))
	}
	want := make([]Position, len(r.Objects))
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i, o := range r.Objects {
				p, _ := o.Locate("spec.taints[0].key")
				if g == 0 {
					want[i] = p
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	for i, p := range want {
		if p.Line != 7+4*i || p.Column != 20 {
			t.Errorf("item %d: %v", i, p)
		}
	}
}

// TestParseManyDocuments: a stream long enough to be parsed on several
// cores gives the same objects, errors and counts, in the same order, as
// parsing its documents one by one.
func TestParseManyDocuments(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		switch i % 7 {
		case 3:
			b.WriteString("---\nkind: [broken\n")
		case 5:
			b.WriteString("---\njust: a map\n")
		default:
			b.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p" + strings.Repeat("x", i%5) + "}\nspec: {containers: [{name: a}]}\n")
		}
	}
	data := []byte(b.String())
	got := Parse("many.yaml", data)
	want := &Result{}
	for i, d := range stream.Documents(data) {
		parseDocument(want, "many.yaml", i, d)
	}
	if len(got.Objects) != len(want.Objects) || got.Skipped != want.Skipped || len(got.Errors) != len(want.Errors) {
		t.Fatalf("got %d objects, %d skipped, %d errors; want %d, %d, %d", len(got.Objects), got.Skipped, len(got.Errors), len(want.Objects), want.Skipped, len(want.Errors))
	}
	for i := range got.Objects {
		g, w := got.Objects[i], want.Objects[i]
		gp, _ := g.Locate("spec.containers[0].name")
		wp, _ := w.Locate("spec.containers[0].name")
		if g.Ref != w.Ref || g.Doc != w.Doc || gp != wp {
			t.Errorf("object %d: %v doc %d at %v; want %v doc %d at %v", i, g.Ref, g.Doc, gp, w.Ref, w.Doc, wp)
		}
	}
	for i := range got.Errors {
		if *got.Errors[i] != *want.Errors[i] {
			t.Errorf("error %d: %v; want %v", i, got.Errors[i], want.Errors[i])
		}
	}
}

// TestListTreeKept: the tree of a List is kept once parsed, since its
// items are asked for one by one (parsing a node inventory again for each
// would cost more than keeping it). Positions need no tree at all.
func TestListTreeKept(t *testing.T) {
	r := Parse("l.yaml", []byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n- {apiVersion: v1, kind: Node, metadata: {name: b}}\n"))
	if len(r.Objects) != 2 {
		t.Fatalf("%d objects", len(r.Objects))
	}
	if pos, _ := r.Objects[1].Locate("metadata.name"); pos.Line != 5 {
		t.Errorf("Locate = %v", pos)
	}
	if r.Objects[1].src.document().root.Value() != nil {
		t.Error("Locate parsed the document again")
	}
	if n := r.Objects[1].Tree(); n == nil || len(n.Content) != 6 {
		t.Fatalf("Tree = %v", n)
	}
	runtime.GC()
	runtime.GC()
	if r.Objects[0].src.document().root.Value() == nil {
		t.Error("List tree released")
	}
}
