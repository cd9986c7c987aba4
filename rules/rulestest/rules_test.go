package rulestest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/rules/rulestest"
)

// TestRules runs every rule, Go and Rego, against its fixture directory
// testdata/rules/<id>, and fails for a rule without one or without a want.
func TestRules(t *testing.T) {
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("..", "..", "testdata", "rules", r.ID)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("rule %s has no fixtures: create %s with # want comments", r.ID, dir)
			}
			if n := rulestest.Run(t, dir, r); n == 0 {
				t.Errorf("%s: fixtures hold no # want comment", dir)
			}
		})
	}
}
