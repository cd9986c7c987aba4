package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplain runs taintlint explain on the bundled examples.
func TestExplain(t *testing.T) {
	noConfig := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(noConfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join("..", "..", "examples")
	nodes := filepath.Join(examples, "cluster", "nodes.yaml")
	operators := filepath.Join("..", "..", "testdata", "rules", "pod-unschedulable", "operators")
	dup := t.TempDir()
	for _, ns := range []string{"a", "b"} {
		doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: " + ns + "}\nspec:\n  template:\n    spec:\n      containers: [{name: a, image: a}]\n"
		if err := os.WriteFile(filepath.Join(dup, ns+".yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Two NodePools of one name from two files: one row each, told apart
	// by where each is defined.
	twoPools := t.TempDir()
	for _, dir := range []string{"team-a", "team-b"} {
		doc := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: " + dir + "}\n      taints: [{key: team, value: " + dir + ", effect: NoSchedule}]\n"
		if dir == "team-b" {
			// One instance type: the pool's resources are that type's.
			doc += "      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]\n"
		}
		if err := os.MkdirAll(filepath.Join(twoPools, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(twoPools, dir, "nodepool.yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{
			name: "pools of one name", code: 0,
			args: []string{"explain", "--config", noConfig, "--nodes", filepath.Join(twoPools, "team-a"), "--nodes", filepath.Join(twoPools, "team-b"), "--object", "Deployment/a/web", dup + "/a.yaml"},
			stdout: []string{
				"NODE POOLS  ",
				"NodePool/default (" + filepath.ToSlash(filepath.Join(twoPools, "team-a", "nodepool.yaml")) + ":1)  cpu 893.69, memory 32767.65Gi                             1      no    TaintToleration  node pool(s) had untolerated taint(s): team=team-a:NoSchedule",
				"NodePool/default (" + filepath.ToSlash(filepath.Join(twoPools, "team-b", "nodepool.yaml")) + ":1)  amd.com/gpu 0, cpu 1.93, memory 7.65Gi, nvidia.com/gpu 0  1      no    TaintToleration  node pool(s) had untolerated taint(s): team=team-b:NoSchedule",
				"result: 0/2 node pools are available: 2 node pool(s) had untolerated taint(s).",
			},
		},
		{
			name: "trainer", code: 0,
			args: []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Job/ml/trainer", filepath.Join(examples, "apps")},
			stdout: []string{
				"Job/ml/trainer (",
				"requests: cpu 4, memory 16Gi, nvidia.com/gpu 1",
				`{key: nvidia.com/gpu, operator: Equal, value: "true", effect: NoSchedule}  (spec.template.spec.tolerations[0])`,
				"{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}  (DefaultTolerationSeconds)",
				"NODES             COUNT  FITS  FILTER           WHY",
				"gpu-a-1, gpu-a-2  2      no    TaintToleration  node(s) had untolerated taint(s): nvidia.com/gpu=present:NoSchedule",
				"spot-1            1      no    NodeAffinity     node(s) didn't match Pod's node affinity/selector: pool=spot, not gpu",
				"result: 0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint(s). preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
				`{key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule} would tolerate it`,
			},
		},
		{
			name: "fits", code: 0,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Deployment/a/web", dup + "/a.yaml"},
			stdout: []string{"result: fits 3 of 6 node(s)", "general-1         1      yes   -                fits", "fits; scored lower for untolerated PreferNoSchedule cloud.example.com/spot=true:PreferNoSchedule"},
		},
		{
			name: "kind is case-insensitive, namespace optional", code: 0,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "job/trainer", filepath.Join(examples, "apps")},
			stdout: []string{"Job/ml/trainer ("},
		},
		{
			name: "daemonset that runs nowhere", code: 0,
			args: []string{"explain", "--config", noConfig, "--nodes", filepath.Join("..", "..", "testdata", "rules", "daemonset-no-nodes", "nodes.yaml"), "--object", "DaemonSet/kube-system/gpu-typo", filepath.Join("..", "..", "testdata", "rules", "daemonset-no-nodes")},
			stdout: []string{
				"result: 0/6 nodes run a daemon pod: 6 node(s) didn't match the DaemonSet's node affinity/selector.",
				"no node in the inventory has pool=gpus (did you mean pool=gpu?)",
			},
		},
		{
			name: "daemonset", code: 0,
			args: []string{"explain", "--config", filepath.Join("..", "..", "testdata", "rules", "pod-unschedulable", "daemonset", ".taintlint.yaml"), "--nodes", filepath.Join("..", "..", "testdata", "rules", "pod-unschedulable", "daemonset", "all.yaml"), "--object", "DaemonSet/kube-system/agent", filepath.Join("..", "..", "testdata", "rules", "pod-unschedulable", "daemonset")},
			stdout: []string{
				"gpu-noexecute   1      no    DaemonSetController  the DaemonSet controller creates no pod here: untolerated taint dedicated=gpu:NoExecute",
				"small           1      no    NodeResourcesFit     Insufficient cpu: the pod requests 500m, allocatable is 100m (short 400m)",
				"result: 0/9 nodes are available: 1 Insufficient cpu, 8 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/9 nodes are available: 9 Preemption is not helpful for scheduling. (daemon pod for node small)",
			},
		},
		{
			name: "not found", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Job/ml/nope", filepath.Join(examples, "apps")},
			stderr: "taintlint: --object Job/ml/nope: no workload of that kind, namespace and name among the inputs\n",
		},
		{
			name: "near name", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Job/ml/trainr", filepath.Join(examples, "apps")},
			stderr: "among the inputs (did you mean Job/ml/trainer?)\n",
		},
		{
			name: "chart values set", code: 0,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Deployment/release-name-trainer", "--set", "tolerations[0].effect=NoSchedule", filepath.Join("..", "..", "testdata", "helm", "gpu")},
			stdout: []string{"{effect: NoSchedule}  (spec.template.spec.tolerations[0])"}, // --set replaces the list, as helm does
		},
		{
			name: "ambiguous", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Deployment/web", dup},
			stderr: "--object Deployment/web is ambiguous: Deployment/a/web at ",
		},
		{
			name: "ambiguous names the namespace", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Deployment/web", dup},
			stderr: "; name the namespace, or check one path\n",
		},
		{
			name: "ambiguous with namespace", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Deployment/a/web", dup, filepath.Join(dup, "a.yaml")},
			stderr: "; check one path\n",
		},
		{
			name: "one of several pod templates", code: 0,
			args:   []string{"explain", "--config", noConfig, "--nodes", operators + "/all.yaml", "--object", "Elasticsearch/logs#spec.nodeSets[1].podTemplate", operators + "/templates.yaml"},
			stdout: []string{"Elasticsearch/logs (", "pod template: spec.nodeSets[1].podTemplate", "nodeSelector: pool=search"},
		},
		{
			name: "a pod an operator merges", code: 0,
			args:   []string{"explain", "--config", noConfig, "--nodes", operators + "/all.yaml", "--object", "CephCluster/rook-ceph#spec.placement.all (the mon pods, with spec.placement.all)", operators + "/merged.yaml"},
			stdout: []string{"pod template: spec.placement.all (the mon pods, with spec.placement.all)", "{key: dedicated, operator: Exists}  (placement)"},
		},
		{
			name: "several pod templates", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", operators + "/all.yaml", "--object", "SparkApplication/pi", operators + "/merged.yaml"},
			stderr: "has 2 pod templates: #spec.driver (the driver pods), #spec.executor (the executor pods); name one after a #\n",
		},
		{
			name: "two merged pods share a path", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", operators + "/all.yaml", "--object", "CephCluster/rook-ceph#spec.placement.all", operators + "/merged.yaml"},
			stderr: "is ambiguous: pod templates spec.placement.all (the mon pods, with spec.placement.all), spec.placement.all (the prepareosd pods, with spec.placement.all); give the whole name\n",
		},
		{
			name: "no such pod template", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", operators + "/all.yaml", "--object", "Elasticsearch/logs#spec.nodeSets[9].podTemplate", operators + "/templates.yaml"},
			stderr: "no pod template \"spec.nodeSets[9].podTemplate\"; its templates: spec.nodeSets[0].podTemplate, ",
		},
		{
			name: "a template of an object with one pod spec", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "Deployment/a/web#spec.template", dup},
			stderr: "Deployment/a/web has one pod spec, with no template to name: drop #spec.template\n",
		},
		{
			name: "no object", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, dup},
			stderr: "--object Kind/namespace/name is required",
		},
		{
			name: "bad object", code: 2,
			args:   []string{"explain", "--config", noConfig, "--nodes", nodes, "--object", "web", dup},
			stderr: "want Kind/namespace/name or Kind/name",
		},
		{
			name: "no inventory", code: 2,
			args:   []string{"explain", "--config", noConfig, "--object", "Deployment/a/web", dup},
			stderr: "no node inventory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if tt.stderr != "" && !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.stderr)
			}
			if tt.code == 2 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
		})
	}
}

func TestExplainJSON(t *testing.T) {
	noConfig := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(noConfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join("..", "..", "examples")
	code, stdout, stderr := run(t, "", "explain", "--config", noConfig, "--format", "json", "--nodes", filepath.Join(examples, "cluster", "nodes.yaml"), "--object", "Job/ml/trainer", filepath.Join(examples, "apps"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Mode    string `json:"mode"`
		Nodes   int    `json:"nodes"`
		Fits    int    `json:"fits"`
		Message string `json:"message"`
		Groups  []struct {
			Nodes  []string `json:"nodes"`
			Fits   bool     `json:"fits"`
			Filter string   `json:"filter"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if doc.Mode != "scheduler" || doc.Nodes != 6 || doc.Fits != 0 || !strings.HasPrefix(doc.Message, "0/6 nodes are available: ") || len(doc.Groups) != 5 {
		t.Errorf("unexpected explanation: %+v", doc)
	}
	if g := doc.Groups[3]; strings.Join(g.Nodes, ",") != "gpu-a-1,gpu-a-2" || g.Filter != "TaintToleration" || g.Fits {
		t.Errorf("GPU group: %+v", g)
	}
}

// TestExplainGolden keeps the README's explain example true: the output
// for the bundled trainer Job equals internal/cli/testdata/explain-trainer.txt
// (go test ./internal/cli -run TestExplainGolden -update rewrites it).
func TestExplainGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	code, stdout, stderr := run(t, "", "explain", "--nodes", "examples/cluster/nodes.yaml", "--object", "Job/ml/trainer", "examples/apps")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden := filepath.Join("internal", "cli", "testdata", "explain-trainer.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Errorf("explain output differs from %s (-update rewrites it):\n%s", golden, stdout)
	}
}

// TestREADMEExamplesGolden keeps the README's Helm and Kustomize examples
// true: the output of each command equals its file in internal/cli/testdata
// (-update rewrites them).
func TestREADMEExamplesGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"readme-chart.txt", []string{"check", "examples/charts/exporter"}},
		{"readme-kustomize.txt", []string{"check", "examples/kustomize/overlays/prod/dedicated-nodes.yaml"}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			code, stdout, stderr := run(t, "", tt.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, stderr)
			}
			out := "$ taintlint " + strings.Join(tt.args, " ") + "\n" + stdout
			golden := filepath.Join("internal", "cli", "testdata", tt.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (-update rewrites it):\n%s", golden, out)
			}
		})
	}
}
