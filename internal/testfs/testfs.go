// Package testfs lays out files for tests: one helper that the loader,
// CLI and chart rendering tests share instead of each keeping a copy.
package testfs

import (
	"os"
	"path/filepath"
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
