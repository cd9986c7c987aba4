package k8s

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader"
)

// TestOperatorKinds holds the table to its promises: every entry parses,
// names its source, and is the only one for its group and kind.
func TestOperatorKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range OperatorKinds() {
		key := c.Group + "/" + c.Kind
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		if c.Source == "" || c.Group == "" || c.Kind == "" || c.PodTemplate == "" && len(c.Placements) == 0 && len(c.Templates) == 0 && c.Operands == nil {
			t.Errorf("%s: incomplete entry %+v", key, c)
		}
		if _, err := parseKind(c); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
}

func TestPlacements(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string // per placement: path, tolerations, selector, affinity path
		issues    []string
	}{
		{
			name: "map members and list elements in the order written",
			doc: `apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata: {name: c}
spec:
  placement:
    mon: {tolerations: [{key: a}]}
    all: {nodeAffinity: {}}
    mgr: {}
    "a.b": {tolerations: [{key: b}]}
  storage:
    storageClassDeviceSets:
    - {name: x}
    - {name: y, placement: {tolerations: [{key: c}]}}`,
			want: []string{
				"spec.placement.mon 1 0 <nil>",
				"spec.placement.all 0 0 spec.placement.all.nodeAffinity",
				"spec.placement[a.b] 1 0 <nil>",
				"spec.storage.storageClassDeviceSets[1].placement 1 0 <nil>",
			},
		},
		{
			name: "affinity's node affinity, nulls, and values of other types",
			doc: `apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: p}
spec:
  nodeSelector: null
  tolerations: "dedicated"
  affinity: {nodeAffinity: {}, podAntiAffinity: {}}`,
			want:   []string{"spec 0 0 spec.affinity.nodeAffinity"},
			issues: []string{"spec.tolerations"},
		},
		{
			name: "a member holding a placeholder the operator fills is left out",
			doc: `apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: w}
spec:
  templates:
  - nodeSelector: {arch: "{{inputs.parameters.arch}}"}
    tolerations: [{key: a}]`,
			want: []string{"spec.templates[0] 1 0 <nil>"},
		},
		{name: "a path that leads to a scalar or nowhere", doc: "apiVersion: ceph.rook.io/v1\nkind: CephCluster\nmetadata: {name: c}\nspec: {placement: 3, storage: {storageClassDeviceSets: {}}}"},
		{name: "the core group has no custom kind", doc: "apiVersion: v1\nkind: Prometheus\nmetadata: {name: c}\nspec: {tolerations: [{key: a}]}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := loader.Parse("x.yaml", []byte(tt.doc)).Objects[0]
			pls, issues := (*Kinds)(nil).Placements(obj)
			var got, gotIssues []string
			for _, p := range pls {
				got = append(got, fmt.Sprintf("%s %d %d %s", p.Path, len(p.Tolerations), len(p.NodeSelector), p.NodeAffinityPath))
			}
			for _, is := range issues {
				gotIssues = append(gotIssues, is.Path)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if strings.Join(gotIssues, ",") != strings.Join(tt.issues, ",") {
				t.Errorf("issues %q, want %q", gotIssues, tt.issues)
			}
		})
	}
}

func TestParseKindPath(t *testing.T) {
	for path, wantErr := range map[string]string{
		"spec":                              "",
		"spec.nodeSets[*].podTemplate.spec": "",
		"spec.placement.*":                  "",
		"":                                  "empty path",
		"spec..x":                           "an empty name",
		"spec.nodeSets[0]":                  "the only index",
		"spec.p*":                           "stands alone",
		".spec":                             "an empty name",
	} {
		_, err := ParseKindPath(path)
		if wantErr == "" && err != nil || wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)) {
			t.Errorf("ParseKindPath(%q) = %v, want %q", path, err, wantErr)
		}
	}
}

func TestCustomPodTemplate(t *testing.T) {
	kinds, err := NewKinds([]CustomKind{{Group: "example.com", Kind: "Runner", PodTemplate: "spec.runner.template.spec"}})
	if err != nil {
		t.Fatal(err)
	}
	obj := loader.Parse("x.yaml", []byte("apiVersion: example.com/v1\nkind: Runner\nmetadata: {name: r}\nspec: {runner: {template: {spec: {containers: [{name: a}], tolerations: [{key: k, operator: Exists}]}}}}")).Objects[0]
	w, issues := NewInternerFor(kinds).Workload(obj)
	if w == nil || len(issues) > 0 || w.SpecPath.String() != "spec.runner.template.spec" || len(w.Spec.Tolerations) != 1 {
		t.Fatalf("workload %+v, issues %v", w, issues)
	}
	if w, _ := NewInterner().Workload(obj); w != nil {
		t.Errorf("without the user's kind: a workload at %s", w.SpecPath)
	}
	for _, bad := range []CustomKind{
		{Group: "example.com", Kind: "Merged", Merges: []Merge{{Name: "pods"}}},
		{Group: "g", Kind: "K", PodTemplate: "spec.templates[*].spec"},
		{Group: "g", Kind: "K", PodTemplate: "spec.template"},
	} {
		if _, err := NewKinds([]CustomKind{bad}); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// FuzzPlacements feeds arbitrary specs to the table's kinds: Placements
// never panics, and each placement's path leads to an object in the
// manifest.
func FuzzPlacements(f *testing.F) {
	f.Add("ceph.rook.io/v1", "CephCluster", "{placement: {all: {tolerations: [{key: a}]}, mon: null}}")
	f.Add("kubeflow.org/v1", "PyTorchJob", "{pytorchReplicaSpecs: {Worker: {template: {spec: {nodeSelector: {a: b}}}}}}")
	f.Add("argoproj.io/v1alpha1", "Workflow", "{templates: [{affinity: {nodeAffinity: 3}}, 7]}")
	f.Add("elasticsearch.k8s.elastic.co/v1", "Elasticsearch", "{nodeSets: [{podTemplate: {spec: {tolerations: 1}}}, {podTemplate: 2}]}")
	f.Add("nvidia.com/v1", "ClusterPolicy", "{daemonsets: {tolerations: [{key: 1}]}}")
	f.Add("sparkoperator.k8s.io/v1beta2", "SparkApplication", "{sparkVersion: 3.5.0, sparkConf: {spark.kubernetes.node.selector.a: b}, nodeSelector: {a: c}, driver: {affinity: null, gpu: {name: g, quantity: 1}, template: {spec: {tolerations: [{}]}}}}")
	f.Add("ceph.rook.io/v1", "CephCluster", "{storage: {useAllNodes: true, storageClassDeviceSets: [{preparePlacement: {nodeAffinity: {}}}]}, placement: {all: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}, osd: {nodeAffinity: {}}}}")
	f.Add("kafka.strimzi.io/v1beta2", "KafkaBridge", "{rack: {topologyKey: zone}}")
	f.Fuzz(func(t *testing.T, apiVersion, kind, spec string) {
		doc := "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata: {name: x}\nspec: " + spec + "\n"
		for _, obj := range loader.Parse("x.yaml", []byte(doc)).Objects {
			for _, w := range func() []*Workload { ws, _ := NewInterner().Workloads(obj); return ws }() {
				if v, found, _ := obj.JSONAt(w.SpecSteps()...); w.Template != "" && !strings.HasSuffix(w.Template, ")") && (!found || v[0] != '{') {
					t.Errorf("%s: workload at %s, which is not an object", doc, w.SpecPath)
				}
			}
			pls, _ := (*Kinds)(nil).Placements(obj)
			for _, p := range pls {
				var v map[string]any
				if err := obj.Decode(p.Path.String(), &v); err != nil || v == nil {
					t.Errorf("%s: placement at %s: %v", doc, p.Path, err)
				}
			}
		}
	})
}

func TestTemplates(t *testing.T) {
	doc := `apiVersion: agent.k8s.elastic.co/v1alpha1
kind: Agent
metadata: {name: a}
spec:
  daemonSet:
    podTemplate:
      spec:
        tolerations: [{key: k, operator: Exists}]
        containers: [{name: agent}]
  statefulSet:
    podTemplate:
      spec:
        nodeSelector: {pool: x}
        containers: [{name: agent}]
---
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  tfReplicaSpecs:
    Chief: {template: {spec: {containers: [{name: tf}]}}}
    Worker: {template: {spec: {tolerations: "x", containers: [{name: tf}]}}}
`
	var got []string
	for _, obj := range loader.Parse("x.yaml", []byte(doc)).Objects {
		ws, issues := NewInterner().Workloads(obj)
		for _, w := range ws {
			got = append(got, fmt.Sprintf("%s %s daemon=%v tol=%d sel=%d", w.SpecPath, w.Template, w.IsDaemonSet(), len(w.Spec.Tolerations), len(w.Spec.NodeSelector)))
		}
		for _, is := range issues {
			got = append(got, "issue "+is.Path)
		}
	}
	want := []string{
		"spec.daemonSet.podTemplate.spec spec.daemonSet.podTemplate daemon=true tol=1 sel=0",
		"spec.statefulSet.podTemplate.spec spec.statefulSet.podTemplate daemon=false tol=0 sel=1",
		"spec.tfReplicaSpecs.Chief.template.spec spec.tfReplicaSpecs.Chief.template daemon=false tol=0 sel=0",
		"spec.tfReplicaSpecs.Worker.template.spec spec.tfReplicaSpecs.Worker.template daemon=false tol=0 sel=0",
		"issue spec.tfReplicaSpecs.Worker.template.spec.tolerations",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestOperands(t *testing.T) {
	for _, tt := range []struct {
		name, daemonsets string
		tolerations      string // the keys of the pods' tolerations
		priority         string
		issues           int
	}{
		{"unset: the operands' own", "", "nvidia.com/gpu", "system-node-critical", 0},
		{"replaced", "{tolerations: [{key: a, operator: Exists}, {key: b, operator: Exists}], priorityClassName: p}", "a,b", "p", 0},
		{"empty list keeps the operands'", "{tolerations: []}", "nvidia.com/gpu", "system-node-critical", 0},
		{"wrong type", "{tolerations: {key: a}, priorityClassName: 5}", "nvidia.com/gpu", "system-node-critical", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: c}\nspec: {driver: {enabled: true}}\n"
			if tt.daemonsets != "" {
				doc = "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: c}\nspec: {daemonsets: " + tt.daemonsets + "}\n"
			}
			obj := loader.Parse("x.yaml", []byte(doc)).Objects[0]
			ws, issues := NewInterner().Workloads(obj)
			if len(ws) != 1 || len(issues) != tt.issues {
				t.Fatalf("workloads %v, issues %v", ws, issues)
			}
			w := ws[0]
			var keys []string
			for _, tol := range w.Spec.Tolerations {
				keys = append(keys, tol.Key)
			}
			if !w.IsDaemonSet() || w.SpecPathString() != "spec.daemonsets" || strings.Join(keys, ",") != tt.tolerations || w.Spec.PriorityClassName != tt.priority {
				t.Errorf("daemon %v at %s, tolerations %v, priority %q", w.IsDaemonSet(), w.SpecPathString(), keys, w.Spec.PriorityClassName)
			}
			if na := w.Spec.Affinity.NodeAffinity; na == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) != 4 {
				t.Errorf("node affinity %v, want the operator's four terms", na)
			}
		})
	}
}
