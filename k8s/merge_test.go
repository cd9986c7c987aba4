package k8s

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader"
)

// TestMergedWorkloads builds the pods of the operators that merge
// placements, each as its operator's source does (merge.go).
func TestMergedWorkloads(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string // per pod: spec path, template, tolerations' keys, selector, required terms
	}{
		{
			name: "spark: template, then spec.nodeSelector, then the webhook",
			doc: `apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: s}
spec:
  sparkVersion: "3.5.3"
  sparkConf: {spark.kubernetes.node.selector.a: conf, spark.kubernetes.node.selector.e: conf, spark.kubernetes.executor.node.selector.f: conf}
  nodeSelector: {a: app, b: app}
  driver:
    nodeSelector: {b: driver}
    tolerations: [{key: d}]
    priorityClassName: high
    template:
      spec:
        nodeSelector: {a: template, c: template}
        tolerations: [{key: t}]
        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: t, operator: Exists}]}]}}}
  executor:
    affinity: {podAntiAffinity: {}}
    template:
      spec:
        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: t, operator: Exists}]}]}}}`,
			want: []string{
				"spec.driver|spec.driver (the driver pods)|t,d|map[a:app b:driver c:template e:conf]|[t Exists]|high",
				"spec.executor|spec.executor (the executor pods)||map[a:app b:app e:conf f:conf]||",
			},
		},
		{
			name: "spark 2 reads no pod template",
			doc: `apiVersion: sparkoperator.k8s.io/v1beta2
kind: ScheduledSparkApplication
metadata: {name: s}
spec:
  template:
    sparkVersion: 2.4.5
    driver: {template: {spec: {tolerations: [{key: t}]}}}`,
			want: []string{
				"spec.template.driver|spec.template.driver (the driver pods)||map[]||",
				"spec.template|spec.template (the executor pods)||map[]||",
			},
		},
		{
			name: "rook: Merge for mon and mgr, ApplyToPodSpec for OSDs",
			doc: `apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata: {name: c}
spec:
  mon: {stretchCluster: {}}
  storage:
    nodes: [{name: n}]
    storageClassDeviceSets:
    - {name: x, placement: {tolerations: [{key: set}]}, preparePlacement: {tolerations: []}}
  placement:
    all:
      tolerations: [{key: all}]
      nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: all, operator: Exists}]}, {matchExpressions: [{key: other, operator: Exists}]}]}}
    mgr:
      tolerations: [{key: mgr}]
      nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: mgr, operator: Exists}]}]}}
    osd:
      tolerations: [{key: osd}]
      nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: osd, operator: Exists}]}]}}
    arbiter:
      tolerations: [{key: arbiter}]`,
			want: []string{
				"spec.placement.all|spec.placement.all (the mon pods, with spec.placement.all)|all|map[]|[all Exists] or [other Exists]|",
				"spec.placement.arbiter|spec.placement.arbiter (the arbiter mon pods)|arbiter|map[]||",
				"spec.placement.mgr|spec.placement.mgr (the mgr pods, with spec.placement.all)|all,mgr|map[]|[mgr Exists]|",
				"spec.placement.osd|spec.placement.osd (the osd pods, with spec.placement.all)|osd,all|map[]|[all Exists osd Exists]|",
				"spec.placement.all|spec.placement.all (the prepareosd pods, with spec.placement.all)|all|map[]|[all Exists] or [other Exists]|",
				"spec.storage.storageClassDeviceSets[0].placement|spec.storage.storageClassDeviceSets[0].placement (the OSD pods of this device set, with spec.placement.all)|set,all|map[]|[all Exists] or [other Exists]|",
				"spec.storage.storageClassDeviceSets[0].preparePlacement|spec.storage.storageClassDeviceSets[0].preparePlacement (the OSD prepare pods of this device set, with spec.placement.all)|all|map[]|[all Exists] or [other Exists]|",
			},
		},
		{
			name: "rook: an empty arbiter placement is Rook's empty Placement, so the arbiter mon is placed as the mons (getMonPlacement)",
			doc: `apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata: {name: c}
spec:
  mon: {stretchCluster: {}}
  placement:
    all: {tolerations: [{key: all}]}
    arbiter: {tolerations: null, unknownField: 1}`,
			want: []string{
				"spec.placement.all|spec.placement.all (the mon pods, with spec.placement.all)|all|map[]||",
				"spec.placement.all|spec.placement.all (the mgr pods, with spec.placement.all)|all|map[]||",
			},
		},
		{
			name: "rook: an external cluster runs no pods; a placement that does not decode builds none",
			doc: `apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata: {name: c}
spec:
  external: {enable: true}
---
apiVersion: ceph.rook.io/v1
kind: CephFilesystem
metadata: {name: fs}
spec:
  metadataServer: {placement: {tolerations: "x"}}`,
		},
		{
			name: "strimzi: rack awareness ANDs the topology key into each term",
			doc: `apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaConnect
metadata: {name: k}
spec:
  rack: {topologyKey: zone}
  template:
    pod:
      tolerations: [{key: k}]
      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists}]}, {matchExpressions: [{key: b, operator: Exists}]}]}}}`,
			want: []string{"spec.template.pod|spec.template.pod|k|map[]|[a Exists zone Exists] or [b Exists zone Exists]|"},
		},
		{
			name: "strimzi: rack awareness alone, no template written",
			doc: `apiVersion: kafka.strimzi.io/v1beta2
kind: Kafka
metadata: {name: k}
spec:
  kafka: {rack: {topologyKey: zone}}
---
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaBridge
metadata: {name: b}
spec: {replicas: 1}`,
			want: []string{"spec.kafka.template.pod|spec.kafka.template.pod (none written: rack awareness alone)||map[]|[zone Exists]|"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, obj := range loader.Parse("x.yaml", []byte(tt.doc)).Objects {
				ws, _ := NewInterner().Workloads(obj)
				for _, w := range ws {
					var keys []string
					for _, tol := range w.Spec.Tolerations {
						keys = append(keys, tol.Key)
					}
					got = append(got, fmt.Sprintf("%s|%s|%s|%v|%s|%s", w.SpecPath, w.Template, strings.Join(keys, ","), w.Spec.NodeSelector, terms(w.Spec.Affinity), w.Spec.PriorityClassName))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// terms writes a's required node affinity terms.
func terms(a *v1.Affinity) string {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	var out []string
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var e []string
		for _, r := range t.MatchExpressions {
			e = append(e, r.Key+" "+string(r.Operator))
		}
		out = append(out, "["+strings.Join(e, " ")+"]")
	}
	return strings.Join(out, " or ")
}

// TestMergedTolerationPaths: each toleration of a merged pod is named by
// the path it is written at, in the operator's order, so the toleration
// rules report it at its line.
func TestMergedTolerationPaths(t *testing.T) {
	doc := `apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: s}
spec:
  sparkVersion: "3.5.3"
  executor:
    tolerations: [{key: e0}, {key: e1}]
    template: {spec: {tolerations: [{key: t0}]}}
---
apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata: {name: c}
spec:
  storage: {useAllNodes: true}
  placement:
    all: {tolerations: [{key: a0}, {key: a1}]}
    mon: {tolerations: [{key: m0}]}
    osd: {tolerations: [{key: o0}]}`
	want := []string{
		"spec (the driver pods): ",
		"spec.executor (the executor pods): t0@spec.executor.template.spec.tolerations[0] e0@spec.executor.tolerations[0] e1@spec.executor.tolerations[1]",
		"spec.placement.mon (the mon pods, with spec.placement.all): a0@spec.placement.all.tolerations[0] a1@spec.placement.all.tolerations[1] m0@spec.placement.mon.tolerations[0]",
		"spec.placement.all (the mgr pods, with spec.placement.all): a0@spec.placement.all.tolerations[0] a1@spec.placement.all.tolerations[1]",
		"spec.placement.osd (the osd pods, with spec.placement.all): o0@spec.placement.osd.tolerations[0] a0@spec.placement.all.tolerations[0] a1@spec.placement.all.tolerations[1]",
		"spec.placement.all (the prepareosd pods, with spec.placement.all): a0@spec.placement.all.tolerations[0] a1@spec.placement.all.tolerations[1]",
	}
	var got []string
	for _, obj := range loader.Parse("x.yaml", []byte(doc)).Objects {
		ws, _ := NewInterner().Workloads(obj)
		for _, w := range ws {
			pod := EffectivePod(w, nil, Admission{})
			var tols []string
			for _, tol := range pod.Tolerations {
				if tol.Source != FromPlacement {
					continue
				}
				if p := w.TolerationPath(tol.Index).String(); p != tol.Path {
					t.Errorf("%s: toleration %d: TolerationPath %s, Path %s", w.Template, tol.Index, p, tol.Path)
				}
				tols = append(tols, tol.Key+"@"+tol.Path)
			}
			got = append(got, w.Template+": "+strings.Join(tols, " "))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
