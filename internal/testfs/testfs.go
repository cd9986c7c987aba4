// Package testfs lays out files for tests: one helper that the loader,
// CLI and chart rendering tests share instead of each keeping a copy.
package testfs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write creates each file of files (a slash-separated path relative to
// dir, with its content) and the directories above it, failing t on any
// error.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Pod is a small Pod manifest whose name takes an index (p0, p1, ...).
const Pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec: {containers: [{name: a, image: a}]}\n"

// Kustomization writes, in a new temporary directory, n Pods in one file
// (all.yaml) and the kustomization kust, which lists it, and returns the
// directory: the large kustomizations of the loader's limit and direct
// build tests.
func Kustomization(t testing.TB, n int, kust string) string {
	t.Helper()
	dir := t.TempDir()
	var all strings.Builder
	for i := range n {
		fmt.Fprintf(&all, "---\n"+Pod, i)
	}
	Write(t, dir, map[string]string{"kustomization.yaml": kust, "all.yaml": all.String()})
	return dir
}
