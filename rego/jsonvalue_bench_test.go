package rego

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/loader"
)

// BenchmarkJSONValue is the cost of one Rego input document made from the
// loader's JSON, on the workloads of testdata's rule fixtures.
func BenchmarkJSONValue(b *testing.B) {
	var docs [][]byte
	files, _ := filepath.Glob("../testdata/rules/*/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, o := range loader.Parse(f, data).Objects {
			if j, err := o.JSON(); err == nil {
				docs = append(docs, j)
			}
		}
	}
	if len(docs) == 0 {
		b.Skip("no fixtures")
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			if _, err := jsonValue(d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/doc")
}
