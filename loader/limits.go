package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/taintlint/taintlint/loader/internal/input"
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
	// HelmTimeout bounds the rendering of one Helm chart, HelmMemory the
	// memory it may take; either set renders in a worker process
	// (helm_worker.go).
	HelmTimeout time.Duration
	HelmMemory  int64
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
type Budget struct {
	in *input.Budget
}

// NewBudget is a Budget of limit bytes; nil (no limit) when limit <= 0.
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		return nil
	}
	return &Budget{in: input.New(limit)}
}

// input is the budget as the loader's readers charge it; nil for none.
func (b *Budget) input() *input.Budget {
	if b == nil {
		return nil
	}
	return b.in
}

// limitFS is the file system a Kustomize build reads through, in its
// worker process: every read is charged to the build's share of the run's
// budget, and once that is spent every read fails, so the build stops at
// its next file.
type limitFS struct {
	filesys.FileSystem
	b    *input.Budget
	over *atomic.Bool
}

func (f limitFS) ReadFile(p string) ([]byte, error) {
	if f.over.Load() {
		return nil, input.ErrOver
	}
	// Charged before the read, from the file's size, so that a file that
	// would go over is never held; then for any bytes past that size.
	size := 0
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		size = int(min(fi.Size(), input.MaxFileSize+1))
	}
	if err := f.b.Take(size); err != nil {
		f.over.Store(true)
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	data, err := f.FileSystem.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(data) > size {
		if err := f.b.Take(len(data) - size); err != nil {
			f.over.Store(true)
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return data, nil
}

// buildLimited builds the kustomization in dir in its worker process
// (runKustomize) within the run's limits. The deadline kills the worker,
// so a build that computes without end (kustomize v0.21.2 is quadratic in
// the objects of one kustomization) stops as surely as one that reads.
// The worker gets what is left of the run's input budget and says what
// it read, which the run is then charged; it also stops on its own past
// the object limit, so an oversized output is never sent.
func buildLimited(ctx context.Context, name, dir string, inject bool, opts Options) (buildReply, error) {
	lim, b := opts.Limits, opts.Budget.input()
	bctx := ctx
	if lim.KustomizeTimeout > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, lim.KustomizeTimeout)
		defer cancel()
	}
	req := buildRequest{Dir: dir, Inject: inject, AllowRemote: opts.AllowRemote, EnableHelm: opts.EnableHelm, MaxObjects: lim.KustomizeObjects}
	if b != nil {
		req.MaxBytes = max(b.Left(), 1)
	}
	rep, err := runKustomize(bctx, req)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(bctx.Err(), context.DeadlineExceeded):
		return rep, &LimitError{Name: name, Msg: fmt.Sprintf("the Kustomize build did not finish within %v (--kustomize-timeout); stopped", lim.KustomizeTimeout)}
	case err != nil:
		return rep, err
	}
	if err := b.Take(int(rep.ReadBytes)); err != nil || rep.OverBudget {
		return rep, &LimitError{Name: name, Msg: b.OverMsg()}
	}
	if rep.Objects > 0 {
		return rep, &LimitError{Name: name, Msg: fmt.Sprintf("the Kustomize build output %d objects, over the limit of %d (--max-kustomize-objects)", rep.Objects, lim.KustomizeObjects)}
	}
	return rep, nil
}
