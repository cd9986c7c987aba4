package lint_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/loader"
)

// corpora are generated once per test binary and shared by benchmarks.
type corpus struct {
	once sync.Once
	dir  string
	err  error
}

var corpora = map[string]*corpus{"small": {}, "medium": {}}

func corpusDir(b *testing.B, size string) string {
	b.Helper()
	c := corpora[size]
	c.once.Do(func() {
		spec := benchgen.Small
		if size == "medium" {
			spec = benchgen.Medium
		}
		dir, err := mkdirTemp()
		if err != nil {
			c.err = err
			return
		}
		c.dir = dir
		c.err = benchgen.Write(dir, spec)
	})
	if c.err != nil {
		b.Fatal(c.err)
	}
	return c.dir
}

// sizes lists the corpora a benchmark runs on; -short keeps only the
// small one so CI runs the suite in seconds.
func sizes() []string {
	if testing.Short() {
		return []string{"small"}
	}
	return []string{"small", "medium"}
}

// BenchmarkLoad measures reading and parsing: files, YAML, position trees.
func BenchmarkLoad(b *testing.B) {
	for _, size := range sizes() {
		b.Run(size, func(b *testing.B) {
			dir := corpusDir(b, size)
			b.ReportAllocs()
			var docs int
			for b.Loop() {
				r, err := loader.Load(context.Background(), []string{filepath.Join(dir, "apps"), filepath.Join(dir, "cluster")}, loader.Options{})
				if err != nil {
					b.Fatal(err)
				}
				docs = len(r.Objects)
			}
			b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkCheck measures a whole run with every default rule, Go and
// Rego, and the node inventory.
func BenchmarkCheck(b *testing.B) {
	all, err := cli.AllRules(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range sizes() {
		b.Run(size, func(b *testing.B) {
			dir := corpusDir(b, size)
			b.ReportAllocs()
			var docs int
			for b.Loop() {
				res, err := lint.Run(context.Background(), lint.Options{
					Paths: []string{filepath.Join(dir, "apps")},
					Nodes: []string{filepath.Join(dir, "cluster")},
					Rules: all,
				})
				if err != nil {
					b.Fatal(err)
				}
				docs = res.Summary.Objects
			}
			b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
