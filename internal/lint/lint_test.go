package lint_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rules"
)

// TestRunSummary: the report counts what the check found after
// suppression, and its exit code follows the threshold.
func TestRunSummary(t *testing.T) {
	dir := t.TempDir()
	src := "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: legacy}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pods := &rules.Rule{ID: "pod-everything", Summary: "s", Doc: "d", URL: "u", Severity: rules.Error, Default: true, Source: rules.Go,
		Run: func(p *rules.Pass) error {
			for _, o := range p.Input.Objects {
				if o.Kind == "Pod" {
					p.Reportf(o, nil, "pod %s", o.Name)
				}
			}
			return nil
		}}
	res, err := lint.Run(context.Background(), lint.Options{Options: checker.Options{
		Paths:    []string{dir},
		Rules:    []*rules.Rule{pods},
		Severity: map[string]rules.Severity{"pod-everything": rules.Warning},
		Suppress: []checker.Suppression{{Objects: []string{"Pod/legacy/*"}, Reason: "legacy namespace"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || len(res.Suppressed) != 1 {
		t.Fatalf("findings %+v, suppressed %+v", res.Findings, res.Suppressed)
	}
	if res.ExitCode(rules.Error) != 0 || res.ExitCode(rules.Warning) != 1 || res.ExitCode(0) != 0 {
		t.Errorf("exit codes wrong for a warning-only result")
	}
	s := res.Summary
	if s.Findings[rules.Warning] != 1 || s.Suppressed != 1 || s.Objects != 3 || s.Files != 1 || s.Kinds["Pod"] != 2 || s.Sources["file"] != 3 {
		t.Errorf("summary = %+v", s)
	}
}

// TestHiddenFilesNotice: hidden manifest files a walk left out are named in
// a notice, so that nothing is skipped without a word.
func TestHiddenFilesNotice(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{".a.yaml", ".b.yml", ".c.json", ".d.yaml", "e.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := lint.Run(context.Background(), lint.Options{Options: checker.Options{Paths: []string{dir}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "4 hidden file(s) not checked: " + filepath.ToSlash(filepath.Join(dir, ".a.yaml"))
	for _, n := range res.Notices {
		if strings.HasPrefix(n, want) && strings.Contains(n, "and 1 more") {
			return
		}
	}
	t.Errorf("notices %q lack %q", res.Notices, want)
}
