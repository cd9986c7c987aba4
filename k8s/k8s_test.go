package k8s

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

func TestPodSpecPath(t *testing.T) {
	tests := []struct {
		kind, body, want string
	}{
		{"Pod", "spec: {containers: [{name: a}]}", "spec"},
		{"Deployment", "spec: {template: {spec: {containers: [{name: a}]}}}", "spec.template.spec"},
		{"DaemonSet", "spec: {}", "spec.template.spec"},
		{"CronJob", "spec: {}", "spec.jobTemplate.spec.template.spec"},
		{"PodTemplate", "template: {}", "template.spec"},
		{"Rollout", "spec: {template: {spec: {containers: [{name: a}]}}}", "spec.template.spec"},
		{"Rollout", "spec: {template: {spec: {}}}", ""},
		{"ConfigMap", "data: {a: b}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.want, func(t *testing.T) {
			r := loader.Parse("x.yaml", []byte("apiVersion: x/v1\nkind: "+tt.kind+"\nmetadata: {name: n}\n"+tt.body+"\n"))
			if len(r.Objects) != 1 {
				t.Fatalf("objects: %v", r.Errors)
			}
			got := ""
			if p := PodSpecPath(r.Objects[0]); p != nil {
				got = p.String()
			}
			if got != tt.want {
				t.Errorf("PodSpecPath = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewWorkloadDecodeIssue(t *testing.T) {
	r := loader.Parse("x.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    metadata:
      labels: {app: d}
    spec:
      nodeSelector: {disk: ssd}
      tolerations:
      - key: a
        tolerationSeconds: "abc"
`))
	w, issues := NewWorkload(r.Objects[0])
	if w == nil || len(issues) != 1 {
		t.Fatalf("workload %v issues %v", w, issues)
	}
	if issue := issues[0]; issue.Path != "spec.template.spec.tolerations[0].tolerationSeconds" || !issue.InView {
		t.Errorf("issue path = %q (%s, in view %v)", issue.Path, issue.Msg, issue.InView)
	}
	if w.Spec.NodeSelector["disk"] != "ssd" {
		t.Errorf("best-effort decode lost data: %+v", w.Spec.NodeSelector)
	}
}

func TestFeatureGates(t *testing.T) {
	var g FeatureGates
	if err := g.Parse("TaintTolerationComparisonOperators=true"); err != nil || !g.TaintTolerationComparisonOperators {
		t.Fatalf("Parse: %v %+v", err, g)
	}
	if g.String() != "TaintTolerationComparisonOperators=true" {
		t.Errorf("String = %q", g.String())
	}
	for _, bad := range []string{"Nope=true", "TaintTolerationComparisonOperators", "TaintTolerationComparisonOperators=maybe"} {
		if err := g.Parse(bad); err == nil {
			t.Errorf("Parse(%q): want an error", bad)
		} else if !strings.Contains(err.Error(), "feature gate") {
			t.Errorf("Parse(%q) = %v", bad, err)
		}
	}
}

// TestTemplateAnnotation: the legacy tolerations annotation read from the
// JSON is what decoding the metadata gives, and metadata that would not
// decode is decoded, for the issue that names the field.
func TestTemplateAnnotation(t *testing.T) {
	const key = "scheduler.alpha.kubernetes.io/tolerations"
	tests := []struct {
		name, meta, want, issue string
	}{
		{"absent", "", "", ""},
		{"null", "metadata: null", "", ""},
		{"plain", "metadata: {labels: {a: b}, annotations: {x: z, " + key + ": '[{\"key\": \"k\"}]'}}", `[{"key": "k"}]`, ""},
		{"escaped", `metadata: {annotations: {"` + key + `": "a\"b\u00e9\n"}}`, "a\"b\u00e9\n", ""},
		{"null value", "metadata: {annotations: {" + key + ": null}}", "", ""},
		{"null maps", "metadata: {labels: null, annotations: ~}", "", ""},
		{"other fields", "metadata: {name: [1], Annotations: {" + key + ": 1}}", "", "spec.template.metadata.name"},
		{"unknown fields", "metadata: {Annotations: {" + key + ": 1}, other: 2}", "", ""},
		{"int label", "metadata: {labels: {a: 1}, annotations: {" + key + ": t}}", "t", "spec.template.metadata.labels"},
		{"list annotations", "metadata: {annotations: [a]}", "", "spec.template.metadata.annotations"},
		{"string metadata", "metadata: x", "", "spec.template.metadata"},
		{"bool annotation", "metadata: {annotations: {" + key + ": yes}}", "", "spec.template.metadata.annotations"},
		{"aliases", "metadata: {annotations: &a {" + key + ": v}, labels: *a}", "v", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n"
			if tt.meta != "" {
				doc += "    " + tt.meta + "\n"
			}
			doc += "    spec: {containers: [{name: c}]}\n"
			r := loader.Parse("x.yaml", []byte(doc))
			if len(r.Objects) != 1 {
				t.Fatalf("objects: %v", r.Errors)
			}
			w, issues := NewWorkload(r.Objects[0])
			if w.TolerationsAnnotation != tt.want {
				t.Errorf("annotation %q, want %q", w.TolerationsAnnotation, tt.want)
			}
			got := ""
			if len(issues) > 0 {
				got = issues[0].Path
			}
			if !strings.HasPrefix(got, tt.issue) || (got == "") != (tt.issue == "") || len(issues) > 1 {
				t.Errorf("issues %v at %q, want one at %q", issues, got, tt.issue)
			}
		})
	}
}

// A view keeps what rules read of a pod spec and lets go of the rest,
// yet a value of the wrong type in a dropped part is still an issue. Both
// ways of making it are tried: decoding only the view (every value fits)
// and decoding the whole spec (one does not).
func TestViewDropsUnread(t *testing.T) {
	for _, bad := range []string{"b", "1"} {
		t.Run("env="+bad, func(t *testing.T) {
			r := loader.Parse("x.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      nodeSelector: {pool: a}
      tolerations: [{key: k, operator: Exists}]
      affinity:
        nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: z, operator: Exists}]}]}}
        podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone}]}
      volumes: [{name: v, emptyDir: {}}]
      initContainers:
      - {name: s, restartPolicy: Always, env: [{name: A, value: b}]}
      containers:
      - name: c
        env: [{name: A, value: b}]
        command: [run]
        readinessProbe: {exec: {command: [ok]}}
        volumeMounts: [{name: v, mountPath: /v}]
        resources: {requests: {cpu: 100m}}
        ports: [{containerPort: 80, hostPort: 80}]
      - name: bad
        env: [{name: B, value: `+bad+`}]
`))
			if len(r.Objects) != 1 {
				t.Fatalf("objects: %v", r.Errors)
			}
			w, issues := NewWorkload(r.Objects[0])
			if bad == "1" && (len(issues) != 1 || issues[0].Path != "spec.template.spec.containers[1].env[0].value") {
				t.Errorf("issues %v, want one at the env value of the wrong type", issues)
			} else if bad != "1" && len(issues) != 0 {
				t.Errorf("issues %v, want none", issues)
			}
			s := w.Spec
			if s.NodeSelector["pool"] != "a" || len(s.Tolerations) != 1 || len(s.Containers) != 2 || len(s.InitContainers) != 1 || s.Affinity == nil || s.Affinity.NodeAffinity == nil {
				t.Fatalf("view lost what rules read: %+v", s)
			}
			c := s.Containers[0]
			if c.Name != "c" || c.Resources.Requests.Cpu().MilliValue() != 100 || s.InitContainers[0].RestartPolicy == nil {
				t.Errorf("container lost what rules read: %+v", c)
			}
			if s.Volumes != nil || c.Env != nil || c.Command != nil || c.ReadinessProbe != nil || c.VolumeMounts != nil || c.Ports != nil || s.InitContainers[0].Env != nil || s.Affinity.PodAntiAffinity != nil {
				t.Errorf("view keeps what no rule reads: %+v", s)
			}
		})
	}
}

// TestViewIsDecodedSpec: on every manifest under testdata, the view
// decoded alone equals the whole pod spec decoded and cut down to the
// view, so the two ways of making a view agree.
func TestViewIsDecodedSpec(t *testing.T) {
	files := fixtureFiles(t)
	views := 0
	// Shapes the fixtures may not hold: empty and null lists and
	// elements, escapes, every field the view keeps.
	odd := []string{
		`{containers: [], initContainers: null, tolerations: [], nodeSelector: {}, affinity: {}}`,
		`{containers: [null, {name: null, resources: null}], nodeSelector: {a: null}, affinity: {podAffinity: {}}}`,
		`{containers: [{name: "a\tb\u00e9", resources: {limits: {cpu: "1", memory: 1Gi}, requests: {cpu: 500m}}, restartPolicy: Always}], "node\u004eame": nx}`,
		`{hostNetwork: true, priorityClassName: "p\"q", preemptionPolicy: Never, runtimeClassName: gvisor, overhead: {cpu: 10m}, resources: {limits: {cpu: "2"}}, nodeName: x, NodeName: y}`,
		`{affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchFields: [{key: metadata.name, operator: In, values: [a]}]}}]}}, tolerations: [{key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 5}]}`,
		`{containers: [{name: a, resources: {requests: {cpu: 1}}}], initContainers: [{name: s, restartPolicy: Always, resources: {requests: {cpu: 1}}}]}`,
	}
	type source struct {
		name string
		data []byte
	}
	var sources []source
	knowns := 0
	for i, spec := range odd {
		sources = append(sources, source{fmt.Sprintf("odd%d", i), fmt.Appendf(nil, "apiVersion: v1\nkind: Pod\nmetadata: {name: odd%d}\nspec: %s\n", i, spec)})
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, source{f, data})
	}
	for _, src := range sources {
		f := src.name
		for _, obj := range loader.Parse(f, src.data).Objects {
			p := PodSpecPath(obj)
			if p == nil {
				continue
			}
			w, issues := NewWorkload(obj)
			if strings.HasPrefix(f, "odd") && len(issues) > 0 {
				t.Errorf("%s: issue %s: %s", f, issues[0].Path, issues[0].Msg)
			}
			var full v1.PodSpec
			_ = obj.Decode(p.String(), &full) // partly, when a value does not fit
			if want := viewOf(&full).spec(); !reflect.DeepEqual(w.Spec, want) {
				t.Errorf("%s: %s/%s: view %+v, want %+v", f, obj.Kind, obj.Name, w.Spec, want)
			}
			// Where decoding found the containers: in the pod spec's JSON
			// the object keeps, the values JSONFields finds there.
			var k jsonscan.Known
			w.KnownMembers(&k)
			if spec, found, kept := obj.JSONAt(PodSpecSteps(w.SpecPath)...); k.At != nil {
				if !found || !kept || len(spec) == 0 || &spec[0] != k.At {
					t.Errorf("%s: %s/%s: known members not at the pod spec's JSON", f, obj.Kind, obj.Name)
				}
				for _, m := range k.Members {
					var value []byte
					for _, fl := range jsonscan.Fields(spec, nil) {
						if fl.Is(m.Name) {
							value = fl.Value
						}
					}
					if string(spec[m.Span.Start:m.Span.End]) != string(value) || jsonscan.SpanOf(spec, value) != m.Span {
						t.Errorf("%s: %s/%s: %s at %v, not at its value", f, obj.Kind, obj.Name, m.Name, m.Span)
					}
					knowns++
				}
			} else if kept && len(issues) == 0 && found && len(spec) > 0 && spec[0] == '{' {
				t.Errorf("%s: %s/%s: decoded, but no known members", f, obj.Kind, obj.Name)
			}
			views++
		}
	}
	if views < 100 || knowns < 100 {
		t.Errorf("only %d pod specs under testdata, %d known members", views, knowns)
	}
}

// FuzzViewIsDecodedSpec holds the view decoded alone to the whole pod
// spec decoded and cut down to the view, on pod specs of any shape.
func FuzzViewIsDecodedSpec(f *testing.F) {
	for _, s := range []string{
		`{containers: [{name: a, resources: {requests: {cpu: 1m}}}], tolerations: [{key: k, operator: Exists}]}`,
		`{nodeSelector: {a: b}, affinity: {nodeAffinity: {}}, hostNetwork: true, runtimeClassName: r}`,
		`{initContainers: [{name: s, restartPolicy: Always}], overhead: {cpu: 1}, priorityClassName: p}`,
		`{containers: [{name: a, env: [{name: x, value: "1"}], ports: [{containerPort: 80}]}], volumes: [{name: v}]}`,
		`{volumes: [{name: v, emptyDir: {sizeLimit: abc}}], containers: [{name: a, resources: {requests: {cpu: "1"}}}]}`,
		`{"node\u004eame": n, "container\u0073": [{"re\u0073ources": {limits: {cpu: 1e1000}}}], NodeName: m}`,
		`{tolerations: [{key: k, effect: NoExecute, tolerationSeconds: 100000000000000000000}], containers: null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		r := loader.Parse("x.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: "+spec+"\n"))
		for _, obj := range r.Objects {
			p := PodSpecPath(obj)
			if p == nil {
				continue
			}
			w, _ := NewWorkload(obj)
			var full v1.PodSpec
			_ = obj.Decode(p.String(), &full)
			if want := viewOf(&full).spec(); !reflect.DeepEqual(w.Spec, want) {
				t.Errorf("view %+v, want %+v", w.Spec, want)
			}
		}
	})
}

// TestNodeView holds a Node's view (the members rules read, decoded
// from the JSON alone) to the whole Node decoded and cut down to the view
// (nodeViewOf), on every Node of the fixtures and on kubectl-shaped nodes
// with every status member; a Node with a value of the wrong type
// anywhere, unread members included, is decoded whole and keeps its
// issues.
func TestNodeView(t *testing.T) {
	files := fixtureFiles(t)
	type source struct {
		name string
		data []byte
	}
	const full = `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {a: b}, annotations: {x: y}}
spec: {taints: [{key: k, value: v, effect: NoSchedule}], unschedulable: true, podCIDR: 10.0.0.0/24}
status:
  addresses: [{type: InternalIP, address: 10.0.0.1}]
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
  capacity: {cpu: "4", memory: 16Gi}
  conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2024-01-01T00:00:00Z"}]
  daemonEndpoints: {kubeletEndpoint: {Port: 10250}}
  images: [{names: [a, b], sizeBytes: 10}]
  nodeInfo: {architecture: amd64, kubeletVersion: v1.37.0}
  volumesAttached: [{name: v, devicePath: /dev/x}]
  volumesInUse: [v]
  config: {}
  features: {supplementalGroupsPolicy: true}
  runtimeHandlers: [{name: runc}]
  phase: Running
`
	sources := []source{
		{"full", []byte(full)},
		{"bad-image-size", []byte(strings.Replace(full, "sizeBytes: 10", "sizeBytes: ten", 1))},
		{"bad-port", []byte(strings.Replace(full, "Port: 10250", "Port: x", 1))},
		{"no-status", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n")},
		{"null-status", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n3}\nstatus: null\n")},
		{"null-members", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n4}\nstatus: {images: null, nodeInfo: null, allocatable: null, capacity: {cpu: null}}\n")},
		{"escaped-keys", []byte(strings.Replace(strings.Replace(full, "images:", "\"imag\\u0065s\":", 1), "allocatable:", "\"allocat\\u0061ble\":", 1))},
		{"escaped-bad-image", []byte(strings.Replace(strings.Replace(full, "images:", "\"imag\\u0065s\":", 1), "sizeBytes: 10", "sizeBytes: ten", 1))},
		{"escaped-status", []byte(strings.Replace(full, "status:", "\"st\\u0061tus\":", 1))},
		{"capitalised", []byte(strings.Replace(strings.Replace(full, "images:", "Images:", 1), "allocatable:", "Allocatable:", 1))},
		{"bad-quantity", []byte(strings.Replace(full, "pods: \"110\"", "pods: abc", 1))},
		{"huge-quantity", []byte(strings.Replace(full, "pods: \"110\"", "pods: 1e1000", 1))},
		{"null-labels", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n6, labels: {a: null, b: ''}, annotations: {}}\nspec: {taints: null, unschedulable: false}\n")},
		{"escaped-values", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n7, labels: {\"\\u0061\": \"\\u00e9\\t\"}, annotations: {\"scheduler.alpha.kubernetes.io/taints\": \"[{\\\"key\\\": \\\"k\\\"}]\"}}\n")},
		{"null-parts", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n8, labels: null}\nspec: null\nstatus: {allocatable: {}}\n")},
		{"bad-label", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n9, labels: {a: 1}}\n")},
		{"bad-condition", []byte(strings.Replace(full, "lastHeartbeatTime: \"2024-01-01T00:00:00Z\"", "lastHeartbeatTime: yesterday", 1))},
		{"json", []byte(`{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n5"}, "status": {"images": [{"names": ["a"], "sizeBytes": 99999999999999999999}], "allocatable": {"cpu": "2"}}}`)},
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, source{f, data})
	}
	nodes := 0
	for _, src := range sources {
		for _, obj := range loader.Parse(src.name, src.data).Objects {
			if !IsNode(obj) {
				continue
			}
			nodes++
			if diff := nodeViewDiff(obj); diff != "" {
				t.Errorf("%s: %s: %s", src.name, obj.Name, diff)
			}
		}
	}
	if nodes < 20 {
		t.Errorf("only %d Nodes checked", nodes)
	}
	lean := 0
	for _, src := range sources {
		diffs, n := leanNodeDiffs(src.name, src.data)
		for _, d := range diffs {
			t.Error(d)
		}
		lean += n
	}
	if lean < 10 {
		t.Errorf("only %d Nodes read lean", lean)
	}
}

// nodeViewDiff says how NewNode differs from the whole Node decoded and
// cut down to the view, if it does: issues, or the view.
func nodeViewDiff(obj *loader.Object) string {
	got, gotIssues := NewNode(obj)
	var want v1.Node
	err := obj.Decode("", &want)
	var wantIssues []*DecodeIssue
	if err != nil {
		wantIssues = appendIssues(nil, obj, "", err)
	} else {
		want = nodeViewOf(&want)
	}
	want.Name = obj.Name
	if len(gotIssues) != len(wantIssues) {
		return fmt.Sprintf("%d issues, want %d", len(gotIssues), len(wantIssues))
	}
	for i := range gotIssues {
		if gotIssues[i].Path != wantIssues[i].Path || gotIssues[i].Msg != wantIssues[i].Msg {
			return fmt.Sprintf("issue %d %s: %s, want %s: %s", i, gotIssues[i].Path, gotIssues[i].Msg, wantIssues[i].Path, wantIssues[i].Msg)
		}
	}
	if err == nil && !reflect.DeepEqual(got.Node, want) {
		return fmt.Sprintf("view\n%+v\nwant\n%+v", got.Node, want)
	}
	return ""
}

// FuzzNodeView holds a Node's view to the whole Node decoded and cut down
// to the view, on Nodes of any shape (a wrong-typed value anywhere makes
// both a whole decode with the same issues).
func FuzzNodeView(f *testing.F) {
	for _, s := range [][3]string{
		{`{name: n, labels: {a: b, "c/d": ""}, annotations: {x: y}}`, `{taints: [{key: k, value: v, effect: NoSchedule}], unschedulable: true}`, `{allocatable: {cpu: 3920m, pods: "58"}, capacity: {cpu: "4"}}`},
		{`{labels: {a: null, "\u0062": "\u00e9\n"}, annotations: {}, uid: u, creationTimestamp: "2026-10-01T08:00:11Z"}`, `{taints: null, unschedulable: false, providerID: p}`, `{allocatable: {}, conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2024-01-01T00:00:00Z"}]}`},
		{`{labels: {a: 1}}`, `{taints: [{key: k, timeAdded: "2024-01-01T00:00:00Z"}]}`, `{allocatable: {cpu: abc}}`},
		{`null`, `null`, `{"allocat\u0061ble": {cpu: 1}, Allocatable: {cpu: 2}, images: [{sizeBytes: ten}]}`},
		{`{Labels: {a: b}, "l\u0061bels": {c: d}}`, `{Taints: [], "unschedulabl\u0065": true}`, `{allocatable: {cpu: 1e1000}, nodeInfo: {architecture: amd64}}`},
		{`{labels: [a], annotations: "x"}`, `{taints: {}, unschedulable: "yes"}`, `{allocatable: [1], phase: 3}`},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, meta, spec, status string) {
		doc := "apiVersion: v1\nkind: Node\nmetadata: " + meta + "\nspec: " + spec + "\nstatus: " + status + "\n"
		for _, obj := range loader.Parse("n.yaml", []byte(doc)).Objects {
			if !IsNode(obj) {
				continue
			}
			if diff := nodeViewDiff(obj); diff != "" {
				t.Errorf("%q: %s", doc, diff)
			}
		}
		diffs, _ := leanNodeDiffs("n.yaml", []byte(doc))
		for _, d := range diffs {
			t.Error(d)
		}
	})
}

// fixtureFiles lists the YAML files under testdata.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
