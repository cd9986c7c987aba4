package loader

import (
	"time"

	"github.com/taintlint/taintlint/loader/internal/input"
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
