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
		if c.Source == "" || c.Group == "" || c.Kind == "" || c.PodTemplate == "" && len(c.Placements) == 0 {
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
	f.Fuzz(func(t *testing.T, apiVersion, kind, spec string) {
		doc := "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata: {name: x}\nspec: " + spec + "\n"
		for _, obj := range loader.Parse("x.yaml", []byte(doc)).Objects {
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
