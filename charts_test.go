package taintlint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/internal/clitest"
	"github.com/taintlint/taintlint/rules/rulestest"
)

// TestHelmCharts checks the charts of testdata/helm with every rule: each
// finding is at the line its want comment stands on, in the template, the
// helper template or the values file, and the chart that fails to render
// is one parse-error at the line Helm names.
func TestHelmCharts(t *testing.T) {
	cfg := emptyConfig(t)
	args := checkAllJSON(cfg)
	clitest.Expect(t, args, filepath.Join("testdata", "helm"))
}

// TestKustomizeTree checks testdata/kustomize-tree as kustomize build sees
// it: the Component through the two overlays that include it (its finding
// once, at its line), the base through the overlays and not again alone,
// the nested root apps/extra below apps, and the Component nobody includes
// as a note, not built.
func TestKustomizeTree(t *testing.T) {
	cfg := emptyConfig(t)
	tree := filepath.Join("testdata", "kustomize-tree")
	args := checkAllJSON(cfg)
	clitest.Expect(t, args, tree)

	run := func(t *testing.T, paths ...string) (report struct {
		Findings []rulestest.Finding   `json:"findings"`
		Notices  []string              `json:"notices"`
		Summary  struct{ Objects int } `json:"summary"`
	}) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := cli.Run(context.Background(), append(slices.Clone(args), paths...), cli.Env{Stdout: &stdout, Stderr: &stderr})
		if code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
			t.Fatal(err)
		}
		return report
	}
	t.Run("whole tree", func(t *testing.T) {
		r := run(t, tree)
		if r.Summary.Objects != 4 {
			t.Errorf("objects = %d, want 4 (a-trainer, b-trainer, web, extra)", r.Summary.Objects)
		}
		var stdout bytes.Buffer
		cli.Run(context.Background(), []string{"check", "--config", cfg, "--fail-on", "never", tree}, cli.Env{Stdout: &stdout})
		if n := strings.Count(stdout.String(), "notice: testdata/kustomize-tree/components/unused: a Kustomize Component"); n != 1 {
			t.Errorf("text report names the unused Component %d times, want once:\n%s", n, stdout.String())
		}
	})
	// pre-commit passes the changed files one by one: each is checked
	// through the roots that include it, and only its own findings count.
	for _, tt := range []struct{ file, want string }{
		{"base/deployment.yaml", "base/deployment.yaml:18 toleration-exists-with-value"},
		{"components/gpu/kustomization.yaml", "components/gpu/kustomization.yaml:12 toleration-effect-invalid"},
		{"apps/extra/job.yaml", "apps/extra/job.yaml:11 toleration-seconds-requires-noexecute"},
		{"components/unused/patch.yaml", ""},
	} {
		t.Run("pre-commit "+tt.file, func(t *testing.T) {
			r := run(t, filepath.Join(tree, filepath.FromSlash(tt.file)))
			var got []string
			for _, f := range r.Findings {
				got = append(got, fmt.Sprintf("%s:%d %s", strings.TrimPrefix(f.File, "testdata/kustomize-tree/"), f.Line, f.Rule))
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

// TestKustomizeLeftovers: a YAML file under a kustomization directory that
// no kustomization includes is checked as a plain file, with one notice;
// under a directory whose build failed, none is (whether the build would
// include it is not known).
func TestKustomizeLeftovers(t *testing.T) {
	cfg := emptyConfig(t)
	dir := filepath.Join("testdata", "kustomize-leftovers")
	args := checkAllJSON(cfg)
	clitest.Expect(t, args, dir)
	var stdout, stderr strings.Builder
	cli.Run(context.Background(), append(args, dir), cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	want := "1 file(s) under kustomization directories that no kustomization includes were checked as plain files (kubectl apply -k would not apply them): " + filepath.ToSlash(filepath.Join(dir, "app", "forgotten.yaml"))
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("notice %q missing:\n%s", want, stdout.String())
	}
}

// emptyConfig is an empty configuration file, so that no .taintlint.yaml
// found upward changes a test's run.
func emptyConfig(t *testing.T) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// checkAllJSON is check with every rule, JSON output and cfg.
func checkAllJSON(cfg string) []string {
	return []string{"check", "--format", "json", "--fail-on", "never", "--config", cfg, "--enable", "all"}
}
