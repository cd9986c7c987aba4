//go:build unix

package cli_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taintlint/taintlint/internal/cli"
)

// TestOutputFailedRunKeepsReport: a run that fails after it has begun its
// report (here the step summary cannot be opened) leaves the previous
// report as it was, and no temporary file behind.
func TestOutputFailedRunKeepsReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(out, []byte("previous report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := cli.Run(context.Background(), []string{"check", "--config", emptyConfig(t), "--format", "github", "-o", out, "testdata/bad"}, cli.Env{
		Stdout: io.Discard, Stderr: &stderr, Dir: dir,
		Getenv: func(k string) string {
			if k == "GITHUB_STEP_SUMMARY" {
				return dir // a directory: cannot be opened for writing
			}
			return ""
		},
	})
	if code != cli.ExitFailure {
		t.Fatalf("exit %d, want 2; stderr %s", code, stderr.String())
	}
	if got, _ := os.ReadFile(out); string(got) != "previous report\n" {
		t.Errorf("report after a failed run = %q, want the previous one", got)
	}
	assertNoTemp(t, dir)
}

// TestOutputConcurrentRunsWholeReport: run A starts its report, then waits
// on its step summary (a FIFO nobody reads yet) while run B writes a longer
// report to the same file; then A finishes. The file must hold one whole
// report, A's: writing in place would leave A's report with B's tail.
func TestOutputConcurrentRunsWholeReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	fifo := filepath.Join(dir, "summary.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(out, bytes.Repeat([]byte("previous\n"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := emptyConfig(t)
	env := func(stdout io.Writer, summary string) cli.Env {
		return cli.Env{Stdout: stdout, Stderr: io.Discard, Dir: dir, Getenv: func(k string) string {
			if k == "GITHUB_STEP_SUMMARY" {
				return summary
			}
			return ""
		}}
	}
	// What each run writes on its own.
	var wantA bytes.Buffer
	cli.Run(context.Background(), []string{"check", "--config", cfg, "--format", "github", "testdata/bad"}, env(&wantA, filepath.Join(dir, "s.md")))

	doneA := make(chan int, 1)
	go func() {
		doneA <- cli.Run(context.Background(), []string{"check", "--config", cfg, "--format", "github", "-o", out, "testdata/bad"}, env(io.Discard, fifo))
	}()
	// A has begun its report when the file is truncated (writing in
	// place) or a temporary file appears beside it.
	deadline := time.Now().Add(30 * time.Second)
	for !begun(dir, out) {
		if time.Now().After(deadline) {
			t.Fatal("run A did not begin its report")
		}
		time.Sleep(5 * time.Millisecond)
	}
	args := []string{"check", "--config", cfg, "--format", "sarif", "-o", out, "--show-suppressed", "testdata/bad"}
	if code := cli.Run(context.Background(), args, env(io.Discard, "")); code != cli.ExitFindings {
		t.Fatalf("run B: exit %d", code)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), `"version": "2.1.0"`) {
		t.Fatalf("run B's report is not SARIF: %.200s", b)
	}
	// Let A go on: read its step summary.
	r, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, r)
	if code := <-doneA; code != cli.ExitFindings {
		t.Fatalf("run A: exit %d", code)
	}
	r.Close()
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, wantA.Bytes()) {
		t.Errorf("report is not run A's whole report (%d bytes, want %d):\n%.500s", len(got), wantA.Len(), got)
	}
	assertNoTemp(t, dir)
}

func begun(dir, out string) bool {
	if fi, err := os.Stat(out); err == nil && fi.Size() == 0 {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(dir, ".report.tmp-*"))
	return len(m) > 0
}

func emptyConfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	if len(m) > 0 {
		t.Errorf("temporary files left behind: %v", m)
	}
}
