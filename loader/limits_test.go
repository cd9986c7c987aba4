package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

const limitPod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec: {containers: [{name: a, image: a}]}\n"

// TestInputBudget: the run's input is bounded in total, not only per
// file: files that each pass MaxFileSize are refused once their sum goes
// over, before they are read, and the run fails naming the file. The
// budget is shared by every Load given it (the paths and the inventory).
func TestInputBudget(t *testing.T) {
	dir := t.TempDir()
	pad := strings.Repeat("# padding\n", 1000) // 10,000 bytes
	for i := range 6 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", i)), []byte(fmt.Sprintf(limitPod, i)+pad), 0o644); err != nil {
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
	writeFiles(t, dir, map[string]string{
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
		fmt.Fprintf(&all, "---\n"+limitPod, i)
	}
	writeFiles(t, dir, map[string]string{"kustomization.yaml": "resources: [all.yaml]\n", "all.yaml": all.String()})
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

// blockingFS blocks every read until release is closed, counting the
// reads that got through.
type blockingFS struct {
	filesys.FileSystem
	entered chan struct{}
	release chan struct{}
	reads   *atomic.Int32
}

func (f blockingFS) ReadFile(p string) ([]byte, error) {
	select {
	case f.entered <- struct{}{}:
	default:
	}
	<-f.release
	f.reads.Add(1)
	return []byte("resources: []\n"), nil
}

// TestKustomizeDeadline: a build that does not finish in time is
// abandoned at the deadline (the run fails naming the kustomization), and
// the build, which cannot be stopped from outside, is stopped by the file
// system it reads through: every read after the deadline fails, so it
// ends at its next file instead of reading on.
func TestKustomizeDeadline(t *testing.T) {
	fs := blockingFS{FileSystem: filesys.MakeFsInMemory(), entered: make(chan struct{}, 1), release: make(chan struct{}), reads: new(atomic.Int32)}
	ended := make(chan error, 1)
	build := func(fs filesys.FileSystem) (resmap.ResMap, error) {
		var err error
		for range 1000 { // a build that reads on and on
			if _, err = fs.ReadFile("/k/kustomization.yaml"); err != nil {
				break
			}
		}
		ended <- err
		return nil, err
	}
	start := time.Now()
	_, err := buildLimited(context.Background(), "k", Limits{KustomizeTimeout: 100 * time.Millisecond}, nil, fs, build)
	var le *LimitError
	if !errors.As(err, &le) || le.Name != "k" || !strings.Contains(le.Msg, "did not finish within 100ms (--kustomize-timeout)") {
		t.Fatalf("got %v, want the deadline", err)
	}
	if d := time.Since(start); d > time.Minute { // a hang, not a speed bound
		t.Fatalf("returned after %v", d)
	}
	<-fs.entered
	close(fs.release) // the read under way when the deadline came ends
	select {
	case err := <-ended:
		if !errors.Is(err, errAbandoned) {
			t.Errorf("the abandoned build ended with %v, want errAbandoned", err)
		}
		if n := fs.reads.Load(); n != 1 {
			t.Errorf("%d reads reached the file system; want only the one under way at the deadline", n)
		}
	case <-time.After(time.Minute):
		t.Fatal("the abandoned build did not stop")
	}
}

// TestKustomizeCancel: a cancelled run stops waiting for its build at
// once (Ctrl-C, SIGTERM).
func TestKustomizeCancel(t *testing.T) {
	fs := blockingFS{FileSystem: filesys.MakeFsInMemory(), entered: make(chan struct{}, 1), release: make(chan struct{}), reads: new(atomic.Int32)}
	defer close(fs.release)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := buildLimited(ctx, "k", Limits{}, nil, fs, func(fs filesys.FileSystem) (resmap.ResMap, error) {
		_, err := fs.ReadFile("/k/kustomization.yaml")
		return nil, err
	})
	if !errors.Is(err, errAbandoned) {
		t.Fatalf("got %v, want errAbandoned", err)
	}
}
