package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Limits bound what one run may read and build, so that a repository's
// own files cannot exhaust the machine. A zero field is no limit.
type Limits struct {
	// InputBytes bounds the bytes read in the whole run: every file,
	// standard input, and every file a Kustomize build reads (a generator
	// file read by two bases counts twice, as it is held twice).
	InputBytes int64
	// KustomizeTimeout bounds one Kustomize build.
	KustomizeTimeout time.Duration
	// KustomizeObjects bounds the objects one Kustomize build may output.
	KustomizeObjects int
}

// LimitError is a run stopped by one of its Limits; it fails the run
// (exit status 2), naming what went over and the flag that sets it.
type LimitError struct {
	Name string // the file or kustomization that went over
	Msg  string
}

func (e *LimitError) Error() string { return e.Name + ": " + e.Msg }

// Budget is the input bytes left to a run, shared by every reader: the
// checked paths and the node inventory draw on one Budget.
type Budget = budget

// NewBudget is a Budget of limit bytes; nil (no limit) when limit <= 0.
func NewBudget(limit int64) *Budget { return newBudget(limit) }

// budget is the input bytes left to a run, shared by every reader.
type budget struct {
	limit int64
	used  atomic.Int64
}

func newBudget(limit int64) *budget {
	if limit <= 0 {
		return nil
	}
	return &budget{limit: limit}
}

// errBudget is what a read past the run's input budget returns.
var errBudget = errors.New("input budget exhausted")

// charge takes n bytes from b, or fails when that would go over.
func (b *budget) charge(n int) error {
	if b == nil {
		return nil
	}
	if b.used.Add(int64(n)) > b.limit {
		return errBudget
	}
	return nil
}

// overMsg is the message of a LimitError for the input budget.
func (b *budget) overMsg() string {
	return fmt.Sprintf("the run's input is over %d MiB (--max-input-mib); nothing more is read", b.limit>>20)
}

// limitFS is the file system a Kustomize build reads through: every read
// is charged to the run's budget, and once the build is abandoned (its
// deadline passed, the run cancelled) every read fails, so that a build
// left running in the background stops at its next file.
type limitFS struct {
	filesys.FileSystem
	b    *budget
	stop *atomic.Bool
}

func (f limitFS) ReadFile(p string) ([]byte, error) {
	if f.stop.Load() {
		return nil, errAbandoned
	}
	// Charged before the read, from the file's size, so that a file that
	// would go over is never held; then for any bytes past that size.
	size := 0
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		size = int(min(fi.Size(), MaxFileSize+1))
	}
	if err := f.b.charge(size); err != nil {
		f.stop.Store(true)
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	data, err := f.FileSystem.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(data) > size {
		if err := f.b.charge(len(data) - size); err != nil {
			f.stop.Store(true)
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return data, nil
}

func (f limitFS) Exists(p string) bool {
	return !f.stop.Load() && f.FileSystem.Exists(p)
}

func (f limitFS) IsDir(p string) bool {
	return !f.stop.Load() && f.FileSystem.IsDir(p)
}

// errAbandoned is what buildLimited returns when the run was cancelled.
var errAbandoned = errors.New("build abandoned")

// buildLimited runs build on fs within the Kustomize limits. Kustomize
// cannot be stopped mid-way from outside, so the build runs in a goroutine
// that the run stops waiting for at the deadline or on cancellation; from
// then on every read through fs fails, so a build that goes on reading
// stops at its next file, and one that only computes ends with nothing
// to hand back (the process exits with the run's failure).
func buildLimited(ctx context.Context, name string, lim Limits, b *budget, fs filesys.FileSystem, build func(filesys.FileSystem) (resmap.ResMap, error)) (resmap.ResMap, error) {
	stop := new(atomic.Bool)
	lfs := limitFS{FileSystem: fs, b: b, stop: stop}
	type result struct {
		m   resmap.ResMap
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := build(lfs)
		done <- result{m, err}
	}()
	var deadline <-chan time.Time
	if lim.KustomizeTimeout > 0 {
		t := time.NewTimer(lim.KustomizeTimeout)
		defer t.Stop()
		deadline = t.C
	}
	select {
	case r := <-done:
		if b != nil && b.used.Load() > b.limit {
			return nil, &LimitError{Name: name, Msg: b.overMsg()}
		}
		if r.err == nil && lim.KustomizeObjects > 0 && r.m.Size() > lim.KustomizeObjects {
			return nil, &LimitError{Name: name, Msg: fmt.Sprintf("the Kustomize build output %d objects, over the limit of %d (--max-kustomize-objects)", r.m.Size(), lim.KustomizeObjects)}
		}
		return r.m, r.err
	case <-deadline:
		stop.Store(true)
		return nil, &LimitError{Name: name, Msg: fmt.Sprintf("the Kustomize build did not finish within %v (--kustomize-timeout); abandoned", lim.KustomizeTimeout)}
	case <-ctx.Done():
		stop.Store(true)
		return nil, errAbandoned
	}
}
