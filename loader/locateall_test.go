package loader

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestLocateAll: LocateAll gives, path for path, what Locate gives, for
// plain files (marks), documents with aliases (a tree parsed again once)
// and Kustomize output (origins), absent fields included.
func TestLocateAll(t *testing.T) {
	plain := Parse("p.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  - key: a\n    value: x\n"))
	aliased := Parse("a.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: &n a\n  labels: {app: *n}\nspec:\n  tolerations:\n  - key: a\n    value: x\n"))
	built, err := Load(context.Background(), []string{filepath.Join("..", "testdata", "kustomize", "app", "overlays")}, Options{Kustomize: true})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"", "metadata.name", "spec.tolerations[0].value", "spec.tolerations[0].effect", "spec.template.spec.tolerations[0].key", "metadata.labels[app]"}
	var objs []*Object
	for _, r := range []*Result{plain, aliased, built} {
		objs = append(objs, r.Objects...)
	}
	if len(objs) < 3 || plain.Objects[0].src.locatesByTree(plain.Objects[0]) || !aliased.Objects[0].src.locatesByTree(aliased.Objects[0]) || !built.Objects[0].src.locatesByTree(built.Objects[0]) {
		t.Fatalf("%d objects; want one of each way to locate", len(objs))
	}
	for _, o := range objs {
		pos, exact := o.LocateAll(paths)
		for i, p := range paths {
			wantPos, wantExact := o.Locate(p)
			if pos[i] != wantPos || exact[i] != wantExact {
				t.Errorf("%s %q: LocateAll %v %v, Locate %v %v", o.Ref, p, pos[i], exact[i], wantPos, wantExact)
			}
		}
		if one, _ := o.LocateAll(paths[:1]); !slices.Equal(one, pos[:1]) {
			t.Errorf("%s: one path %v, several %v", o.Ref, one, pos[:1])
		}
	}
}
