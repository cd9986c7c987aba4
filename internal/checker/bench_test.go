package checker_test

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/report"
	"github.com/taintlint/taintlint/rules"
)

// corpora are generated once per test binary and shared by benchmarks.
type corpus struct {
	once sync.Once
	dir  string
	err  error
}

var corpora = map[string]*corpus{"small": {}, "medium": {}, "large": {}}

func corpusDir(b *testing.B, size string) string {
	b.Helper()
	c := corpora[size]
	c.once.Do(func() {
		spec := map[string]benchgen.Spec{"small": benchgen.Small, "medium": benchgen.Medium, "large": benchgen.Large}[size]
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
// small one so CI runs the suite in seconds. The large corpus (100,000
// documents) takes a minute to generate and seconds per iteration.
func sizes() []string {
	if testing.Short() {
		return []string{"small"}
	}
	return []string{"small", "medium", "large"}
}

// BenchmarkLoad measures reading and parsing: files, YAML, and each
// object's JSON form (node trees are not kept).
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
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range sizes() {
		b.Run(size, func(b *testing.B) {
			dir := corpusDir(b, size)
			b.ReportAllocs()
			var docs int
			for b.Loop() {
				res, err := lint.Run(context.Background(), lint.Options{Options: checker.Options{
					Paths: []string{filepath.Join(dir, "apps")},
					Nodes: []string{filepath.Join(dir, "cluster")},
					Rules: all,
				}})
				if err != nil {
					b.Fatal(err)
				}
				docs = res.Summary.Objects
			}
			b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// loadedCorpus is a corpus loaded once: workloads under apps as the checked
// paths, Nodes under cluster as the inventory.
type loadedCorpus struct{ apps, cluster *loader.Result }

func loaded(b *testing.B, size string) loadedCorpus {
	b.Helper()
	dir := corpusDir(b, size)
	var c loadedCorpus
	var err error
	if c.apps, err = loader.Load(context.Background(), []string{filepath.Join(dir, "apps")}, loader.Options{}); err != nil {
		b.Fatal(err)
	}
	if c.cluster, err = loader.Load(context.Background(), []string{filepath.Join(dir, "cluster")}, loader.Options{}); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkDecodeViews measures the typed views every rule shares (pod
// specs, Nodes), decoded from the loaded objects.
func BenchmarkDecodeViews(b *testing.B) {
	for _, size := range sizes() {
		b.Run(size, func(b *testing.B) {
			r := loaded(b, size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := checker.BuildInput(context.Background(), r.apps, r.cluster, checker.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(r.apps.Objects)+len(r.cluster.Objects))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkLocate measures resolving a field path to a position on objects
// fresh from the loader: from the marks they keep (every plain document),
// and, for comparison, by parsing the document again as Locate does for
// documents with aliases or merge keys (tree).
func BenchmarkLocate(b *testing.B) {
	for _, size := range sizes() {
		for _, mode := range []string{"marks", "tree"} {
			b.Run(size+"/"+mode, func(b *testing.B) {
				r := loaded(b, size).apps
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if mode == "tree" { // fresh objects: a parsed tree may still be held weakly
						b.StopTimer()
						r = loaded(b, size).apps
						b.StartTimer()
					}
					for _, o := range r.Objects {
						if mode == "tree" {
							o.Tree()
						} else {
							o.Locate("spec.template.spec.tolerations[0].value")
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(r.Objects)), "ns/object")
			})
		}
	}
}

// BenchmarkRules measures the default rules of each engine on decoded
// views with the node inventory. Each iteration gets a fresh copy of the
// input, so nothing the Rego engine converts is reused.
func BenchmarkRules(b *testing.B) {
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	selected, err := checker.Select(all, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, engine := range []rules.Source{rules.Go, rules.EmbeddedRego} {
		var rs []*rules.Rule
		for _, r := range selected {
			if r.Source == engine {
				rs = append(rs, r)
			}
		}
		for _, size := range sizes() {
			b.Run(engine.String()+"/"+size, func(b *testing.B) {
				c := loaded(b, size)
				in, err := checker.BuildInput(context.Background(), c.apps, c.cluster, checker.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					fresh := *in
					if _, err := checker.RunRules(context.Background(), rs, &fresh); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(in.Objects))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			})
		}
	}
}

// BenchmarkReport measures each output format on the findings of a whole
// run (3% of workloads are wrong, so a few hundred findings on medium).
func BenchmarkReport(b *testing.B) {
	all, err := checker.Rules(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range sizes() {
		var res *lint.Result
		for _, f := range report.Formats() {
			b.Run(string(f)+"/"+size, func(b *testing.B) {
				if res == nil {
					dir := corpusDir(b, size)
					if res, err = lint.Run(context.Background(), lint.Options{Options: checker.Options{
						Paths: []string{filepath.Join(dir, "apps")},
						Nodes: []string{filepath.Join(dir, "cluster")},
						Rules: all,
					}}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := report.Write(io.Discard, f, res, report.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(res.Findings)), "findings")
			})
		}
	}
}
