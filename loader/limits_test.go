package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taintlint/taintlint/internal/testfs"
)

// TestInputBudget: the run's input is bounded in total, not only per
// file: files that each pass input.MaxFileSize are refused once their sum goes
// over, before they are read, and the run fails naming the file. The
// budget is shared by every Load given it (the paths and the inventory).
func TestInputBudget(t *testing.T) {
	dir := t.TempDir()
	pad := strings.Repeat("# padding\n", 1000) // 10,000 bytes
	for i := range 6 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", i)), []byte(fmt.Sprintf(testfs.Pod, i)+pad), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(context.Background(), []string{dir}, Options{Limits: Limits{InputBytes: 6 * 11000}}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
	_, err := Load(context.Background(), []string{dir}, Options{Limits: Limits{InputBytes: 3 * 11000}})
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Msg, "--max-input-mib") || !strings.HasSuffix(le.Name, ".yaml") {
		t.Fatalf("over the budget: %v, want a LimitError naming a file and --max-input-mib", err)
	}
	// One budget, two Loads.
	b := NewBudget(8 * 11000)
	if _, err := Load(context.Background(), []string{dir}, Options{Budget: b}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), []string{dir}, Options{Budget: b}); !errors.As(err, &le) {
		t.Fatalf("second Load on a shared budget: %v, want a LimitError", err)
	}
}

// TestKustomizeInputBudget: the files a Kustomize build reads (generator
// files here) draw on the same budget; going over fails the run naming
// the kustomization.
func TestKustomizeInputBudget(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 100_000)
	testfs.Write(t, dir, map[string]string{
		"kustomization.yaml": "configMapGenerator:\n- name: big\n  files: [a.txt, b.txt, c.txt]\n",
		"a.txt":              big, "b.txt": big, "c.txt": big,
	})
	_, err := Load(context.Background(), []string{dir}, Options{Kustomize: true, Limits: Limits{InputBytes: 250_000}})
	var le *LimitError
	if !errors.As(err, &le) || le.Name != filepath.ToSlash(dir) || !strings.Contains(le.Msg, "--max-input-mib") {
		t.Fatalf("got %v, want a LimitError on the kustomization", err)
	}
	if _, err := Load(context.Background(), []string{dir}, Options{Kustomize: true, Limits: Limits{InputBytes: 400_000}}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
}

// TestKustomizeObjectLimit: a build that outputs more objects than
// Limits.KustomizeObjects fails the run, naming the kustomization.
func TestKustomizeObjectLimit(t *testing.T) {
	dir := t.TempDir()
	var all strings.Builder
	for i := range 5 {
		fmt.Fprintf(&all, "---\n"+testfs.Pod, i)
	}
	testfs.Write(t, dir, map[string]string{"kustomization.yaml": "resources: [all.yaml]\n", "all.yaml": all.String()})
	_, err := Load(context.Background(), []string{dir}, Options{Kustomize: true, Limits: Limits{KustomizeObjects: 4}})
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Msg, "output 5 objects, over the limit of 4 (--max-kustomize-objects)") {
		t.Fatalf("got %v, want the object limit", err)
	}
	r, err := Load(context.Background(), []string{dir}, Options{Kustomize: true, Limits: Limits{KustomizeObjects: 5}})
	if err != nil || len(r.Objects) != 5 {
		t.Fatalf("at the limit: %v, %d objects", err, len(r.Objects))
	}
}

// slowKustomization writes a kustomization whose build takes kustomize
// v0.21.2 far longer than a second: it is quadratic in the objects of
// one kustomization, and n of them take minutes when n is in the
// thousands. Its commonAnnotations keep it from the direct build.
func slowKustomization(t testing.TB, n int) string {
	return testfs.Kustomization(t, n, "resources: [all.yaml]\ncommonAnnotations: {slow: \"yes\"}\n")
}

// TestKustomizeDeadline: a build that does not finish in time is stopped
// at the deadline, computing or not (its worker process is killed), and
// the run fails naming the kustomization and the flag.
func TestKustomizeDeadline(t *testing.T) {
	dir := slowKustomization(t, 6000)
	start := time.Now()
	_, err := Load(context.Background(), []string{dir}, Options{Kustomize: true, Limits: Limits{KustomizeTimeout: 300 * time.Millisecond}})
	var le *LimitError
	if !errors.As(err, &le) || le.Name != filepath.ToSlash(dir) || !strings.Contains(le.Msg, "did not finish within 300ms (--kustomize-timeout)") {
		t.Fatalf("got %v, want the deadline", err)
	}
	if d := time.Since(start); d > 30*time.Second { // a hang, not a speed bound
		t.Fatalf("returned after %v", d)
	}
}

// TestKustomizeCancel: a cancelled run (Ctrl-C, SIGTERM) stops its build
// at once, and the cancellation is what Load reports.
func TestKustomizeCancel(t *testing.T) {
	dir := slowKustomization(t, 6000)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Load(ctx, []string{dir}, Options{Kustomize: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the cancellation", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("returned after %v", d)
	}
}

// TestChartInputBudget: a Helm chart's files, which Helm's loader reads
// itself, draw on the run's input budget before it reads them.
func TestChartInputBudget(t *testing.T) {
	dir := filepath.FromSlash("../testdata/helm/gpu")
	_, err := Load(context.Background(), []string{dir}, Options{Limits: Limits{InputBytes: 100}})
	var le *LimitError
	if !errors.As(err, &le) || le.Name != filepath.ToSlash(dir) || !strings.Contains(le.Msg, "--max-input-mib") {
		t.Fatalf("got %v, want a LimitError naming the chart", err)
	}
	if _, err := Load(context.Background(), []string{dir}, Options{Limits: Limits{InputBytes: 1 << 20}}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
}
