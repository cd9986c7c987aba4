package worker

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"

	"github.com/taintlint/taintlint/internal/escape"
)

// The environment variables that make the program a worker when started
// again: a Kustomize build's (loader/internal/kustomize) and a Helm
// render's (loader/internal/helmchart).
const (
	KustomizeEnv = "TAINTLINT_KUSTOMIZE_WORKER"
	HelmEnv      = "TAINTLINT_HELM_WORKER"
)

// Nested reports whether the program runs as a worker: a worker never
// starts workers of its own.
func Nested() bool { return os.Getenv(KustomizeEnv) == "1" || os.Getenv(HelmEnv) == "1" }

// ErrNested is a worker that is not one: a program (a test binary
// without the TestMain hook) that does not call loader.RunKustomizeWorker,
// or a start from inside a worker. The caller then does the work
// in-process.
var ErrNested = errors.New("kustomize build worker: this program does not call loader.RunKustomizeWorker")

// Run runs the program again as a worker (exe, with env added to
// its environment) with body on its standard input, and returns what it
// wrote on standard output. Its standard error, which quotes the
// repository's files (Kustomize's and Helm's messages), is relayed as
// whole escaped lines after prefix, never passed through. Cancelling ctx
// kills it.
func Run(ctx context.Context, exe string, env []string, body []byte, prefix string) ([]byte, error) {
	var args []string
	if flag.Lookup("test.run") != nil {
		// A test binary: should it lack the TestMain hook, it runs no
		// tests and its reply does not decode, instead of running the
		// whole suite again.
		args = []string{"-test.run=^$", "-test.bench=^$"}
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(body)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	relay := escape.NewLineWriter(os.Stderr, prefix)
	cmd.Stderr = relay
	err := cmd.Run()
	relay.Close()
	return stdout.Bytes(), err
}
