package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// seedFromTestdata adds every YAML fixture of the repository as a seed.
func seedFromTestdata(f *testing.F) {
	root := filepath.Join("..", "testdata")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifestName(d.Name()) {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
		return nil
	})
	f.Add([]byte(stream))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("<<: *x\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [1, {kind: Node}]\n"))
}

// FuzzParse feeds arbitrary bytes to the loader, then resolves and decodes
// every object: nothing may panic, every position must be in the file,
// and positions from the kept marks must be those of the tree.
func FuzzParse(f *testing.F) {
	seedFromTestdata(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Parse("f.yaml", data)
		lines := strings.Count(string(data), "\n") + 1
		for _, e := range r.Errors {
			if e.Pos.Line < 1 || e.Pos.Line > lines+1 {
				t.Fatalf("error at line %d of a %d-line file: %v", e.Pos.Line, lines, e)
			}
		}
		for _, o := range r.Objects {
			for _, p := range []string{"", "metadata.name", "spec.template.spec.tolerations[0].value", "spec.taints[3]", "metadata.labels[a/b]"} {
				pos, _ := o.Locate(p)
				if pos.Line < 1 || pos.Line > lines+1 || pos.Column < 1 {
					t.Fatalf("Locate(%q) = %v in a %d-line file", p, pos, lines)
				}
			}
			checkMarks(t, o, 200)
			var spec v1.PodSpec
			_ = o.Decode("spec", &spec)
			var node v1.Node
			_ = o.Decode("", &node)
		}
	})
}

// FuzzLocate checks the field-path resolver on arbitrary paths.
func FuzzLocate(f *testing.F) {
	for _, p := range []string{"", "spec", "a.b[0].c", "metadata.labels[x.y/z]", "[", "]", "a[", "a[99999999999999999999]", "..", "a[-1]"} {
		f.Add(p)
	}
	r := Parse("s.yaml", []byte(stream))
	f.Fuzz(func(t *testing.T, path string) {
		for _, o := range r.Objects {
			pos, _ := o.Locate(path)
			if pos.Line < 1 || pos.Column < 1 {
				t.Fatalf("Locate(%q) = %v", path, pos)
			}
			var v map[string]any
			_ = o.Decode(path, &v)
		}
	})
}
