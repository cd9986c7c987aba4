package k8s

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader"
)

func workload(t *testing.T, kind, spec string) *Workload {
	t.Helper()
	src := "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n" + indent(spec, "      ")
	if kind == "Pod" {
		src = "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n" + indent(spec, "  ")
	}
	r := loader.Parse("w.yaml", []byte(src))
	if len(r.Objects) != 1 {
		t.Fatalf("parse: %v", r.Errors)
	}
	w, issue := NewWorkload(r.Objects[0])
	if issue != nil {
		t.Fatalf("decode: %s: %s", issue[0].Path, issue[0].Msg)
	}
	return w
}

func indent(s, by string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l != "" {
			b.WriteString(by + l)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func describe(tols []Toleration) []string {
	var out []string
	for _, t := range tols {
		s := fmt.Sprintf("%s/%s/%s/%s", t.Key, t.Operator, t.Value, t.Effect)
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf("/%ds", *t.TolerationSeconds)
		}
		s += " " + string(t.Source)
		if t.Replaces >= 0 {
			s += fmt.Sprintf(" replaces %d", t.Replaces)
		}
		out = append(out, s)
	}
	return out
}

func TestEffectivePodTolerations(t *testing.T) {
	dsDefaults := []string{
		"node.kubernetes.io/not-ready/Exists//NoExecute daemonset-controller",
		"node.kubernetes.io/unreachable/Exists//NoExecute daemonset-controller",
		"node.kubernetes.io/disk-pressure/Exists//NoSchedule daemonset-controller",
		"node.kubernetes.io/memory-pressure/Exists//NoSchedule daemonset-controller",
		"node.kubernetes.io/pid-pressure/Exists//NoSchedule daemonset-controller",
		"node.kubernetes.io/unschedulable/Exists//NoSchedule daemonset-controller",
	}
	tests := []struct {
		name, kind, spec string
		want             []string
	}{
		{"D1 daemonset defaults", "DaemonSet", "containers: [{name: a}]", dsDefaults},
		{"D2 hostNetwork", "DaemonSet", "hostNetwork: true\ncontainers: [{name: a}]",
			append(append([]string(nil), dsDefaults...), "node.kubernetes.io/network-unavailable/Exists//NoSchedule daemonset-controller")},
		{"D3 same toleration with seconds is replaced", "DaemonSet",
			"tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]",
			append([]string{"node.kubernetes.io/not-ready/Exists//NoExecute daemonset-controller replaces 0"}, dsDefaults[1:]...)},
		{"D4 other operator is kept, default appended", "DaemonSet",
			"tolerations: [{key: node.kubernetes.io/not-ready, effect: NoExecute, tolerationSeconds: 300}]",
			append([]string{"node.kubernetes.io/not-ready///NoExecute/300s manifest"}, dsDefaults...)},
		{"DefaultTolerationSeconds on a deployment", "Deployment", "containers: [{name: a}]", []string{
			"node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds",
			"node.kubernetes.io/unreachable/Exists//NoExecute/300s DefaultTolerationSeconds",
		}},
		{"wildcard suppresses both", "Deployment", "tolerations: [{operator: Exists}]", []string{"/Exists// manifest"}},
		{"empty key NoSchedule suppresses neither", "Deployment", "tolerations: [{operator: Exists, effect: NoSchedule}]", []string{
			"/Exists//NoSchedule manifest",
			"node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds",
			"node.kubernetes.io/unreachable/Exists//NoExecute/300s DefaultTolerationSeconds",
		}},
		{"not-ready NoSchedule does not suppress", "Pod", "tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}]", []string{
			"node.kubernetes.io/not-ready/Exists//NoSchedule manifest",
			"node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds",
			"node.kubernetes.io/unreachable/Exists//NoExecute/300s DefaultTolerationSeconds",
		}},
		{"any operator and value suppresses", "Pod", "tolerations: [{key: node.kubernetes.io/unreachable, operator: Equal, value: x, tolerationSeconds: 5, effect: NoExecute}]", []string{
			"node.kubernetes.io/unreachable/Equal/x/NoExecute/5s manifest",
			"node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := EffectivePod(workload(t, tt.kind, tt.spec), nil, Admission{})
			got := describe(p.Tolerations)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestRuntimeClassMerge(t *testing.T) {
	r := loader.Parse("rc.yaml", []byte(`apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
scheduling:
  nodeSelector: {sandbox: gvisor}
  tolerations:
  - {key: sandbox, operator: Exists, effect: NoSchedule}
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
`))
	rc, issue := NewRuntimeClass(r.Objects[0])
	if issue != nil {
		t.Fatal(issue[0].Msg)
	}
	w := workload(t, "Deployment", "runtimeClassName: gvisor\nnodeSelector: {zone: a}\ncontainers: [{name: a}]")
	p := EffectivePod(w, []*RuntimeClass{rc}, Admission{})
	if p.Rejected != "" || p.NodeSelector["sandbox"] != "gvisor" || p.NodeSelector["zone"] != "a" {
		t.Errorf("nodeSelector = %v, rejected %q", p.NodeSelector, p.Rejected)
	}
	got := strings.Join(describe(p.Tolerations), "\n")
	want := "node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds\nnode.kubernetes.io/unreachable/Exists//NoExecute/300s DefaultTolerationSeconds\nsandbox/Exists//NoSchedule RuntimeClass"
	if got != want {
		t.Errorf("tolerations:\n%s\nwant\n%s", got, want)
	}
	conflict := workload(t, "Pod", "runtimeClassName: gvisor\nnodeSelector: {sandbox: kata}\ncontainers: [{name: a}]")
	if p := EffectivePod(conflict, []*RuntimeClass{rc}, Admission{}); !strings.Contains(p.Rejected, "conflict: runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; pod.spec.nodeSelector[sandbox] = kata") {
		t.Errorf("rejected = %q", p.Rejected)
	}
}

func TestIsSuperset(t *testing.T) {
	sec := func(n int64) *int64 { return &n }
	tests := []struct {
		name  string
		ss, t v1.Toleration
		want  bool
	}{
		{"wildcard", v1.Toleration{Operator: "Exists"}, v1.Toleration{Key: "a", Operator: "Equal", Value: "b"}, true},
		{"equal covers only literal Equal", v1.Toleration{Key: "a", Operator: "Equal", Value: "b"}, v1.Toleration{Key: "a", Value: "b"}, false},
		{"lt never covered", v1.Toleration{Key: "a", Operator: "Exists"}, v1.Toleration{Key: "a", Operator: "Lt", Value: "5"}, true},
		{"lt entry covers nothing", v1.Toleration{Key: "a", Operator: "Lt", Value: "5"}, v1.Toleration{Key: "a", Operator: "Lt", Value: "4"}, false},
		{"seconds", v1.Toleration{Key: "a", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: sec(60)}, v1.Toleration{Key: "a", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: sec(30)}, true},
		{"seconds longer", v1.Toleration{Key: "a", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: sec(60)}, v1.Toleration{Key: "a", Operator: "Exists", Effect: "NoExecute"}, false},
		{"effect", v1.Toleration{Key: "a", Operator: "Exists", Effect: "NoSchedule"}, v1.Toleration{Key: "a", Operator: "Exists"}, false},
	}
	for _, tt := range tests {
		if got := IsSuperset(tt.ss, tt.t); got != tt.want {
			t.Errorf("%s: IsSuperset = %v, want %v", tt.name, got, tt.want)
		}
	}
}
