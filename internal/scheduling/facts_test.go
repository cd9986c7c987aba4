package scheduling

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

func node(t *testing.T, name string, labels map[string]string, unschedulable bool, taints ...v1.Taint) *k8s.Node {
	t.Helper()
	r := loader.Parse(name+".yaml", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: "+name+"}\n"))
	if len(r.Objects) != 1 {
		t.Fatal(r.Errors)
	}
	n := &k8s.Node{Object: r.Objects[0]}
	n.Node.Name = name
	n.Node.Labels = labels
	n.Node.Spec.Unschedulable = unschedulable
	n.Node.Spec.Taints = taints
	return n
}

func taint(key, value string, effect v1.TaintEffect) v1.Taint {
	return v1.Taint{Key: key, Value: value, Effect: effect}
}

func TestNewInventoryGroups(t *testing.T) {
	gpu := taint("nvidia.com/gpu", "present", v1.TaintEffectNoSchedule)
	inv := NewInventory([]*k8s.Node{
		node(t, "a", map[string]string{"pool": "gpu", hostnameLabel: "a"}, false, gpu),
		node(t, "b", map[string]string{"pool": "gpu", hostnameLabel: "b"}, false, gpu),
		node(t, "c", map[string]string{"pool": "gpu", hostnameLabel: "c"}, true, gpu),
		node(t, "d", map[string]string{"pool": "general"}, false),
	}, Options{})
	if len(inv.Groups) != 3 || len(inv.Groups[0].Nodes) != 2 {
		t.Fatalf("groups %d (first %d nodes), want 3 (first 2)", len(inv.Groups), len(inv.Groups[0].Nodes))
	}
	if len(inv.Taints) != 1 || inv.Taints[0].Nodes != 3 {
		t.Errorf("taints %+v, want gpu on 3 nodes", inv.Taints)
	}
}

// SEMANTICS.md §9.5 through the facts: D5-D13 for a DaemonSet without
// tolerations, and D13 with hostNetwork.
func TestGroupFactsDaemonSet(t *testing.T) {
	nr := v1.TaintNodeNotReady
	nodes := []*k8s.Node{
		node(t, "d5", nil, true, taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule)),
		node(t, "d6", nil, false, taint("dedicated", "gpu", v1.TaintEffectNoSchedule)),
		node(t, "d7", nil, false, taint("dedicated", "gpu", v1.TaintEffectNoExecute)),
		node(t, "d8", nil, false, taint("dedicated", "gpu", v1.TaintEffectPreferNoSchedule)),
		node(t, "d9", nil, false, taint(nr, "", v1.TaintEffectNoExecute), taint(nr, "", v1.TaintEffectNoSchedule)),
		node(t, "d10", nil, false, taint(nr, "", v1.TaintEffectNoExecute)),
		node(t, "d11", nil, false, taint(v1.TaintNodeDiskPressure, "", v1.TaintEffectNoSchedule), taint(v1.TaintNodeMemoryPressure, "", v1.TaintEffectNoSchedule), taint(v1.TaintNodePIDPressure, "", v1.TaintEffectNoSchedule)),
		node(t, "d12", nil, false, taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule)),
	}
	inv := NewInventory(nodes, Options{})
	want := map[string]bool{"d5": true, "d6": false, "d7": false, "d8": true, "d9": false, "d10": true, "d11": true, "d12": false}
	for _, hostNetwork := range []bool{false, true} {
		spec := "containers: [{name: c, image: c}]\n"
		if hostNetwork {
			spec += "hostNetwork: true\n"
			want["d12"] = true // D13
		}
		f := inv.Facts(workload(t, "DaemonSet", spec), Options{})
		for _, g := range f.Groups {
			name := g.Nodes[0].Object.Name
			if g.Daemon == nil || g.Daemon.ShouldRun != want[name] {
				t.Errorf("hostNetwork=%v %s: daemon %+v, want shouldRun %v", hostNetwork, name, g.Daemon, want[name])
			}
			if (len(g.Untolerated) == 0) != want[name] {
				t.Errorf("hostNetwork=%v %s: untolerated %v", hostNetwork, name, g.Untolerated)
			}
		}
	}
}

func TestToleratonFacts(t *testing.T) {
	inv := NewInventory([]*k8s.Node{node(t, "gpu", nil, false, taint("nvidia.com/gpu", "present", v1.TaintEffectNoSchedule))}, Options{})
	w := workload(t, "Deployment", `containers: [{name: c, image: c}]
tolerations:
- {key: nvidia.com/gpus, operator: Exists}
- {key: nvidia.com/gpu, operator: Exists}
- {key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}
- {key: example.com/runtime, operator: Exists}
- {operator: Exists}
`)
	f := inv.Facts(w, Options{RuntimeTaintKeys: []string{"example.com/*"}})
	if len(f.Tolerations) != 5 { // the wildcard suppresses DefaultTolerationSeconds
		t.Fatalf("%d tolerations, want 5", len(f.Tolerations))
	}
	typo := f.Tolerations[0]
	if typo.ToleratesInventory || typo.Nearest == nil || typo.Nearest.Key != "nvidia.com/gpu" {
		t.Errorf("typo: %+v", typo)
	}
	if typo.Path != "spec.template.spec.tolerations[0]" {
		t.Errorf("path %q", typo.Path)
	}
	if !f.Tolerations[1].ToleratesInventory {
		t.Error("nvidia.com/gpu does not tolerate the inventory")
	}
	if got := f.Tolerations[2].Shadows; len(got) != 1 || got[0] != 4 {
		t.Errorf("shadows %v, want [4] (the wildcard)", got)
	}
	if !f.Tolerations[3].RuntimeTaint || f.Tolerations[1].RuntimeTaint {
		t.Error("runtimeTaint from configured prefix")
	}
	for _, b := range f.Builtin {
		if b.Toleration != 4 {
			t.Errorf("%s: toleration %d, want the wildcard", b.Key, b.Toleration)
		}
	}
}

// D3/D4: the controller replaces an identical toleration but appends after
// one that differs in operator; builtinTaints shows which one eviction uses.
func TestBuiltinTaintsDaemonSetOverride(t *testing.T) {
	for _, tt := range []struct {
		tol       string
		used      int
		replaces  int
		finiteFor bool
	}{
		{"{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}", 0, 0, false},
		{"{key: node.kubernetes.io/not-ready, effect: NoExecute, tolerationSeconds: 300}", 0, -1, true},
	} {
		f := (*Inventory)(nil).Facts(workload(t, "DaemonSet", "containers: [{name: c, image: c}]\ntolerations:\n- "+tt.tol+"\n"), Options{})
		var used *TolerationFact
		for _, b := range f.Builtin {
			if b.Key == v1.TaintNodeNotReady && b.Effect == v1.TaintEffectNoExecute {
				used = &f.Tolerations[b.Toleration]
			}
		}
		if used == nil || (used.TolerationSeconds != nil) != tt.finiteFor || used.Replaces != tt.replaces {
			t.Errorf("%s: used %+v", tt.tol, used)
		}
		if f.Groups != nil {
			t.Error("groups without an inventory")
		}
	}
}

func TestEvictionFact(t *testing.T) {
	inv := NewInventory([]*k8s.Node{node(t, "m", nil, false, taint("maintenance", "true", v1.TaintEffectNoExecute))}, Options{})
	f := inv.Facts(workload(t, "Deployment", "containers: [{name: c, image: c}]\ntolerations:\n- {key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}\n"), Options{})
	g := f.Groups[0]
	if !g.Selected || len(g.Untolerated) != 0 || g.Evicted == nil || g.Evicted.Seconds != 60 || g.Evicted.Tolerations[0] != 0 {
		t.Errorf("group %+v, eviction %+v", g, g.Evicted)
	}
}

// A nodeName or hostname selector splits groups node by node.
func TestPerNodeGroups(t *testing.T) {
	inv := NewInventory([]*k8s.Node{
		node(t, "a", map[string]string{"pool": "x", hostnameLabel: "a"}, false),
		node(t, "b", map[string]string{"pool": "x", hostnameLabel: "b"}, false),
		node(t, "c", map[string]string{"pool": "x", hostnameLabel: "c"}, false),
	}, Options{})
	f := inv.Facts(workload(t, "Deployment", "containers: [{name: c, image: c}]\nnodeSelector: {kubernetes.io/hostname: b}\n"), Options{})
	if len(f.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(f.Groups))
	}
	for _, g := range f.Groups {
		if g.Selected != (len(g.Nodes) == 1 && g.Nodes[0].Object.Name == "b") {
			t.Errorf("group %v selected %v", g.Nodes[0].Object.Name, g.Selected)
		}
	}
}

// Facts follow the run's admission settings: plugins that are turned on
// add their tolerations (marked with their source) or reject the pod.
func TestFactsAdmission(t *testing.T) {
	inv := NewInventory([]*k8s.Node{node(t, "g", map[string]string{"pool": "gpu"}, false, taint("example.com/gpu", "", v1.TaintEffectNoSchedule))}, Options{})
	w := workload(t, "Deployment", "containers: [{name: c, image: c, resources: {limits: {example.com/gpu: 1}}}]\nnodeSelector: {pool: gpu}\n")
	sources := func(f *Facts) []k8s.TolerationSource {
		var out []k8s.TolerationSource
		for _, t := range f.Tolerations {
			out = append(out, t.Source)
		}
		return out
	}
	off := inv.Facts(w, Options{})
	on := inv.Facts(w, Options{Admission: k8s.Admission{ExtendedResourceToleration: true}})
	if got := sources(off); len(got) != 2 || got[0] != k8s.FromDefaultTolerationSeconds {
		t.Errorf("plugin off: sources %v", got)
	}
	if got := sources(on); len(got) != 3 || got[2] != k8s.FromExtendedResourceToleration || on.Tolerations[2].Key != "example.com/gpu" {
		t.Errorf("plugin on: sources %v", got)
	}
	if off.Groups[0].Selected && len(off.Groups[0].Untolerated) == 0 {
		t.Error("plugin off: the gpu taint is tolerated")
	}
	if len(on.Groups[0].Untolerated) != 0 {
		t.Errorf("plugin on: untolerated %v", on.Groups[0].Untolerated)
	}
	rejected := inv.Facts(w, Options{Admission: k8s.Admission{PodNodeSelector: true, ClusterDefaultNodeSelector: map[string]string{"pool": "general"}}})
	if rejected.Pod.Rejected == "" || rejected.Groups[0].Selected {
		t.Errorf("PodNodeSelector conflict: rejected %q, selected %v", rejected.Pod.Rejected, rejected.Groups[0].Selected)
	}
}

// TestFactsKeyCoversInputs: workloads that differ in anything the facts
// depend on get different keys, and workloads with one key equal facts.
func TestFactsKeyCoversInputs(t *testing.T) {
	inv := NewInventory([]*k8s.Node{
		node(t, "a", map[string]string{"pool": "x", hostnameLabel: "a"}, false, taint("dedicated", "x", v1.TaintEffectNoSchedule)),
		node(t, "b", map[string]string{"pool": "x", hostnameLabel: "b"}, false, taint("dedicated", "x", v1.TaintEffectNoSchedule)),
		node(t, "c", map[string]string{"pool": "py", hostnameLabel: "c"}, true, taint("maintenance", "", v1.TaintEffectNoExecute)),
	}, Options{})
	c := "containers: [{name: c, image: c}]\n"
	specs := []string{
		c,
		c + "nodeSelector: {pool: x}\n",
		c + "nodeSelector: {pool: py}\n",
		c + "nodeSelector: {kubernetes.io/hostname: a}\n",
		c + "nodeName: b\n",
		c + "hostNetwork: true\n",
		c + "tolerations: [{key: dedicated, operator: Exists}]\n",
		c + "tolerations: [{key: dedicated, operator: Equal, value: x}]\n",
		c + "tolerations: [{key: dedicated, operator: Equal, value: z}]\n",
		c + "tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]\n",
		c + "tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]\n",
		c + "tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]\n",
		c + "tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}, {operator: Exists}]\n",
		c + "tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists}]\n",
		c + "tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 10}]\n",
		c + "tolerations: [{key: dedicated, operator: Exists}, {key: dedicated, operator: Exists}]\n",
		c + "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [x]}]}]}}}\n",
		c + "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [py]}]}]}}}\n",
		c + "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [c]}]}]}}}\n",
		c + "runtimeClassName: gvisor\n",
		c + "priorityClassName: high\npreemptionPolicy: Never\n",
		"containers: [{name: c, image: c, resources: {limits: {nvidia.com/gpu: 1}}}]\ntolerations: [{key: nvidia.com/gpu, operator: Exists}]\n",
		c + "tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n",
	}
	opts := Options{Admission: k8s.Admission{PriorityClasses: map[string]v1.PreemptionPolicy{"high": v1.PreemptLowerPriority}}}
	type one struct {
		name string
		key  string
		f    *Facts
	}
	var all []one
	for _, kind := range []string{"Deployment", "DaemonSet", "Pod"} {
		for _, s := range specs {
			w := workload(t, kind, s)
			pod := k8s.EffectivePod(w, nil, opts.Admission)
			f := inv.PodFacts(w, pod, opts, true)
			f.Pod = nil
			f.Tolerations = append([]TolerationFact(nil), f.Tolerations...)
			all = append(all, one{kind + ": " + s, FactsKey(w, pod, opts), f})
		}
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := all[i], all[j]
			same := reflect.DeepEqual(a.f, b.f) && (a.name[:3] == "Dae") == (b.name[:3] == "Dae")
			if a.key == b.key && !same {
				t.Errorf("one key for different facts:\n%s\n%s", a.name, b.name)
			}
		}
	}
}

// Workloads that the facts judge alike (equal judge keys) share one group
// verdict per group, computed once for the run; a workload judged
// otherwise gets its own.
func TestGroupFactsShared(t *testing.T) {
	gpu := taint("nvidia.com/gpu", "present", v1.TaintEffectNoSchedule)
	inv := NewInventory([]*k8s.Node{
		node(t, "a", map[string]string{"pool": "gpu"}, false, gpu),
		node(t, "b", map[string]string{"pool": "general"}, false),
	}, Options{})
	spec := "containers: [{name: c, image: c}]\n"
	first := inv.Facts(workload(t, "DaemonSet", spec), Options{})
	again := inv.Facts(workload(t, "DaemonSet", spec+"hostPID: false\n"), Options{})
	other := inv.Facts(workload(t, "DaemonSet", spec+"tolerations: [{operator: Exists}]\n"), Options{})
	if len(first.Groups) != 2 || &first.Groups[0] != &again.Groups[0] {
		t.Errorf("equal judge keys: %d groups, shared %v; want 2, shared", len(first.Groups), len(again.Groups) > 0 && &first.Groups[0] == &again.Groups[0])
	}
	if &first.Groups[0] == &other.Groups[0] || reflect.DeepEqual(first.Groups[0].Untolerated, other.Groups[0].Untolerated) {
		t.Errorf("a DaemonSet that tolerates everything shares the verdicts of one that does not")
	}
}
