package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// gcLimit is the soft memory limit while the live heap is small.
const gcLimit = 768 << 20

// tuneGC sets the garbage collector for a lint run, which allocates a lot
// and keeps little: it collects a fifth as often as Go's default (GOGC=400)
// within a soft limit of gcLimit, which costs a third of the CPU time on
// 10,000 documents. Once the live heap passes a third of the limit (a
// very large input), it goes back to Go's defaults, so that a big run
// never works against the limit. GOGC or GOMEMLIMIT in the environment
// leave the collector alone. The returned function stops the watch.
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
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > gcLimit/3 {
				debug.SetGCPercent(100)
				debug.SetMemoryLimit(math.MaxInt64)
				return
			}
		}
	}()
	return func() { close(done) }
}
