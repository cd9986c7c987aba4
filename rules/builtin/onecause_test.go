package builtin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/clitest"
)

// oneCauseRules are the rules that can speak of one mistaken toleration.
var oneCauseRules = []string{
	"parse-error", "pod-unschedulable", "daemonset-no-nodes", "daemonset-uncovered-nodes",
	"toleration-unmatched", "toleration-without-affinity",
}

// TestOneCause runs the rules that can report one mistaken toleration
// together on testdata/onecause: each cause is reported once, by the rule
// that gives the fix.
func TestOneCause(t *testing.T) {
	off := disableAllBut(t, oneCauseRules...)
	cfg := filepath.Join(t.TempDir(), ".taintlint.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--format", "json", "--fail-on", "never", "--config", cfg, "--enable", strings.Join(oneCauseRules, ",")}
	if off != "" {
		args = append(args, "--disable", off)
	}
	clitest.Expect(t, args, filepath.Join("..", "..", "testdata", "onecause"))
}
