package builtin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/clitest"
	"github.com/taintlint/taintlint/rules/builtin"
)

// TestDocExamples checks that the Bad example of each validation rule
// (as `taintlint rules` shows it) makes the rule fire and the Good one
// does not.
func TestDocExamples(t *testing.T) {
	on := map[string]bool{}
	for _, id := range validationRules {
		on[id] = true
	}
	for _, r := range builtin.Rules() {
		if !on[r.ID] || r.ID == "parse-error" {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			for _, c := range []struct {
				name, snippet string
				fires         bool
			}{{"bad", r.Bad, true}, {"good", r.Good, false}} {
				if c.snippet == "" {
					t.Fatalf("%s example missing", c.name)
				}
				path := filepath.Join(t.TempDir(), c.name+".yaml")
				if err := os.WriteFile(path, []byte(wrapSnippet(c.snippet)), 0o644); err != nil {
					t.Fatal(err)
				}
				cfg := filepath.Join(t.TempDir(), ".taintlint.yaml")
				if err := os.WriteFile(cfg, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				findings, _ := clitest.RunJSON(t, []string{"check", "--format", "json", "--fail-on", "never", "--config", cfg, "--enable", r.ID, "--disable", disableAllBut(t, r.ID), path})
				fired := false
				for _, f := range findings {
					if f.Rule == r.ID {
						fired = true
					} else {
						t.Errorf("%s example: unexpected %s: %s", c.name, f.Rule, f.Message)
					}
				}
				if fired != c.fires {
					t.Errorf("%s example: rule fired = %v, want %v\n%s", c.name, fired, c.fires, c.snippet)
				}
			}
		})
	}
}

// wrapSnippet turns a doc example into a whole object: a Node for
// spec.taints, a RuntimeClass for scheduling, a Pod otherwise.
func wrapSnippet(s string) string {
	indent := func(s, by string) string {
		return by + strings.ReplaceAll(s, "\n", "\n"+by)
	}
	switch {
	case strings.HasPrefix(s, "spec:"):
		return "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n" + s + "\n"
	case strings.HasPrefix(s, "scheduling:"):
		return "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: rc\nhandler: runc\n" + s + "\n"
	}
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: a, image: a}]\n" + indent(s, "  ") + "\n"
}
