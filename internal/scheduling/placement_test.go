package scheduling_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/rules"
)

func load(t *testing.T, docs string) *rules.Input {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(p, []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := checker.Options{Paths: []string{p}, NodeState: checker.NodeStateAsIs}
	if strings.Contains(docs, "kind: Node") { // the file is its own inventory
		opts.Nodes = []string{p}
	}
	in, _, err := checker.LoadInput(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// threeNodes are the same but for their names: one group.
const threeNodes = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {a: b}}, spec: {taints: [{key: t, effect: NoSchedule}]}, status: {allocatable: {cpu: "1", pods: "1"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {a: b}}, spec: {taints: [{key: t, effect: NoSchedule}]}, status: {allocatable: {cpu: "1", pods: "1"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {a: b}}, spec: {taints: [{key: t, effect: NoSchedule}]}, status: {allocatable: {cpu: "1000m", pods: "1"}}}
`

func TestPlaceNamesInOneGroup(t *testing.T) {
	tests := []struct {
		name, pod, want string
		fit             int
	}{
		{
			name: "matchFields In picks one node of the group",
			pod:  `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]}}}, containers: [{name: a, image: a}]}}`,
			want: "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name: "matchFields NotIn splits the group",
			pod:  `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {tolerations: [{key: t, operator: Exists}], affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: NotIn, values: [n2]}]}]}}}, containers: [{name: a, image: a, resources: {requests: {cpu: "2"}}}]}}`,
			want: "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name: "fits two of three",
			pod:  `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {tolerations: [{key: t, operator: Exists}], affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: NotIn, values: [n2]}]}]}}}, containers: [{name: a, image: a}]}}`,
			fit:  2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := load(t, threeNodes+"---\n"+tt.pod+"\n")
			inv := scheduling.NewInventory(in.Nodes, scheduling.Options{})
			if len(inv.Groups) != 1 {
				t.Fatalf("%d groups, want 1 (allocatable 1 and 1000m are the same)", len(inv.Groups))
			}
			p := inv.Place(in.Workloads[0], scheduling.PlaceOptions{})
			if p.Message != tt.want || p.Fit != tt.fit {
				t.Errorf("message %q, fit %d\nwant    %q, fit %d", p.Message, p.Fit, tt.want, tt.fit)
			}
		})
	}
}

func TestPreemptionHistogram(t *testing.T) {
	in := load(t, `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: full}, status: {allocatable: {cpu: "4", pods: "0"}}}
- {apiVersion: v1, kind: Node, metadata: {name: small}, status: {allocatable: {cpu: "1", pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: both}, status: {allocatable: {cpu: "1", pods: "0"}}}
---
{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: a, image: a, resources: {requests: {cpu: "2"}}}]}}
`)
	p := scheduling.NewInventory(in.Nodes, scheduling.Options{}).Place(in.Workloads[0], scheduling.PlaceOptions{})
	// A full node is only Unschedulable (preemption could free it); a
	// request above allocatable is Unresolvable, on its own or not.
	want := "0/3 nodes are available: 2 Insufficient cpu, 2 Too many pods. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
	if p.Message != want {
		t.Errorf("message %q\nwant    %q", p.Message, want)
	}
}

func TestNoNodes(t *testing.T) {
	in := load(t, `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: a, image: a}]}}`)
	p := scheduling.NewInventory(nil, scheduling.Options{}).Place(in.Workloads[0], scheduling.PlaceOptions{})
	if p.Message != "no nodes available to schedule pods" {
		t.Errorf("message %q", p.Message)
	}
}

// TestGroupingWithoutHostname: nodes that differ only in their hostname
// label form one group, and a pod that selects on the label (nodeSelector,
// required affinity, a DaemonSet template) is judged node by node: its
// verdicts are those of an inventory where every node is alone in its
// group.
func TestGroupingWithoutHostname(t *testing.T) {
	var nodes strings.Builder
	for i, pool := range []string{"a", "a", "a", "b", "b"} {
		fmt.Fprintf(&nodes, "apiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {kubernetes.io/hostname: n%d, pool: %s}}\nspec:\n  taints: [{key: pool, value: %s, effect: NoSchedule}]\n---\n", i, i, pool, pool)
	}
	pods := []string{
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: c}]\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {pool: b}\n  tolerations: [{key: pool, value: a, effect: NoSchedule}]\n  containers: [{name: c, image: c}]\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations: [{key: pool, operator: Exists}]\n  containers: [{name: c, image: c}]\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {kubernetes.io/hostname: n3}\n  tolerations: [{key: pool, value: a, effect: NoSchedule}]\n  containers: [{name: c, image: c}]\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {kubernetes.io/hostname: n1}\n  tolerations: [{key: pool, value: a, effect: NoSchedule}]\n  containers: [{name: c, image: c}]\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1, n4]}]}]}}}\n  tolerations: [{operator: Exists}]\n  containers: [{name: c, image: c}]\n",
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      nodeSelector: {kubernetes.io/hostname: n4}\n      tolerations: [{operator: Exists}]\n      containers: [{name: c, image: c}]\n",
	}
	for _, pod := range pods {
		in := load(t, nodes.String()+pod)
		grouped := scheduling.NewInventory(in.Nodes, scheduling.Options{})
		if len(grouped.Groups) != 2 {
			t.Fatalf("%d groups, want 2 (hostname left out)", len(grouped.Groups))
		}
		want := 0
		for _, n := range in.Nodes {
			want += scheduling.NewInventory([]*k8s.Node{n}, scheduling.Options{}).Place(in.Workloads[0], scheduling.PlaceOptions{}).Fit
		}
		p := grouped.Place(in.Workloads[0], scheduling.PlaceOptions{})
		fit := 0
		for _, r := range p.Results {
			if r.Filter == "" {
				fit += len(r.Nodes)
			}
		}
		if p.Fit != want || fit != want {
			t.Errorf("%s: fits %d (results %d) of the grouped inventory, %d nodes alone", pod, p.Fit, fit, want)
		}
	}
}
