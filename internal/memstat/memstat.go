// Package memstat reads one of the runtime's memory metrics, for the
// watches that bound what a policy evaluation or a Helm render may hold.
package memstat

import "runtime/metrics"

// Reader is a function that reads the runtime metric name (a uint64 in
// bytes, such as /gc/heap/live:bytes), or 0 when the runtime does not
// have it. Each Reader has its own sample: one per goroutine.
func Reader(name string) func() int64 {
	sample := []metrics.Sample{{Name: name}}
	return func() int64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64())
	}
}
