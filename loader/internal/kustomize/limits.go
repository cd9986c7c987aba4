package kustomize

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

// Options are how a kustomization is built: remote content and Helm
// charts allowed or not, and the run's limits (the input budget, a
// deadline, the most objects; zero for none).
type Options struct {
	AllowRemote, EnableHelm bool
	Budget                  *input.Budget
	Timeout                 time.Duration
	MaxObjects              int
}

// Limit is a run limit the build passed: the loader's LimitError, named
// after the kustomization.
type Limit struct{ Msg string }

func (e *Limit) Error() string { return e.Msg }

// Build builds the kustomization in dir in its worker process
// (runKustomize) within the run's limits. The deadline kills the worker,
// so a build that computes without end (kustomize v0.21.2 is quadratic in
// the objects of one kustomization) stops as surely as one that reads.
// The worker gets what is left of the run's input budget and says what
// it read, which the run is then charged; it also stops on its own past
// the object limit, so an oversized output is never sent. Past a limit
// the error is a *Limit.
func Build(ctx context.Context, dir string, inject bool, opts Options) (Reply, error) {
	b := opts.Budget
	bctx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	req := buildRequest{Dir: dir, Inject: inject, AllowRemote: opts.AllowRemote, EnableHelm: opts.EnableHelm, MaxObjects: opts.MaxObjects}
	if b != nil {
		req.MaxBytes = max(b.Left(), 1)
	}
	rep, err := runKustomize(bctx, req)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(bctx.Err(), context.DeadlineExceeded):
		return rep, &Limit{Msg: fmt.Sprintf("the Kustomize build did not finish within %v (--kustomize-timeout); stopped", opts.Timeout)}
	case err != nil:
		return rep, err
	}
	if err := b.Take(int(rep.ReadBytes)); err != nil || rep.OverBudget {
		return rep, &Limit{Msg: b.OverMsg()}
	}
	if rep.Objects > 0 {
		return rep, &Limit{Msg: fmt.Sprintf("the Kustomize build output %d objects, over the limit of %d (--max-kustomize-objects)", rep.Objects, opts.MaxObjects)}
	}
	return rep, nil
}
