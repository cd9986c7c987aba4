package scheduling

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/k8s"
)

func TestShouldRunDaemonPod(t *testing.T) {
	node := func(spec string) *v1.Node {
		obj := object(t, "v1", "Node", spec)
		n, issue := k8s.NewNode(obj)
		if issue != nil {
			t.Fatal(issue[0].Msg)
		}
		n.Node.Name, n.Node.Labels = "n1", map[string]string{"os": "linux"}
		return &n.Node
	}
	plain := "containers: [{name: a}]"
	tests := []struct {
		id, dsSpec, node string
		run, cont        bool
	}{
		{"D5 cordoned", plain, "unschedulable: true\ntaints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]", true, true},
		{"D6 NoSchedule", plain, "taints: [{key: dedicated, value: gpu, effect: NoSchedule}]", false, true},
		{"D7 NoExecute", plain, "taints: [{key: dedicated, value: gpu, effect: NoExecute}]", false, false},
		{"D8 PreferNoSchedule", plain, "taints: [{key: dedicated, value: gpu, effect: PreferNoSchedule}]", true, true},
		{"D9 not-ready both", plain, "taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}, {key: node.kubernetes.io/not-ready, effect: NoSchedule}]", false, true},
		{"D10 not-ready NoExecute", plain, "taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]", true, true},
		{"D11 pressure", plain, "taints: [{key: node.kubernetes.io/disk-pressure, effect: NoSchedule}, {key: node.kubernetes.io/memory-pressure, effect: NoSchedule}, {key: node.kubernetes.io/pid-pressure, effect: NoSchedule}]", true, true},
		{"D12 network-unavailable", plain, "taints: [{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}]", false, true},
		{"D13 network-unavailable hostNetwork", "hostNetwork: true\n" + plain, "taints: [{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}]", true, true},
		{"D14 selector", "nodeSelector: {os: windows}\n" + plain, "{}", false, false},
		{"D15 nodeName", "nodeName: other\n" + plain, "{}", false, false},
		{"control-plane", plain, "taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]", false, true},
		{"out-of-service", plain, "taints: [{key: node.kubernetes.io/out-of-service, value: nodeshutdown, effect: NoExecute}]", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got := ShouldRunDaemonPod(workload(t, "DaemonSet", tt.dsSpec), node(tt.node), k8s.FeatureGates{})
			if got.ShouldRun != tt.run || got.ShouldContinueRunning != tt.cont {
				t.Errorf("shouldRun=%v shouldContinueRunning=%v (%s), want %v %v", got.ShouldRun, got.ShouldContinueRunning, got.Reason, tt.run, tt.cont)
			}
		})
	}
}
