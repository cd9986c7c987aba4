package taintlint_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/rules/rulestest"
)

// TestHelmCharts checks the charts of testdata/helm with every rule: each
// finding is at the line its want comment stands on, in the template, the
// helper template or the values file, and the chart that fails to render
// is one parse-error at the line Helm names.
func TestHelmCharts(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--format", "json", "--fail-on", "never", "--config", cfg, "--enable", "all"}
	rulestest.Expect(t, args, filepath.Join("testdata", "helm"))
}
