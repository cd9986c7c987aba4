package kustomize

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsRemote(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "github.com", "org"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "github.com", "org", "app.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref  string
		want bool
	}{
		{"../base", false},
		{"deployment.yaml", false},
		{"https://example.com/x.yaml", true},
		{"HTTP://example.com/x.yaml", true},
		{"ssh://git@example.com/repo.git", true},
		{"file:///srv/repo.git//base", true},
		{"git::https://example.com/repo", true},
		{"git@github.com:org/repo.git//base", true},
		{"deploy@bastion:repo", true},
		{"github.com/org/repo//base?ref=v1", true},
		{"GitHub.com/org/repo", true},
		{"github.com/org/app.yaml", false}, // an existing local file wins, as in kustomize
		{"github.com/org", true},           // a directory would be cloned
		{"apiVersion: v1\nkind: X", false},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			if got := IsRemote(tt.ref, dir); got != tt.want {
				t.Errorf("isRemote(%q) = %v, want %v", tt.ref, got, tt.want)
			}
		})
	}
}

func TestWithOriginAnnotations(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"absent", "resources:\n- a.yaml\n", "resources:\n    - a.yaml\nbuildMetadata:\n    - originAnnotations\n"},
		{"other options", "buildMetadata: [managedByLabel]\n", "buildMetadata: [managedByLabel, originAnnotations]\n"},
		{"already there", "buildMetadata: [originAnnotations]\n", "buildMetadata: [originAnnotations]\n"},
		{"null", "buildMetadata:\n", "buildMetadata:\n    - originAnnotations\n"},
		{"not a list", "buildMetadata: yes\n", "buildMetadata: yes\n"},
		{"not a mapping", "- a\n", "- a\n"},
		{"not YAML", "a: [\n", "a: [\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(withOriginAnnotations([]byte(tt.in))); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBuildFSReadOnly checks that a build can never write.
func TestBuildFSReadOnly(t *testing.T) {
	fs := newBuildFS(t.TempDir(), false, false)
	dir := t.TempDir()
	if err := fs.WriteFile(filepath.Join(dir, "x"), nil); err == nil {
		t.Error("WriteFile succeeded")
	}
	if err := fs.MkdirAll(filepath.Join(dir, "y")); err == nil {
		t.Error("MkdirAll succeeded")
	}
	if err := fs.RemoveAll(dir); err == nil {
		t.Error("RemoveAll succeeded")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Error(err)
	}
}
