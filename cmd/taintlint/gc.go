package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// gcLimit is the soft memory limit: peak memory stays under 1 GiB on
// 100,000 documents (docs/performance.md).
const gcLimit = 880 << 20

// tuneGC sets the garbage collector for a lint run, which allocates a lot
// and keeps little: GOGC=400 (a fifth as many collections as Go's
// default, a third less CPU time on 10,000 documents) within a soft limit
// of gcLimit, so a large run collects as often as it must to stay under
// the limit, and no more. Once the live heap passes three quarters of the
// limit (an input far larger than a monorepo's), the limit would make the
// collector run back to back: it goes back to Go's defaults instead. GOGC
// or GOMEMLIMIT in the environment leave the collector alone. The
// returned function stops the watch.
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
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > gcLimit/4*3 {
				debug.SetGCPercent(100)
				debug.SetMemoryLimit(math.MaxInt64)
				return
			}
		}
	}()
	return func() { close(done) }
}
