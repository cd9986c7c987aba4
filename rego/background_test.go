package rego_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
	"github.com/taintlint/taintlint/rules/builtin"
)

// settled waits until no more goroutines run than base (the background
// compile of the embedded policies has ended), failing after a while.
func settled(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBackgroundCompile: the embedded policies compiled while a run
// loads end their goroutine whatever the run does with them: a run with no
// objects (evaluation may never wait), rules read (id, doc, kinds) while
// compiling, a context cancelled before Load or before the run, and runs
// sharing one Load at once (go test -race holds the reads apart from the
// compile). Findings of concurrent runs are those of a run after the
// compile.
func TestBackgroundCompile(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pod := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(pod, []byte(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]
  tolerations: [{operator: Exists}, {key: k, operator: Exists, value: v}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(ctx context.Context) []*rules.Rule {
		t.Helper()
		rs, err := rego.Load(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			t.Fatal("no embedded rules")
		}
		return append(builtin.Rules(), rs...)
	}
	run := func(ctx context.Context, rs []*rules.Rule, path string) (*lint.Result, error) {
		return lint.Run(ctx, lint.Options{Options: checker.Options{Paths: []string{path}, Rules: rs, Enable: []string{"all"}}})
	}
	ctx := context.Background()

	t.Run("no objects", func(t *testing.T) {
		base := runtime.NumGoroutine()
		res, err := run(ctx, load(ctx), empty)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 {
			t.Errorf("findings on no objects: %v", res.Findings)
		}
		settled(t, base)
	})
	t.Run("rules read while compiling", func(t *testing.T) {
		base := runtime.NumGoroutine()
		rs := load(ctx)
		ids := map[string]bool{}
		for _, r := range rs {
			if r.ID == "" || r.Summary == "" || r.Doc == "" || ids[r.ID] {
				t.Errorf("rule %q: id, summary or doc missing or repeated", r.ID)
			}
			ids[r.ID] = true
		}
		settled(t, base)
	})
	t.Run("cancelled before load", func(t *testing.T) {
		base := runtime.NumGoroutine()
		c, cancel := context.WithCancel(ctx)
		cancel()
		rs, err := rego.Load(c, nil)
		if err == nil {
			if _, err := run(c, append(builtin.Rules(), rs...), pod); err == nil {
				t.Error("a run on a cancelled context succeeded")
			}
		}
		settled(t, base)
	})
	t.Run("cancelled while compiling", func(t *testing.T) {
		base := runtime.NumGoroutine()
		c, cancel := context.WithCancel(ctx)
		rs := load(c)
		cancel()
		if _, err := run(c, rs, pod); err == nil {
			t.Error("a run on a cancelled context succeeded")
		}
		settled(t, base)
	})
	t.Run("concurrent runs", func(t *testing.T) {
		base := runtime.NumGoroutine()
		want, err := run(ctx, load(ctx), pod)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Findings) == 0 {
			t.Fatal("no findings on the pod: the runs prove nothing")
		}
		rs := load(ctx)
		var wg sync.WaitGroup
		results := make([]*lint.Result, 4)
		errs := make([]error, 4)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = run(ctx, rs, pod)
			}()
		}
		wg.Wait()
		for i, res := range results {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if len(res.Findings) != len(want.Findings) {
				t.Errorf("run %d: %d findings, want %d", i, len(res.Findings), len(want.Findings))
				continue
			}
			for j := range res.Findings {
				if res.Findings[j].Rule != want.Findings[j].Rule || res.Findings[j].Message != want.Findings[j].Message {
					t.Errorf("run %d finding %d: %s %q, want %s %q", i, j, res.Findings[j].Rule, res.Findings[j].Message, want.Findings[j].Rule, want.Findings[j].Message)
				}
			}
		}
		settled(t, base)
	})
}
