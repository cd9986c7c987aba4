package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/clitest"
)

// validationRules are the rules that judge what the API server judges.
var validationRules = []string{
	"parse-error", "selector-invalid",
	"taint-duplicate", "taint-effect-invalid", "taint-key-invalid", "taint-value-invalid",
	"toleration-duplicate", "toleration-effect-invalid", "toleration-empty-key-requires-exists",
	"toleration-exists-with-value", "toleration-key-invalid", "toleration-operator-invalid",
	"toleration-seconds-requires-noexecute", "toleration-value-invalid",
}

// TestCoOccurrence runs every validation rule at once on
// testdata/validation: one field can break several rules, and each is
// reported, as the API server lists every error.
func TestCoOccurrence(t *testing.T) {
	off := disableAllBut(t, validationRules...)
	dir := filepath.Join("..", "..", "testdata", "validation")
	cfg := filepath.Join(t.TempDir(), ".taintlint.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--format", "json", "--fail-on", "never", "--config", cfg, "--enable", strings.Join(validationRules, ",")}
	if off != "" {
		args = append(args, "--disable", off)
	}
	t.Run("gate-off", func(t *testing.T) {
		clitest.Expect(t, args, filepath.Join(dir, "cooccurrence.yaml"))
	})
	t.Run("gate-on", func(t *testing.T) {
		clitest.Expect(t, append(args, "--feature-gates", "TaintTolerationComparisonOperators=true"), filepath.Join(dir, "gate-on"))
	})
}

// disableAllBut lists every rule but keep, comma-separated, for --disable.
func disableAllBut(t *testing.T, keep ...string) string {
	t.Helper()
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]bool{}
	for _, id := range keep {
		on[id] = true
	}
	var off []string
	for _, r := range all {
		if !on[r.ID] {
			off = append(off, r.ID)
		}
	}
	return strings.Join(off, ",")
}
