// Command benchgen writes a benchmark corpus:
//
//	go run ./internal/benchgen/cmd -size medium -out /tmp/corpus
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/taintlint/taintlint/internal/benchgen"
)

func main() {
	size := flag.String("size", "small", "small (100 docs), medium (10,000 docs, 1,000 nodes) or large (100,000 docs, 5,000 nodes)")
	out := flag.String("out", "", "directory to write (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	docs := flag.Int("docs", 0, "override the number of documents")
	files := flag.Int("files", 0, "override the number of files")
	nodes := flag.Int("nodes", 0, "override the number of nodes")
	pools := flag.Int("pools", 0, "override the number of node pools")
	shape := flag.String("shape", "realistic", "realistic (about 2 KB a document, about six node groups a pool) or easy (the short documents of earlier figures, a node group a pool)")
	flag.Parse()
	var s benchgen.Spec
	switch *size {
	case "small":
		s = benchgen.Small
	case "medium":
		s = benchgen.Medium
	case "large":
		s = benchgen.Large
	default:
		fmt.Fprintf(os.Stderr, "benchgen: unknown size %q\n", *size)
		os.Exit(2)
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "benchgen: -out is required")
		os.Exit(2)
	}
	switch *shape {
	case "realistic":
	case "easy":
		s = benchgen.Easy(s)
	default:
		fmt.Fprintf(os.Stderr, "benchgen: unknown shape %q\n", *shape)
		os.Exit(2)
	}
	s.Seed = *seed
	for _, o := range []struct {
		v   int
		dst *int
	}{{*docs, &s.Docs}, {*files, &s.Files}, {*nodes, &s.Nodes}, {*pools, &s.Pools}} {
		if o.v > 0 {
			*o.dst = o.v
		}
	}
	if err := benchgen.Write(*out, s); err != nil {
		fmt.Fprintf(os.Stderr, "benchgen: %v\n", err)
		os.Exit(1)
	}
}
