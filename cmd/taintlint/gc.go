package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// gcLimit is the soft memory limit while the live heap is small: peak
// memory stays under 1 GiB on 100,000 documents (docs/performance.md).
const gcLimit = 880 << 20

// tuneGC sets the garbage collector for a lint run, which allocates a lot
// and keeps little: GOGC=400 (a fifth as many collections as Go's
// default, a third less CPU time on 10,000 documents) within a soft limit
// of gcLimit, so a large run collects as often as it must to stay under
// the limit, and no more. A live heap near the limit would make the
// collector run back to back, so the limit follows the live heap up,
// a quarter above it, and never lets go: the heap stays within 1.25× of
// what the run holds, where going back to Go's defaults without a limit
// let it reach twice that. GOGC or GOMEMLIMIT in the environment leave
// the collector alone. The returned function stops the watch.
func tuneGC() (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(gcLimit)
	done := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		limit := uint64(gcLimit)
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				continue
			}
			if want := headroom(sample[0].Value.Uint64()); want > limit {
				limit = want
				debug.SetMemoryLimit(int64(limit))
			}
		}
	}()
	return func() { close(done) }
}

// headroom is the limit for a live heap of live bytes: a quarter above it.
func headroom(live uint64) uint64 { return live + live/4 }
