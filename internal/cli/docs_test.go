package cli_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/cli"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md")

// TestRulesDocFresh fails when docs/rules.md differs from
// `taintlint rules --format markdown`; go test ./internal/cli -update
// regenerates it.
func TestRulesDocFresh(t *testing.T) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"rules", "--format", "markdown"}, cli.Env{Stdout: &out, Stderr: &errb})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	path := filepath.Join("..", "..", "docs", "rules.md")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if !bytes.Equal(have, out.Bytes()) {
		t.Errorf("docs/rules.md is stale: run go test ./internal/cli -run TestRulesDocFresh -update")
	}
}

// TestRulesFormats checks the rules command's formats and that every rule
// documents a bad and a good example.
func TestRulesFormats(t *testing.T) {
	for _, f := range []string{"text", "json", "markdown"} {
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), []string{"rules", "--format", f}, cli.Env{Stdout: &out, Stderr: &errb}); code != 0 || out.Len() == 0 {
			t.Errorf("rules --format %s: exit %d, %d bytes, %s", f, code, out.Len(), errb.String())
		}
	}
	var errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"rules", "--format", "yaml"}, cli.Env{Stderr: &errb}); code != 2 {
		t.Errorf("rules --format yaml: exit %d, want 2", code)
	}
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.Bad == "" || r.Good == "" {
			t.Errorf("rule %s lacks a bad or a good example", r.ID)
		}
	}
}
