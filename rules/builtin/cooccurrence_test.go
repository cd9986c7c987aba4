package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/rules/rulestest"
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
	all, err := cli.AllRules(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]bool{}
	for _, id := range validationRules {
		on[id] = true
	}
	var off []string
	for _, r := range all {
		if !on[r.ID] {
			off = append(off, r.ID)
		}
	}
	dir := filepath.Join("..", "..", "testdata", "validation")
	cfg := filepath.Join(t.TempDir(), ".taintlint.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--format", "json", "--fail-on", "never", "--config", cfg, "--enable", strings.Join(validationRules, ",")}
	if len(off) > 0 {
		args = append(args, "--disable", strings.Join(off, ","))
	}
	t.Run("gate-off", func(t *testing.T) {
		rulestest.Expect(t, args, filepath.Join(dir, "cooccurrence.yaml"))
	})
	t.Run("gate-on", func(t *testing.T) {
		rulestest.Expect(t, append(args, "--feature-gates", "TaintTolerationComparisonOperators=true"), filepath.Join(dir, "gate-on"))
	})
}
