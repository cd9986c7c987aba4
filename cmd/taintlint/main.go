// Command taintlint checks Kubernetes manifests for taint and toleration
// problems: invalid taints and tolerations, pods that fit no node,
// DaemonSets that skip nodes, and toleration hygiene.
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/internal/escape"
	"github.com/taintlint/taintlint/loader"
)

func main() {
	loader.RunKustomizeWorker() // a kustomize build in its sandbox; see loader
	// Helm's and Kustomize's packages log through the standard log and
	// klog, quoting the repository's files: their lines are relayed
	// escaped, never passed through (a worker's are relayed by its parent).
	logs := escape.NewLineWriter(os.Stderr, "")
	log.SetOutput(logs)
	klog.LogToStderr(false)
	klog.SetOutput(logs)
	stopGC := tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	stopGC()
	os.Exit(code)
}
