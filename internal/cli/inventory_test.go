package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplicitInventory: the inventory is what --nodes names. Nodes among
// the checked paths are validated, not used, and a note says how to use
// them; --nodes that yields no Node is exit 2 naming what it held; the
// summary of every format names the inventory's sources and counts.
func TestExplicitInventory(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "empty.yaml")
	write(t, cfg, "")
	apps := filepath.Join(dir, "apps.yaml")
	// A fixture Node with an invalid taint among the checked paths, and a
	// pod that fits only it.
	write(t, apps, `apiVersion: v1
kind: Node
metadata: {name: fixture, labels: {pool: fixture}}
spec:
  taints: [{key: dedicated, value: x, effect: NoSchedul}]
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {pool: fixture}
  containers: [{name: a, image: a}]
`)
	nodes := filepath.Join(dir, "nodes.yaml")
	write(t, nodes, "apiVersion: v1\nkind: Node\nmetadata: {name: real, labels: {pool: general}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: real-2, labels: {pool: general}}\n")

	t.Run("checked Nodes are validated, not used", func(t *testing.T) {
		code, stdout, stderr := run(t, "", "check", "--config", cfg, "--format", "json", "--nodes", nodes, apps)
		if code != 1 {
			t.Fatalf("exit %d, want 1: %s", code, stderr)
		}
		var rep struct {
			Findings []struct{ Rule, Message string }
			Summary  struct {
				Nodes     int `json:"nodes"`
				Inventory struct {
					Sources []struct {
						File  string `json:"file"`
						Nodes int    `json:"nodes"`
						Pools int    `json:"pools"`
					} `json:"sources"`
					Nodes, Pools, Groups int
				} `json:"inventory"`
			} `json:"summary"`
			Notices []string `json:"notices"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		rulesSeen := map[string]string{}
		for _, f := range rep.Findings {
			rulesSeen[f.Rule] = f.Message
		}
		if _, ok := rulesSeen["taint-effect-invalid"]; !ok {
			t.Errorf("the checked Node's invalid taint is not reported: %v", rulesSeen)
		}
		if m := rulesSeen["pod-unschedulable"]; !strings.HasPrefix(m, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.") {
			t.Errorf("pod-unschedulable %q: the fixture Node must not be in the inventory", m)
		}
		inv := rep.Summary.Inventory
		if rep.Summary.Nodes != 2 || inv.Nodes != 2 || inv.Pools != 0 || inv.Groups != 1 || len(inv.Sources) != 1 || inv.Sources[0].File != nodes || inv.Sources[0].Nodes != 2 {
			t.Errorf("summary %+v", rep.Summary)
		}
		note := false
		for _, n := range rep.Notices {
			if strings.HasPrefix(n, "1 Node object(s) among the checked paths were validated but are not the node inventory: fixture; to judge workloads against them, name their files with --nodes") {
				note = true
			}
		}
		if !note {
			t.Errorf("no note on the unused Node: %q", rep.Notices)
		}
	})

	t.Run("text and SARIF name the inventory", func(t *testing.T) {
		_, stdout, _ := run(t, "", "check", "--config", cfg, "--nodes", nodes, apps)
		if want := "; inventory: 2 node(s) in 1 group(s) from " + nodes; !strings.Contains(stdout, want) {
			t.Errorf("text summary lacks %q:\n%s", want, stdout)
		}
		_, stdout, _ = run(t, "", "check", "--config", cfg, "--format", "sarif", "--nodes", nodes, apps)
		var log struct {
			Runs []struct {
				Properties struct {
					Inventory struct {
						Nodes   int `json:"nodes"`
						Groups  int `json:"groups"`
						Sources []struct {
							File string `json:"file"`
						} `json:"sources"`
					} `json:"inventory"`
				} `json:"properties"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(stdout), &log); err != nil {
			t.Fatal(err)
		}
		if p := log.Runs[0].Properties.Inventory; p.Nodes != 2 || p.Groups != 1 || len(p.Sources) != 1 || p.Sources[0].File != nodes {
			t.Errorf("SARIF run properties %+v", p)
		}
	})

	t.Run("an inventory without nodes is exit 2", func(t *testing.T) {
		workloads := filepath.Join(dir, "workloads.yaml")
		write(t, workloads, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec: {containers: [{name: a, image: a}]}\n")
		code, _, stderr := run(t, "", "check", "--config", cfg, "--nodes", workloads, apps)
		want := "node inventory: " + workloads + " held no Node and no node pool (Pod: 2)"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
		}
	})

	t.Run("node state", func(t *testing.T) {
		snapshot := filepath.Join(dir, "snapshot.yaml")
		write(t, snapshot, "apiVersion: v1\nkind: Node\nmetadata: {name: down}\nspec:\n  unschedulable: true\n  taints: [{key: node.kubernetes.io/unreachable, effect: NoExecute}]\n")
		pod := filepath.Join(dir, "pod.yaml")
		write(t, pod, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n")
		code, stdout, _ := run(t, "", "check", "--config", cfg, "--nodes", snapshot, pod)
		if code != 0 || !strings.Contains(stdout, "notice: 1 node(s) carry transient state that was left out") || !strings.Contains(stdout, ": down; placement") {
			t.Errorf("stable: exit %d\n%s", code, stdout)
		}
		code, stdout, _ = run(t, "", "check", "--config", cfg, "--node-state", "as-is", "--nodes", snapshot, pod)
		if code != 1 || !strings.Contains(stdout, "0/1 nodes are available: 1 node(s) were unschedulable.") {
			t.Errorf("as-is: exit %d\n%s", code, stdout)
		}
		code, _, stderr := run(t, "", "check", "--config", cfg, "--node-state", "asis", "--nodes", snapshot, pod)
		if code != 2 || !strings.Contains(stderr, `--node-state: unknown node state "asis" (want stable or as-is)`) {
			t.Errorf("bad value: exit %d, %q", code, stderr)
		}
	})
	t.Run("a left-out taint keeps the others' positions", func(t *testing.T) {
		fixture := filepath.Join("..", "..", "testdata", "rules", "pod-unschedulable", "transient")
		_, stdout, _ := run(t, "", "check", "--config", cfg, "--format", "json", "--nodes", filepath.Join(fixture, "nodes.yaml"), filepath.Join(fixture, "workloads.yaml"))
		var rep struct {
			Findings []struct {
				Rule    string
				Related []struct {
					File    string
					Line    int
					Message string
				}
			}
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range rep.Findings {
			for _, r := range f.Related {
				if strings.HasPrefix(r.Message, "untolerated taint dedicated=batch:NoSchedule") {
					found = true
					if r.Line != 22 {
						t.Errorf("the dedicated taint is at nodes.yaml:22 (the third of worker-2's taints), related says %d", r.Line)
					}
				}
			}
		}
		if !found {
			t.Errorf("no related location for the dedicated taint:\n%s", stdout)
		}
	})
}

// TestPoolsOfOneName: two pool definitions of one name in two files (two
// clusters' NodePool "gpu") are two node groups, each judged by its own
// taints and requirements, not the first one's.
func TestPoolsOfOneName(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "empty.yaml")
	write(t, cfg, "")
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n"
	write(t, filepath.Join(dir, "a", "pool.yaml"), pool+"      taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n")
	write(t, filepath.Join(dir, "b", "pool.yaml"), pool)
	pod := filepath.Join(dir, "pod.yaml")
	write(t, pod, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n")
	code, stdout, stderr := run(t, "", "check", "--config", cfg, "--format", "json", "--nodes", filepath.Join(dir, "a"), "--nodes", filepath.Join(dir, "b"), pod)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (the untainted pool admits the pod): %s\n%s", code, stdout, stderr)
	}
	var out struct {
		Summary struct {
			Inventory struct{ Pools, Groups int } `json:"inventory"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.Summary.Inventory; got.Pools != 2 || got.Groups != 2 {
		t.Errorf("inventory %+v, want 2 pools in 2 groups", got)
	}
}
