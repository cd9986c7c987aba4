package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/taintlint/taintlint/internal/cli"
)

// TestDeterministicOutput checks that the same input gives byte-identical
// output in every format across runs and GOMAXPROCS values: files, rules
// and objects are processed in parallel, and nothing of that may show.
func TestDeterministicOutput(t *testing.T) {
	paths := []string{filepath.Join("..", "..", "testdata", "rules"), filepath.Join("..", "..", "testdata", "hostile"), filepath.Join("..", "..", "examples")}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, format := range []string{"text", "json", "sarif", "github"} {
		t.Run(format, func(t *testing.T) {
			var first []byte
			for i, procs := range []int{1, 4, 2, 8} {
				runtime.GOMAXPROCS(procs)
				var out, errb bytes.Buffer
				args := append([]string{"check", "--config", "/dev/null", "--format", format, "--enable", "all", "--show-suppressed"}, paths...)
				code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
				if code == cli.ExitFailure {
					t.Fatalf("exit %d: %s", code, errb.String())
				}
				if i == 0 {
					first = out.Bytes()
					continue
				}
				if !bytes.Equal(first, out.Bytes()) {
					t.Fatalf("output with GOMAXPROCS=%d differs from the first run (%d vs %d bytes)", procs, len(out.Bytes()), len(first))
				}
			}
		})
	}
}
