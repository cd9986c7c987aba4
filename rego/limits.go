package rego

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/taintlint/taintlint/internal/memstat"
)

// Limits bound the evaluation of policies, the embedded ones and those a
// repository names in .taintlint.yaml or --policy. A zero field is no
// limit.
type Limits struct {
	// EvalTimeout bounds one evaluation of one policy on one object.
	EvalTimeout time.Duration
	// Memory bounds how far the heap may grow while policies are
	// evaluated: a built-in that builds a huge collection (numbers.range,
	// a comprehension over it) is stopped there. OPA's built-ins check
	// for cancellation as they build, so the stop is prompt.
	Memory int64
	// Input, when set, is the run's input budget (loader.Budget), charged
	// with every policy file read, each of at most MaxPolicySize bytes.
	Input interface{ Charge(n int64) error }
}

// MaxPolicySize is the largest policy file read.
const MaxPolicySize = 16 << 20

// evalCancel is the cancellation of one evaluation: the run's (Ctrl-C, a
// memory stop) or the evaluation's own deadline.
type evalCancel struct {
	run      topdown.Cancel
	timedOut atomic.Bool
}

func (c *evalCancel) Cancel()         { c.timedOut.Store(true) }
func (c *evalCancel) Cancelled() bool { return c.timedOut.Load() || c.run.Cancelled() }

// deadline is the cancellation of one evaluation under run; stop releases
// its timer.
func (e *engine) deadline(run topdown.Cancel) (c *evalCancel, stop func()) {
	c = &evalCancel{run: run}
	if e.lim.EvalTimeout <= 0 {
		return c, func() {}
	}
	t := time.AfterFunc(e.lim.EvalTimeout, c.Cancel)
	return c, func() { t.Stop() }
}

// timeoutError is the run failure of an evaluation past its deadline.
func (e *engine) timeoutError(pr *prepared, ref fmt.Stringer) error {
	return fmt.Errorf("%s: evaluating %s: the policy did not finish within %v (--policy-timeout)", pr.where, ref, e.lim.EvalTimeout)
}

// passCancel is the cancellation every evaluation of one pass shares: it
// fires when the run's context is done, or when the heap has grown by more
// than the engine's Limits.Memory since the pass began. over says which;
// culprit is the first evaluation the memory stop interrupted.
type passCancel struct {
	flag    atomic.Bool
	over    atomic.Bool
	culprit atomic.Pointer[string]
	// late is the first evaluation past its deadline: it stops the pass
	// (the run fails), so that the other objects do not each wait out
	// the deadline too.
	late atomic.Pointer[lateEval]
}

type lateEval struct {
	pr  *prepared
	err error
}

// timedOut records pr's evaluation past its deadline and stops the pass.
func (p *passCancel) timedOut(pr *prepared, err error) {
	p.late.CompareAndSwap(nil, &lateEval{pr, err})
	p.Cancel()
}

func (p *passCancel) Cancel()         { p.flag.Store(true) }
func (p *passCancel) Cancelled() bool { return p.flag.Load() }

// blame records what was being evaluated when the memory stop came, if
// the evaluation was under way then (not one that began stopped).
func (p *passCancel) blame(startedStopped bool, what string) {
	if p.over.Load() && !startedStopped {
		p.culprit.CompareAndSwap(nil, &what)
	}
}

// runCancel makes a pass's cancellation; release stops watching.
func (e *engine) runCancel(ctx context.Context) (p *passCancel, release func()) {
	p = &passCancel{}
	stopCtx := context.AfterFunc(ctx, p.Cancel)
	if e.lim.Memory <= 0 {
		return p, func() { stopCtx() }
	}
	// The live heap (as of the last collection), not the heap with its
	// garbage: GOGC settings must not trip the bound.
	heap := memstat.Reader("/gc/heap/live:bytes")
	base := heap()
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if heap()-base > e.lim.Memory {
				p.over.Store(true)
				p.Cancel()
				return
			}
		}
	}()
	return p, func() { stopCtx(); close(done) }
}

// memoryError is the run failure of a pass stopped for its memory.
func (e *engine) memoryError(p *passCancel) error {
	what := "policy evaluation"
	if c := p.culprit.Load(); c != nil {
		what = *c
	}
	return fmt.Errorf("%s: stopped: the heap grew by more than %d MiB while policies ran (--max-policy-mib)", what, e.lim.Memory>>20)
}
