package k8s

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/loader"
)

// BenchmarkWorkload measures the typed view of every object of the small
// realistic corpus: its pod spec decoded, the rest of a built-in workload
// checked for its types.
func BenchmarkWorkload(b *testing.B) {
	dir := b.TempDir()
	if err := benchgen.Write(dir, benchgen.Small); err != nil {
		b.Fatal(err)
	}
	r, err := loader.Load(context.Background(), []string{filepath.Join(dir, "apps")}, loader.Options{})
	if err != nil {
		b.Fatal(err)
	}
	in := NewInterner()
	b.ReportAllocs()
	for b.Loop() {
		for _, obj := range r.Objects {
			in.Workload(obj)
		}
	}
	b.ReportMetric(float64(len(r.Objects))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
