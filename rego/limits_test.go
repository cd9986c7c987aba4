package rego_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/rules"
)

// rangeBomb asks numbers.range for ten billion numbers: only a bound on
// the heap (or the deadline) stops it.
const rangeBomb = `# METADATA
# title: Range bomb
# description: Builds a huge array.
# related_resources:
#   - ref: https://example.com/bomb
# custom:
#   id: acme-range-bomb
#   severity: note
package acme.range_bomb

deny contains {"msg": "big", "path": ""} if {
	count(numbers.range(1, 10000000000)) > 0
}
`

// runLimited runs the custom rule id of policy src on the errors fixture's
// pod under lim and returns its error.
func runLimited(t *testing.T, src, id string, lim rego.Limits) error {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, id+".rego"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := rego.LoadLimited(context.Background(), []string{dir}, lim)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := loader.Load(context.Background(), []string{filepath.Join(errorsDir, "pod.yaml")}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := &rules.Input{Objects: objs.Objects}
	done := make(chan error, 1)
	go func() {
		_, err := runRules(context.Background(), all, in)
		if err != nil && !strings.Contains(err.Error(), id) {
			err = nil
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute): // a hang, not a speed bound
		t.Fatal("the policy was not stopped")
		return nil
	}
}

// TestPolicyDeadline: a policy that runs past --policy-timeout fails the
// run, naming the policy's file and line and the object.
func TestPolicyDeadline(t *testing.T) {
	err := runLimited(t, slowPolicy, "acme.slow", rego.Limits{EvalTimeout: 200 * time.Millisecond})
	if err == nil {
		// The rule is named by its file: acme.slow.rego.
		t.Fatal("no error")
	}
	for _, want := range []string{"acme.slow.rego:", "evaluating Pod/", "did not finish within 200ms (--policy-timeout)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestPolicyMemory: a built-in that builds a huge collection is stopped
// when the heap has grown by Limits.Memory, long before the machine's
// memory is gone, and the error names the policy.
func TestPolicyMemory(t *testing.T) {
	err := runLimited(t, rangeBomb, "acme.range_bomb", rego.Limits{Memory: 64 << 20})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"acme.range_bomb.rego:", "the heap grew by more than 64 MiB", "--max-policy-mib"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestPolicyDeadlineStopsThePass: once one evaluation is past its
// deadline the run fails, so a slow policy on many objects does not wait
// out the deadline once per object.
func TestPolicyDeadlineStopsThePass(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slow.rego"), []byte(slowPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := rego.LoadLimited(context.Background(), []string{dir}, rego.Limits{EvalTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var pods strings.Builder
	for i := range 256 {
		pods.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p" + strconv.Itoa(i) + "}\nspec: {containers: [{name: a, image: a}]}\n")
	}
	objs := loader.Parse("pods.yaml", []byte(pods.String()))
	in := &rules.Input{Objects: objs.Objects}
	start := time.Now()
	_, slowErr := runRules(context.Background(), all, in)
	took := time.Since(start)
	if slowErr == nil || !strings.Contains(slowErr.Error(), "--policy-timeout") {
		t.Fatalf("error %v, want the deadline", slowErr)
	}
	// 256 objects would each wait out the deadline (twice: together with
	// the other rules, then alone), over a minute on two cores; the pass
	// stops at the first. 15 s leaves room for a loaded machine.
	if took > 15*time.Second {
		t.Errorf("the pass took %v", took)
	}
	t.Logf("stopped after %v", took.Round(time.Millisecond))
}
