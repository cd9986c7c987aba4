package loader

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"weak"

	yaml "go.yaml.in/yaml/v3"
)

// A document read from a file keeps no bytes: its tree is parsed again
// from the file, at the same place, and a file changed since gives no
// tree (the object's own position) rather than another document's.
func TestTreeFromDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pods.yaml")
	src := "\xef\xbb\xbf# two documents\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n  labels: &l {app: b}\n  annotations: *l\nspec:\n  nodeName: n1\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(context.Background(), []string{path}, Options{})
	if err != nil || len(r.Objects) != 2 {
		t.Fatalf("Load: %v, %d objects", err, len(r.Objects))
	}
	b := r.Objects[1]
	if b.src.document() == nil || b.src.document().raw != nil || b.src.document().disk == nil {
		t.Fatalf("document bytes kept: %+v", b.src.document())
	}
	// An alias: positions come from the tree, read again from the file.
	if pos, exact := b.Locate("spec.nodeName"); pos.Line != 13 || pos.Column != 3 || exact != Exact {
		t.Errorf("Locate(spec.nodeName) = %v %v, want line 13 column 3", pos, exact)
	}
	if got := b.Tree(); len(got.Content) != 8 {
		t.Errorf("tree has %d nodes, want 8", len(got.Content))
	}

	// The same length, other bytes: no tree.
	changed := []byte(src)
	changed[len(changed)-2] = '2'
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	b.src.document().root = weak.Pointer[yaml.Node]{}
	b.src.document().strong = nil
	if got := b.Tree(); len(got.Content) != 0 {
		t.Errorf("tree of a changed file has %d nodes, want none", len(got.Content))
	}
	if pos, _ := b.Locate("spec.nodeName"); pos.Line != 5 || pos.Column != 1 {
		t.Errorf("Locate on a changed file = %v, want the document's first line, 5:1", pos)
	}
	// Gone, or no longer a regular file: no tree, no error.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := b.Tree(); len(got.Content) != 0 {
		t.Errorf("tree of a directory has %d nodes, want none", len(got.Content))
	}
}
