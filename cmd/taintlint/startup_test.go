package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The pre-commit case is one process per commit on a file or two: its
// time is mostly the program starting (package initialisation of
// everything linked, page faults of a large binary) and the fixed work of
// a run (compiling the embedded policies), which in-process benchmarks
// (rego's BenchmarkCheckSmallFile) do not see. These benchmarks run the
// built binary, so ns/op is wall time from exec to exit (issue 18's target
// for one file: under 25 ms).

// buildBinary builds this command into a temporary directory.
func buildBinary(b *testing.B) string {
	b.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("go is not on PATH")
	}
	bin := filepath.Join(b.TempDir(), "taintlint")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBinary runs bin with args until b is done, failing on an exit status
// other than 0.
func runBinary(b *testing.B, bin string, args ...string) {
	b.Helper()
	for b.Loop() {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", bin, args, err, out)
		}
	}
}

// BenchmarkStartVersion is the cost of starting the program at all:
// taintlint version does nothing else.
func BenchmarkStartVersion(b *testing.B) {
	runBinary(b, buildBinary(b), "version")
}

// BenchmarkPreCommitFile is taintlint check on one small file with every
// default rule, as a pre-commit hook runs it.
func BenchmarkPreCommitFile(b *testing.B) {
	bin := buildBinary(b)
	cfg := filepath.Join(b.TempDir(), ".taintlint.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	file, err := filepath.Abs("../../testdata/rules/toleration-exists-with-value/workloads.yaml")
	if err != nil {
		b.Fatal(err)
	}
	runBinary(b, bin, "check", "--config", cfg, "--fail-on", "never", file)
}
