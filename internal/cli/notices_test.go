package cli_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestJSONNotices: JSON carries the notices text and SARIF carry, such as
// which rules did not run without an inventory (where an inventory came
// from is in the summary: TestExplicitInventory).
func TestJSONNotices(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "empty.yaml")
	write(t, cfg, "")
	examples := filepath.Join("..", "..", "examples")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no node inventory: daemonset-no-nodes, daemonset-uncovered-nodes, pod-prefers-avoided-nodes, pod-unschedulable, toleration-eviction-loop, toleration-unmatched did not run; give nodes with --nodes PATH (kubectl get nodes -o yaml > nodes.yaml) or nodes: in .taintlint.yaml"},
	} {
		args := append(append([]string{"check", "--config", cfg, "--format", "json"}, tc.args...), filepath.Join(examples, "apps", "web.yaml"))
		_, stdout, _ := run(t, "", args...)
		var rep struct {
			Notices  []string `json:"notices"`
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		if len(rep.Notices) != 1 || rep.Notices[0] != tc.want || rep.Warnings == nil {
			t.Errorf("notices %q, warnings %v; want [%q] and []", rep.Notices, rep.Warnings, tc.want)
		}
	}
}
