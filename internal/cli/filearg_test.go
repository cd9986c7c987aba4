package cli_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/taintlint/taintlint/internal/testfs"
)

// TestNodesFileInKustomizationTree: a file named as the node inventory is
// read as it is, even beside a kustomization that does not list it; only
// checked files are replaced by their kustomization root.
func TestNodesFileInKustomizationTree(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"cluster/kustomization.yaml": "resources: [quota.yaml]\n",
		"cluster/quota.yaml":         "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\n",
		"cluster/nodes.yaml":         "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",
		"apps/pod.yaml":              "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n",
		"empty.yaml":                 "",
	}
	testfs.Write(t, dir, files)
	code, stdout, stderr := run(t, "", "check", "--config", filepath.Join(dir, "empty.yaml"), "--format", "json",
		"--nodes", filepath.Join(dir, "cluster", "nodes.yaml"), filepath.Join(dir, "apps", "pod.yaml"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep struct {
		Summary struct{ Nodes int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Nodes != 1 {
		t.Errorf("summary.nodes = %d, want 1\n%s", rep.Summary.Nodes, stdout)
	}
}
