package k8s

import (
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader"
)

// TestViewProbes holds the view to the whole spec decoded and cut down,
// and its issues to the whole decode's error, on invalid quantities in
// read and unread fields, huge numbers, capitalised and escaped keys,
// null for every kept field, containers of the wrong shape, ephemeral
// containers and sidecar init containers.
func TestViewProbes(t *testing.T) {
	odd := []string{
		`{volumes: [{name: v, emptyDir: {sizeLimit: abc}}], containers: [{name: a, resources: {requests: {cpu: "1"}}}]}`,
		`{containers: [{name: a, env: [{name: e, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: abc}}}], resources: {requests: {cpu: "1"}}}], nodeName: n}`,
		`{containers: [{name: a, resources: {requests: {cpu: abc}}}], nodeName: n}`,
		`{containers: [{name: a, resources: {requests: {cpu: 1e1000}}}], nodeName: n}`,
		`{tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 100000000000000000000}], nodeName: n}`,
		`{tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 1.5}], nodeName: n}`,
		`{tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 1e3}], nodeName: n}`,
		`{NodeName: x, Tolerations: [{key: k}], NodeSelector: {a: b}, Containers: [{name: a}]}`,
		`{containers: null, initContainers: null, tolerations: null, nodeSelector: null, affinity: null, nodeName: null, hostNetwork: null, priorityClassName: null, preemptionPolicy: null, runtimeClassName: null, overhead: null, resources: null}`,
		`{containers: {a: b}}`,
		`{containers: [{name: a, restartPolicy: null, resources: {limits: null, requests: {cpu: null}}}]}`,
		`{ephemeralContainers: [{name: e, resources: {requests: {cpu: abc}}}], containers: [{name: a}]}`,
		`{initContainers: [{name: s, restartPolicy: Always, resources: {requests: {cpu: "1", memory: 1Gi}}}], containers: [{name: a, resources: {requests: {cpu: 500m}}}]}`,
		`{"node\u004eame": nx, "toleration\u0073": [{key: k}], "container\u0073": [{"nam\u0065": a, "re\u0073ources": {requests: {cpu: "1"}}}], affinity: {"node\u0041ffinity": {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists}]}]}}}}`,
		`{overhead: {cpu: abc}, containers: [{name: a}]}`,
		`{resources: {requests: {cpu: abc}}, containers: [{name: a}]}`,
		`{affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: k, labelSelector: {matchExpressions: [{key: a, operator: In, values: [x]}]}}]}, nodeAffinity: {}}, containers: [{name: a}]}`,
		`{containers: [{name: a, ports: [{containerPort: 99999999999999999999}]}], nodeName: n}`,
		`{priority: 99999999999999999999, nodeName: n}`,
		`{overhead: {cpu: "1", memory: "0.5"}, nodeName: n}`,
	}
	for i, spec := range odd {
		data := fmt.Appendf(nil, "apiVersion: v1\nkind: Pod\nmetadata: {name: odd%d}\nspec: %s\n", i, spec)
		for _, obj := range loader.Parse("x.yaml", data).Objects {
			p := PodSpecPath(obj)
			if p == nil {
				continue
			}
			w, issues := NewWorkload(obj)
			var full v1.PodSpec
			err := obj.Decode(p.String(), &full)
			if want := viewOf(&full).spec(); !reflect.DeepEqual(w.Spec, want) {
				t.Errorf("%d %s: view %+v\nwant %+v", i, spec, w.Spec, want)
			}
			if (err != nil) != (len(issues) > 0) {
				t.Errorf("%d %s: decode err %v, issues %d", i, spec, err, len(issues))
			}
		}
	}
}

// TestViewDuplicateKeys: the loader's JSON keeps only the last of
// duplicate members (escaped spellings of one name included), so the view
// and the whole decode see one value.
func TestViewDuplicateKeys(t *testing.T) {
	for _, spec := range []string{
		"\n  nodeSelector: {a: b}\n  nodeSelector: {c: d}\n",
		"\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}\n  affinity: {podAffinity: {}}\n",
		"\n  containers: [{name: a, resources: {requests: {cpu: '1'}}}, {name: b}]\n  containers: [{name: c}]\n",
		"\n  containers: [{name: a, resources: {requests: {cpu: '1'}}, resources: {limits: {cpu: '2'}}}]\n",
		"\n  resources: {requests: {cpu: '1'}}\n  resources: {limits: {cpu: '2'}}\n",
		"\n  overhead: {cpu: '1'}\n  overhead: {memory: '2'}\n",
		" {nodeName: a, \"node\\u004eame\": b}\n",
		" {tolerations: [{key: a}], \"toleration\\u0073\": [{key: b}]}\n",
	} {
		r := loader.Parse("x.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:"+spec))
		if len(r.Errors) == 0 {
			t.Errorf("%q: no duplicate-key error", spec)
		}
		for _, obj := range r.Objects {
			p := PodSpecPath(obj)
			if p == nil {
				continue
			}
			w, _ := NewWorkload(obj)
			var full v1.PodSpec
			_ = obj.Decode(p.String(), &full)
			if want := viewOf(&full).spec(); !reflect.DeepEqual(w.Spec, want) {
				t.Errorf("%q: view %+v\nwant %+v", spec, w.Spec, want)
			}
		}
	}
}
