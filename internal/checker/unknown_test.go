package checker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/rules/builtin"
)

// TestUnknownPools: a pool whose taints, labels or capacity type are
// Terraform variables without a value joins the inventory; a judgement
// that turns on them is withheld with a notice naming the pool and what
// is not known of it, and one that does not is made.
func TestUnknownPools(t *testing.T) {
	dir := "../../testdata/rules/pod-unschedulable/pools-terraform-unknown/"
	res, err := checker.Run(context.Background(), checker.Options{
		Paths: []string{dir + "workloads.yaml"},
		Nodes: []string{dir + "infra"},
		Rules: builtin.Rules(),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+" "+f.Object.String())
	}
	if want := []string{"pod-unschedulable Deployment/forgetful"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	notes := strings.Join(res.InventoryNotes, "\n")
	for _, want := range []string{
		"pod-unschedulable is not judged on Deployment/tenant-app (" + dir + "workloads.yaml:10:5): it turns on what is not known of aws_eks_node_group.tenant (taints); aws_eks_node_group.shared (labels);",
		"pod-unschedulable is not judged on Deployment/shared-app (" + dir + "workloads.yaml:24:5): it turns on what is not known of aws_eks_node_group.shared (labels);",
		"pod-unschedulable is not judged on Deployment/spot-app (" + dir + "workloads.yaml:37:5): it turns on what is not known of aws_eks_node_group.spot (the value of label eks.amazonaws.com/capacityType);",
		"toleration-unmatched is not judged on Deployment/tenant-app (" + dir + "workloads.yaml:12:21): it turns on what is not known of aws_eks_node_group.tenant (taints);",
		"Terraform: aws_eks_node_group.tenant (" + dir + "infra/main.tf:15:1) joins the node inventory with what is known; not known statically: its taints (dynamic \"taint\" for_each (var.tenant_taints: no default",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notices lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "Deployment/batch") || strings.Contains(notes, "Deployment/forgetful") {
		t.Errorf("a judgement that turns on nothing unknown is withheld:\n%s", notes)
	}
}

// TestUnknownSpotCoverage: a DaemonSet that misses a known pool is
// reported; one whose coverage turns on a pool's unknown Spot setting is
// withheld, and the notice names the pool and its Spot setting.
func TestUnknownSpotCoverage(t *testing.T) {
	dir := "../../testdata/rules/daemonset-uncovered-nodes/terraform-unknown/"
	res, err := checker.Run(context.Background(), checker.Options{
		Paths: []string{dir + "daemonsets.yaml"},
		Nodes: []string{dir + "infra"},
		Rules: builtin.Rules(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != "daemonset-uncovered-nodes" || res.Findings[0].Object.Name != "node-exporter" {
		t.Errorf("findings %+v, want node-exporter's daemonset-uncovered-nodes", res.Findings)
	}
	want := "daemonset-uncovered-nodes is not judged on DaemonSet/log-agent (" + dir + "daemonsets.yaml:10:5): it turns on what is not known of azurerm_kubernetes_cluster_node_pool.batch (Spot (priority));"
	if notes := strings.Join(res.InventoryNotes, "\n"); !strings.Contains(notes, want) {
		t.Errorf("notices lack %q:\n%s", want, notes)
	}
}
