package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/internal/config"
)

// TestRepoRoot: the root is the configuration's directory only when it
// holds the checked paths; a configuration named from a subdirectory
// (.github/taintlint.yaml) or from outside leaves the root at the
// repository's git top level, so that the repository's own links do not
// lead "outside" it.
func TestRepoRoot(t *testing.T) {
	repo := t.TempDir()
	for _, d := range []string{".git", ".github", "k8s/apps"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere, outsideRepo := t.TempDir(), t.TempDir()
	tests := []struct {
		name, cfgDir string
		paths        []string
		want         string
	}{
		{"no configuration", "", []string{"k8s"}, repo},
		{"configuration at the top", repo, []string{"k8s"}, repo},
		{"configuration beside the manifests", filepath.Join(repo, "k8s"), []string{"k8s/apps"}, filepath.Join(repo, "k8s")},
		{"configuration in .github", filepath.Join(repo, ".github"), []string{"k8s"}, repo},
		{"configuration outside the repository", elsewhere, []string{"k8s", "-"}, repo},
		{"standard input only", filepath.Join(repo, ".github"), []string{"-"}, filepath.Join(repo, ".github")},
		{"no repository, configuration elsewhere", elsewhere, []string{filepath.Join(outsideRepo, "m.yaml")}, repo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := repoRoot(&config.File{Dir: tt.cfgDir}, tt.paths, Env{Dir: repo})
			if got != tt.want {
				t.Errorf("repoRoot = %s, want %s", got, tt.want)
			}
		})
	}
}
