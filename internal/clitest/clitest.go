// Package clitest runs taintlint's whole command line in-process for
// tests, and checks its findings against the fixtures' want comments
// (rules/rulestest). Rule tests use rulestest alone; these helpers are for
// tests of what only the command line does: flags, charts, the
// repository's configuration, reports.
package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/rules/rulestest"
)

// Expect runs taintlint with args (which must ask for JSON output) on
// paths and compares its findings with the want comments in the files
// under paths, whatever rules args enable. Files under paths that hold
// Nodes or node pools are the inventory unless args name one.
func Expect(t *testing.T, args []string, paths ...string) {
	t.Helper()
	args = append([]string(nil), args...)
	if !slices.Contains(args, "--nodes") {
		args = append(args, InventoryArgs(t, paths)...)
	}
	findings, _ := RunJSON(t, append(args, paths...))
	rulestest.Compare(t, paths, findings)
}

// InventoryArgs are --nodes flags naming every file under paths that holds
// a Node or a node pool (rulestest.InventoryFiles), so that a fixture's
// nodes are its inventory.
func InventoryArgs(t *testing.T, paths []string) []string {
	t.Helper()
	files, err := rulestest.InventoryFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, f := range files {
		args = append(args, "--nodes", f)
	}
	return args
}

// RunJSON runs taintlint in-process with args that ask for JSON output and
// returns the findings and standard error.
func RunJSON(t *testing.T, args []string) ([]rulestest.Finding, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	if code == cli.ExitFailure {
		t.Fatalf("taintlint %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	var out struct {
		Findings []rulestest.Finding `json:"findings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("decoding JSON report: %v\n%s", err, stdout.String())
	}
	for _, f := range out.Findings {
		if f.File == "" || f.Line == 0 || f.Column == 0 {
			t.Errorf("finding without file, line or column: %+v", f)
		}
	}
	return out.Findings, stderr.String()
}
