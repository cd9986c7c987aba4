// Command taintlint checks Kubernetes manifests for taint and toleration
// problems: invalid taints and tolerations, pods that fit no node,
// DaemonSets that skip nodes, and toleration hygiene.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/loader"
)

func main() {
	loader.RunKustomizeWorker() // a kustomize build in its sandbox; see loader
	stopGC := tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	stopGC()
	os.Exit(code)
}
