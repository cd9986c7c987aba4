package pools_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/pools"
	"github.com/taintlint/taintlint/loader"
)

func read(t *testing.T, yaml string) *pools.Result {
	t.Helper()
	r := loader.Parse("pools.yaml", []byte(yaml))
	if len(r.Errors) > 0 {
		t.Fatal(r.Errors[0])
	}
	return pools.Read(r.Objects)
}

// describe is a pool in one line: name, labels, taints, startup taints,
// requirements and instance types, each with the path it came from.
func describe(p *pools.Pool) string {
	var b strings.Builder
	b.WriteString(p.Name)
	for _, l := range p.Labels {
		fmt.Fprintf(&b, " label:%s=%s@%s", l.Key, l.Value, l.Path)
	}
	for _, t := range p.Taints {
		fmt.Fprintf(&b, " taint:%s@%s", t.ToString(), t.Path)
	}
	for _, t := range p.StartupTaints {
		fmt.Fprintf(&b, " startup:%s@%s", t.ToString(), t.Path)
	}
	for _, q := range p.Requirements {
		fmt.Fprintf(&b, " req:%s %s %v@%s", q.Key, q.Operator, q.Values, q.Path)
	}
	if len(p.InstanceTypes) > 0 {
		fmt.Fprintf(&b, " types:%v", p.InstanceTypes)
	}
	if u := p.Unknown; u != nil {
		for _, w := range []struct{ what, why string }{{"taints", u.Taints}, {"labels", u.Labels}, {"exists", u.Exists}} {
			if w.why != "" {
				fmt.Fprintf(&b, " unknown-%s", w.what)
			}
		}
		for _, t := range u.MaybeTaints {
			fmt.Fprintf(&b, " maybe-taint:%s@%s", t.ToString(), t.Path)
		}
		for _, l := range u.MaybeLabels {
			fmt.Fprintf(&b, " maybe-label:%s=%s@%s", l.Key, l.Value, l.Path)
		}
		fmt.Fprintf(&b, " unknown:%v", u.Attributes)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"karpenter", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata: {labels: {team: ml}}
    spec:
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge, g5.2xlarge], minValues: 2}
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
      startupTaints: [{key: example.com/agent-not-ready, effect: NoExecute}]
`, []string{"NodePool/gpu label:team=ml@spec.template.metadata.labels[team] label:karpenter.sh/nodepool=gpu@metadata.name label:karpenter.sh/registered=true@kind label:karpenter.sh/initialized=true@kind taint:nvidia.com/gpu=present:NoSchedule@spec.template.spec.taints[0] startup:example.com/agent-not-ready:NoExecute@spec.template.spec.startupTaints[0] startup:karpenter.sh/unregistered:NoExecute@kind req:node.kubernetes.io/instance-type In [g5.xlarge g5.2xlarge]@spec.template.spec.requirements[0] types:[g5.xlarge g5.2xlarge]"}},
		{"eksctl", `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: prod, region: eu-west-1}
nodeGroups:
- name: batch
  instanceType: m5.large
  labels: {role: batch}
  taints:
  - {key: dedicated, value: batch, effect: NoSchedule}
- name: legacy
  taints: {legacy: "yes:NoExecute", dedicated: NoSchedule}
managedNodeGroups:
- name: spot
  spot: true
  instanceTypes: [m5.large, m5a.large]
- name: reserved
  instanceType: p5.48xlarge
  instanceMarketOptions: {marketType: capacity-block}
`, []string{
			"ClusterConfig/prod nodeGroups[batch] label:role=batch@nodeGroups[0].labels[role] label:alpha.eksctl.io/cluster-name=prod@metadata.name label:alpha.eksctl.io/nodegroup-name=batch@nodeGroups[0].name label:node.kubernetes.io/instance-type=m5.large@nodeGroups[0].instanceType taint:dedicated=batch:NoSchedule@nodeGroups[0].taints[0] types:[m5.large]",
			// eksctl's map form: "value:Effect", or "Effect" alone.
			"ClusterConfig/prod nodeGroups[legacy] label:alpha.eksctl.io/cluster-name=prod@metadata.name label:alpha.eksctl.io/nodegroup-name=legacy@nodeGroups[1].name taint:dedicated:NoSchedule@nodeGroups[1].taints[dedicated] taint:legacy=yes:NoExecute@nodeGroups[1].taints[legacy]",
			"ClusterConfig/prod managedNodeGroups[spot] label:alpha.eksctl.io/cluster-name=prod@metadata.name label:alpha.eksctl.io/nodegroup-name=spot@managedNodeGroups[0].name label:eks.amazonaws.com/nodegroup=spot@managedNodeGroups[0].name label:eks.amazonaws.com/capacityType=SPOT@managedNodeGroups[0].spot types:[m5.large m5a.large]",
			"ClusterConfig/prod managedNodeGroups[reserved] label:alpha.eksctl.io/cluster-name=prod@metadata.name label:alpha.eksctl.io/nodegroup-name=reserved@managedNodeGroups[1].name label:eks.amazonaws.com/nodegroup=reserved@managedNodeGroups[1].name label:eks.amazonaws.com/capacityType=CAPACITY_BLOCK@managedNodeGroups[1].instanceMarketOptions.marketType label:node.kubernetes.io/instance-type=p5.48xlarge@managedNodeGroups[1].instanceType types:[p5.48xlarge]",
		}},
		{"cluster api", `apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata: {name: md-gpu, namespace: capi}
spec:
  template:
    metadata:
      labels: {node-role.kubernetes.io/gpu: "", not-synced: x}
    spec:
      bootstrap:
        configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: gpu-join}
      taints:
      - {key: gpu, value: "true", effect: NoSchedule, propagation: Always}
      - {key: warming, effect: NoSchedule, propagation: OnInitialization}
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta2
kind: KubeadmConfigTemplate
metadata: {name: gpu-join, namespace: capi}
spec:
  template:
    spec:
      joinConfiguration:
        nodeRegistration:
          taints: [{key: dedicated, value: gpu, effect: NoExecute}]
          kubeletExtraArgs:
          - {name: node-labels, value: "pool=gpu,tier=a"}
          - {name: cloud-provider, value: external}
`, []string{"MachineDeployment/md-gpu label:node-role.kubernetes.io/gpu=@spec.template.metadata.labels[node-role.kubernetes.io/gpu] label:pool=gpu@spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs[0] label:tier=a@spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs[0] taint:gpu=true:NoSchedule@spec.template.spec.taints[0] taint:warming:NoSchedule@spec.template.spec.taints[1] taint:dedicated=gpu:NoExecute@spec.template.spec.joinConfiguration.nodeRegistration.taints[0] startup:node.cluster.x-k8s.io/uninitialized:NoSchedule@spec.template.spec.bootstrap.configRef startup:node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule@spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs[1]"}},
		{"kops", `apiVersion: kops.k8s.io/v1alpha2
kind: InstanceGroup
metadata: {name: nodes-gpu}
spec:
  role: Node
  machineType: p3.2xlarge
  nodeLabels: {accelerator: v100}
  taints: ["nvidia.com/gpu=present:NoSchedule", "spot:PreferNoSchedule"]
`, []string{"InstanceGroup/nodes-gpu label:accelerator=v100@spec.nodeLabels[accelerator] label:node-role.kubernetes.io/node=@spec.role label:kops.k8s.io/instancegroup=nodes-gpu@metadata.name label:node.kubernetes.io/instance-type=p3.2xlarge@spec.machineType taint:nvidia.com/gpu=present:NoSchedule@spec.taints[0] taint:spot:PreferNoSchedule@spec.taints[1] types:[p3.2xlarge]"}},
		{"openshift", `apiVersion: machine.openshift.io/v1beta1
kind: MachineSet
metadata: {name: infra-a}
spec:
  template:
    spec:
      metadata: {labels: {node-role.kubernetes.io/infra: ""}}
      taints: [{key: node-role.kubernetes.io/infra, effect: NoSchedule}]
      providerSpec:
        value:
          instanceType: m6i.xlarge
          userDataSecret: {name: worker-user-data}
`, []string{"MachineSet/infra-a label:node-role.kubernetes.io/infra=@spec.template.spec.metadata.labels[node-role.kubernetes.io/infra] label:node-role.kubernetes.io/worker=@spec.template.spec.providerSpec.value.userDataSecret.name label:node.kubernetes.io/instance-type=m6i.xlarge@spec.template.spec.providerSpec.value.instanceType taint:node-role.kubernetes.io/infra:NoSchedule@spec.template.spec.taints[0] types:[m6i.xlarge]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := read(t, tc.yaml)
			if len(r.Issues) > 0 {
				t.Fatalf("issues: %+v", r.Issues)
			}
			var got []string
			for _, p := range r.Pools {
				got = append(got, describe(p))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestReadIssues: a field of the wrong type is an issue at its path, and
// the other pools are still read.
func TestReadIssues(t *testing.T) {
	r := read(t, `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: bad}
spec: {template: {spec: {taints: {key: x}}}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: good}
spec: {template: {spec: {requirements: []}}}
`)
	if len(r.Issues) != 1 || !strings.HasPrefix(r.Issues[0].Path, "spec.template.spec.taints") || r.Issues[0].Object.Name != "bad" {
		t.Errorf("issues %+v", r.Issues)
	}
	if len(r.Pools) != 1 || r.Pools[0].Name != "NodePool/good" {
		t.Errorf("pools %v", r.Pools)
	}
}

func TestFieldPath(t *testing.T) {
	for _, s := range []string{"spec.template.spec.taints[0]", "nodeGroups[2].labels[node-role.kubernetes.io/gpu]", "metadata.name", "spec.taints"} {
		if got := pools.FieldPath(s).String(); got != s {
			t.Errorf("FieldPath(%q) = %q", s, got)
		}
	}
}

func TestCompatible(t *testing.T) {
	pool := &pools.Pool{
		Name:   "NodePool/gpu",
		Format: pools.Karpenter,
		Labels: []pools.Label{{Key: "team", Value: "ml"}, {Key: pools.LabelKarpenterNodePool, Value: "gpu"}},
		Requirements: []pools.Requirement{
			{Key: "karpenter.sh/capacity-type", Operator: v1.NodeSelectorOpIn, Values: []string{"on-demand"}},
			{Key: "node.kubernetes.io/instance-type", Operator: v1.NodeSelectorOpIn, Values: []string{"g5.xlarge", "g5.2xlarge"}},
			{Key: "accelerator", Operator: v1.NodeSelectorOpExists},
		},
	}
	required := func(exprs ...v1.NodeSelectorRequirement) *v1.Affinity {
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: exprs}}}}}
	}
	for _, tc := range []struct {
		name     string
		selector map[string]string
		aff      *v1.Affinity
		want     string // "" compatible
	}{
		{"nothing asked", nil, nil, ""},
		{"its own label", map[string]string{"team": "ml"}, nil, ""},
		{"a well-known label it leaves open", map[string]string{"topology.kubernetes.io/zone": "eu-west-1a", "kubernetes.io/arch": "arm64"}, nil, ""},
		{"a deprecated alias of a well-known label", map[string]string{"beta.kubernetes.io/instance-type": "g5.xlarge"}, nil, ""},
		{"In lists intersect", nil, required(v1.NodeSelectorRequirement{Key: "node.kubernetes.io/instance-type", Operator: v1.NodeSelectorOpIn, Values: []string{"m5.large", "g5.2xlarge"}}), ""},
		{"an Exists requirement takes any value", map[string]string{"accelerator": "a10g"}, nil, ""},
		{"a custom label it does not define", map[string]string{"gpu": "true"}, nil, `label "gpu" does not have known values`},
		{"a typo of a label it defines", map[string]string{"taem": "ml"}, nil, `label "taem" does not have known values (typo of "team"?)`},
		{"NotIn of an undefined label", nil, required(v1.NodeSelectorRequirement{Key: "gpu", Operator: v1.NodeSelectorOpNotIn, Values: []string{"x"}}), ""},
		{"disjoint values", map[string]string{"karpenter.sh/capacity-type": "spot"}, nil, "key karpenter.sh/capacity-type, karpenter.sh/capacity-type In [spot] not in karpenter.sh/capacity-type In [on-demand]"},
		{"another pool's name", map[string]string{"karpenter.sh/nodepool": "general"}, nil, "key karpenter.sh/nodepool, karpenter.sh/nodepool In [general] not in karpenter.sh/nodepool In [gpu]"},
		{"DoesNotExist of a label it sets", nil, required(v1.NodeSelectorRequirement{Key: "team", Operator: v1.NodeSelectorOpDoesNotExist}), "key team, team DoesNotExist not in team In [ml]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := pool.Compatible(tc.selector, tc.aff)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Compatible = %q, want %q", got, tc.want)
			}
		})
	}
	// Some term compatible is enough.
	aff := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
		{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "gpu", Operator: v1.NodeSelectorOpIn, Values: []string{"true"}}}},
		{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "team", Operator: v1.NodeSelectorOpIn, Values: []string{"ml"}}}},
	}}}}
	if err := pool.Compatible(nil, aff); err != nil {
		t.Errorf("second term fits, got %v", err)
	}
}

// TestReadRefused: what a provisioner refuses is an issue at its field,
// and a kOps bastion is no pool.
func TestReadRefused(t *testing.T) {
	r := read(t, `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: prod}
managedNodeGroups:
- name: m
  taints: {dedicated: "batch:NoSchedule"}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata: {name: md}
spec:
  template:
    spec:
      bootstrap: {configRef: {kind: KubeadmConfigTemplate, name: join}}
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
kind: KubeadmConfigTemplate
metadata: {name: join}
spec:
  template:
    spec:
      joinConfiguration:
        nodeRegistration:
          kubeletExtraArgs: {node-labels: "node.kubernetes.io/pool=a,node-role.kubernetes.io/gpu=,team=ml"}
---
apiVersion: kops.k8s.io/v1alpha2
kind: InstanceGroup
metadata: {name: bastions}
spec: {role: Bastion}
`)
	var issues []string
	for _, is := range r.Issues {
		issues = append(issues, is.Object.Kind+" "+is.Path)
	}
	want := []string{"ClusterConfig managedNodeGroups[0].taints", "KubeadmConfigTemplate spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs[node-labels]"}
	if strings.Join(issues, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues\n%s\nwant\n%s", strings.Join(issues, "\n"), strings.Join(want, "\n"))
	}
	var got []string
	for _, p := range r.Pools {
		got = append(got, describe(p))
	}
	wantPools := []string{
		"ClusterConfig/prod managedNodeGroups[m] label:alpha.eksctl.io/cluster-name=prod@metadata.name label:alpha.eksctl.io/nodegroup-name=m@managedNodeGroups[0].name label:eks.amazonaws.com/nodegroup=m@managedNodeGroups[0].name label:eks.amazonaws.com/capacityType=ON_DEMAND@managedNodeGroups[0].spot",
		// The kubelet's own namespace and a custom key are kept; the
		// reserved node-role key is on no node.
		"MachineDeployment/md label:node.kubernetes.io/pool=a@spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs[node-labels] label:team=ml@spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs[node-labels] startup:node.cluster.x-k8s.io/uninitialized:NoSchedule@spec.template.spec.bootstrap.configRef",
	}
	if strings.Join(got, "\n") != strings.Join(wantPools, "\n") {
		t.Errorf("pools\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantPools, "\n"))
	}
}

// TestKubeadmControlPlane: kubeadm's control-plane taint unless taints is
// written; an empty list is no taint.
func TestKubeadmControlPlane(t *testing.T) {
	for _, tc := range []struct{ taints, want string }{
		{"", "taint:node-role.kubernetes.io/control-plane:NoSchedule@spec.kubeadmConfigSpec"},
		{"taints: []", ""},
		{"taints: [{key: etcd, effect: NoExecute}]", "taint:etcd:NoExecute@spec.kubeadmConfigSpec.joinConfiguration.nodeRegistration.taints[0]"},
	} {
		r := read(t, "apiVersion: controlplane.cluster.x-k8s.io/v1beta1\nkind: KubeadmControlPlane\nmetadata: {name: cp}\nspec:\n  kubeadmConfigSpec:\n    joinConfiguration:\n      nodeRegistration: {"+tc.taints+"}\n")
		if len(r.Pools) != 1 || len(r.Issues) > 0 {
			t.Fatalf("%q: pools %v issues %v", tc.taints, r.Pools, r.Issues)
		}
		var taints []string
		for _, tt := range r.Pools[0].Taints {
			taints = append(taints, fmt.Sprintf("taint:%s@%s", tt.ToString(), tt.Path))
		}
		if got := strings.Join(taints, " "); got != tc.want {
			t.Errorf("%q: taints %q, want %q", tc.taints, got, tc.want)
		}
	}
}

// FuzzCompatible: any operator and values, in the pool's requirements
// and the pod's terms, give a verdict without panicking, and the same one
// twice (requirements are built afresh on every call).
func FuzzCompatible(f *testing.F) {
	f.Add("karpenter.k8s.aws/instance-cpu", "Gte", "8", "kubernetes.io/hostname", "NotIn", "a", true)
	f.Add("team", "Gt", "9223372036854775807", "team", "Lt", "-9223372036854775808", false)
	f.Add("beta.kubernetes.io/arch", "In", "arm64", "kubernetes.io/arch", "Bogus", "", true)
	f.Fuzz(func(t *testing.T, poolKey, poolOp, poolValue, podKey, podOp, podValue string, aws bool) {
		var values []string
		if poolValue != "" {
			values = []string{poolValue}
		}
		p := &pools.Pool{Name: "NodePool/f", Format: pools.Karpenter, AWS: aws,
			Labels:       []pools.Label{{Key: pools.LabelKarpenterNodePool, Value: "f"}},
			Requirements: []pools.Requirement{{Key: poolKey, Operator: v1.NodeSelectorOperator(poolOp), Values: values}}}
		aff := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{{Key: podKey, Operator: v1.NodeSelectorOperator(podOp), Values: strings.Split(podValue, ",")}}},
		}}}}
		for _, compatible := range []func(map[string]string, *v1.Affinity) error{p.Compatible, p.DaemonCompatible} {
			a, b := compatible(map[string]string{podKey: podValue}, aff), compatible(map[string]string{podKey: podValue}, aff)
			if (a == nil) != (b == nil) || a != nil && a.Error() != b.Error() {
				t.Fatalf("two verdicts: %v, %v", a, b)
			}
		}
	})
}

// hostilePool is a NodePool with n requirement keys of about 250 bytes
// and a selector of n other keys as long: 200 KB of valid input whose
// "typo of" hints took 78 s when each pod key was measured against every
// pool key in full.
func hostilePool(n int) (*pools.Pool, map[string]string) {
	prefix := strings.Repeat("a", 180) + ".example.com/"
	pool := &pools.Pool{Name: "NodePool/wide", Format: pools.Karpenter}
	selector := map[string]string{}
	for i := range n {
		pool.Requirements = append(pool.Requirements, pools.Requirement{Key: fmt.Sprintf("%spool-%055d", prefix, i), Operator: v1.NodeSelectorOpIn, Values: []string{"v"}})
		selector[fmt.Sprintf("%spod-%056d", prefix, i)] = "v"
	}
	return pool, selector
}

func TestCompatibleHostile(t *testing.T) {
	pool, selector := hostilePool(400)
	start := time.Now()
	err := pool.Compatible(selector, nil)
	took := time.Since(start)
	if err == nil {
		t.Fatal("400 unknown keys are compatible")
	}
	msg := err.Error()
	if !strings.Contains(msg, "does not have known values") {
		t.Errorf("message %q names no key", msg)
	}
	if n := strings.Count(msg, "(typo of"); n > 8 {
		t.Errorf("%d hints, want at most 8", n)
	}
	// Generous: the run takes well under a second; a loaded CI machine
	// must not fail it. BenchmarkCompatibleHostile has the real number.
	if took > 10*time.Second {
		t.Errorf("Compatible took %v on 400 keys against 400", took)
	}
}

func BenchmarkCompatibleHostile(b *testing.B) {
	pool, selector := hostilePool(400)
	for b.Loop() {
		pool.Compatible(selector, nil)
	}
}
