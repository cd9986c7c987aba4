package rego_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
)

// slowPolicy iterates 10^8 times for every object: only cancellation
// ends it quickly.
const slowPolicy = `# METADATA
# title: Slow rule
# description: Takes long.
# related_resources:
#   - ref: https://example.com/slow
# custom:
#   id: acme-slow
#   severity: note
package acme.slow

deny contains {"msg": "never", "path": ""} if {
	some i in numbers.range(1, 10000)
	some j in numbers.range(1, 10000)
	i + j < 0
}
`

// TestRunHonoursContext: a rule from Load stops when the context given to
// Load ends, instead of running a slow policy to completion.
func TestRunHonoursContext(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slow.rego"), []byte(slowPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	all, err := rego.Load(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var slow *rules.Rule
	for _, r := range all {
		if r.ID == "acme-slow" {
			slow = r
		}
	}
	objs, err := loader.Load(context.Background(), []string{filepath.Join(errorsDir, "pod.yaml")}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := &rules.Input{Objects: objs.Objects}
	start := time.Now()
	time.AfterFunc(50*time.Millisecond, cancel)
	err = slow.Run(rules.NewPass(slow, in, func(rules.Finding) {}))
	if err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestInventoryNodesEvaluated: Node objects that come only from the
// inventory (--nodes) are evaluated too, as Go rules check their taints.
func TestInventoryNodesEvaluated(t *testing.T) {
	code, stdout, stderr := run(t, "check", "--format", "json", "--fail-on", "never",
		"--policy", validPolicy, "--enable", "acme-taint-key-domain",
		"--nodes", "../testdata/policies/valid/manifests/acme-taint-key-domain",
		filepath.Join(errorsDir, "pod.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"rule": "acme-taint-key-domain"`) || !strings.Contains(stdout, `nodes.yaml"`) {
		t.Errorf("no finding on the inventory node:\n%s", stdout)
	}
}
