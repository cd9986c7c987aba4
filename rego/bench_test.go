package rego_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
)

// BenchmarkLoad is the fixed cost Rego adds to every run: parsing,
// compiling and preparing every embedded policy (the compiling and
// preparing overlap a run's loading; here they are waited for).
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := rego.LoadCompiled(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadCustom adds the example custom policies (two rules and a
// library).
func BenchmarkLoadCustom(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := rego.Load(ctx, []string{validPolicy}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckSmallFile is the pre-commit case: a whole in-process run
// (rules, Rego compilation, loading, checking, JSON report) on one small
// file. The target is well under 40 ms.
func BenchmarkCheckSmallFile(b *testing.B) {
	file := "../testdata/rules/toleration-exists-with-value/workloads.yaml"
	cfg := filepath.Join(b.TempDir(), ".taintlint.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"check", "--config", cfg, "--format", "json", "--fail-on", "never", file}
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb}); code != cli.ExitOK {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

// BenchmarkEvaluate is the per-object cost of the embedded rule on 500
// Deployments and 500 Services already loaded: conversion to OPA values
// (a fresh rules.Input each time, so nothing is cached) and evaluation.
// The rule reads no facts, so none are computed.
func BenchmarkEvaluate(b *testing.B) {
	benchmarkEvaluate(b, false)
}

// BenchmarkEvaluateAll evaluates every embedded rule in one pass (as a
// run does) on the same objects and 50 nodes in 5 pools: facts, node
// groups and all Rego rules.
func BenchmarkEvaluateAll(b *testing.B) {
	benchmarkEvaluate(b, true)
}

func benchmarkEvaluate(b *testing.B, all bool) {
	var doc strings.Builder
	for i := range 500 {
		fmt.Fprintf(&doc, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-%d, namespace: prod, labels: {app: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
        resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 256Mi}}
      tolerations:
      - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
      - {key: gpu, operator: Exists, value: "%d"}
---
apiVersion: v1
kind: Service
metadata: {name: web-%d}
spec: {selector: {app: web}, ports: [{port: 80}]}
`, i, i, i)
	}
	file := filepath.Join(b.TempDir(), "many.yaml")
	if err := os.WriteFile(file, []byte(doc.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	loaded, err := loader.Load(ctx, []string{file}, loader.Options{})
	if err != nil {
		b.Fatal(err)
	}
	base := rules.Input{Objects: loaded.Objects}
	for _, obj := range loaded.Objects {
		if w, _ := k8s.NewWorkload(obj); w != nil {
			base.Workloads = append(base.Workloads, w)
		}
	}
	loadedRules, err := rego.Load(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	run := loadedRules
	if all {
		var nodes strings.Builder
		for i := range 50 {
			fmt.Fprintf(&nodes, "---\napiVersion: v1\nkind: Node\nmetadata: {name: n-%d, labels: {pool: p%d, kubernetes.io/hostname: n-%d}}\n", i, i%5, i)
			if i%5 != 0 {
				fmt.Fprintf(&nodes, "spec: {taints: [{key: dedicated, value: p%d, effect: NoSchedule}]}\n", i%5)
			}
		}
		inv := loader.Parse("nodes.yaml", []byte(nodes.String()))
		for _, obj := range inv.Objects {
			n, _ := k8s.NewNode(obj)
			base.Nodes = append(base.Nodes, n)
		}
	} else {
		run = nil
		for _, x := range loadedRules {
			if x.ID == "toleration-exists-with-value" {
				run = append(run, x)
			}
		}
	}
	n := 0
	for b.Loop() {
		in := base // a new *rules.Input: conversions are redone
		fs, err := checker.RunRules(context.Background(), run, &in)
		if err != nil {
			b.Fatal(err)
		}
		n = len(fs)
	}
	if n < 500 {
		b.Fatalf("%d findings, want at least 500", n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/object")
}
