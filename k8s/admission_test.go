package k8s

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestAdmissionPlugins(t *testing.T) {
	ns := map[string]map[string]string{
		"team": {
			AnnotationNodeSelector:       "env=prod",
			AnnotationDefaultTolerations: `[{"key": "team", "operator": "Exists", "effect": "NoSchedule"}]`,
		},
	}
	tests := []struct {
		name     string
		spec     string
		adm      Admission
		want     []string
		selector map[string]string
		rejected string
	}{
		{
			name: "ExtendedResourceToleration, sorted, once per resource",
			spec: "containers:\n- {name: a, image: a, resources: {limits: {nvidia.com/gpu: 1, example.com/foo: 1}}}\ninitContainers:\n- {name: b, image: b, resources: {requests: {nvidia.com/gpu: 1, cpu: 1}}}\n",
			adm:  Admission{ExtendedResourceToleration: true},
			want: []string{
				"node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds",
				"node.kubernetes.io/unreachable/Exists//NoExecute/300s DefaultTolerationSeconds",
				"example.com/foo/Exists//NoSchedule ExtendedResourceToleration",
				"nvidia.com/gpu/Exists//NoSchedule ExtendedResourceToleration",
			},
		},
		{
			name: "ExtendedResourceToleration keeps an identical toleration",
			spec: "tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\ncontainers:\n- {name: a, image: a, resources: {limits: {nvidia.com/gpu: 1}}}\n",
			adm:  Admission{ExtendedResourceToleration: true},
			want: []string{
				"nvidia.com/gpu/Exists//NoSchedule manifest",
				"node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds",
				"node.kubernetes.io/unreachable/Exists//NoExecute/300s DefaultTolerationSeconds",
			},
		},
		{
			name:     "PodNodeSelector and PodTolerationRestriction from the namespace; memory-pressure for Burstable",
			spec:     "containers:\n- {name: a, image: a, resources: {requests: {cpu: 1}}}\n",
			adm:      Admission{PodNodeSelector: true, PodTolerationRestriction: true, Namespaces: ns},
			selector: map[string]string{"env": "prod"},
			want: []string{
				"node.kubernetes.io/not-ready/Exists//NoExecute/300s DefaultTolerationSeconds",
				"node.kubernetes.io/unreachable/Exists//NoExecute/300s DefaultTolerationSeconds",
				"team/Exists//NoSchedule PodTolerationRestriction",
				"node.kubernetes.io/memory-pressure/Exists//NoSchedule PodTolerationRestriction",
			},
		},
		{
			name:     "PodNodeSelector conflict",
			spec:     "nodeSelector: {env: dev}\ncontainers: [{name: a, image: a}]\n",
			adm:      Admission{PodNodeSelector: true, Namespaces: ns},
			rejected: "PodNodeSelector: pod node label selector conflicts with its namespace node label selector (namespace team's scheduler.alpha.kubernetes.io/node-selector annotation: env=prod)",
		},
		{
			name:     "cluster whitelist",
			spec:     "tolerations: [{operator: Exists}]\ncontainers: [{name: a, image: a}]\n",
			adm:      Admission{PodTolerationRestriction: true, TolerationWhitelist: []v1.Toleration{{Key: "team", Operator: v1.TolerationOpExists}}},
			rejected: `PodTolerationRestriction: pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist (manifest toleration {key: "", operator: "Exists", value: "", effect: ""} is not covered)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := workload(t, "Pod", tt.spec)
			w.Object.Namespace = "team"
			p := EffectivePod(w, nil, tt.adm)
			if p.Rejected != tt.rejected {
				t.Fatalf("rejected %q\nwant     %q", p.Rejected, tt.rejected)
			}
			if tt.rejected != "" {
				return
			}
			if got := describe(p.Tolerations); !slices.Equal(got, tt.want) {
				t.Errorf("tolerations\n%q\nwant\n%q", got, tt.want)
			}
			if tt.selector != nil && !equalMaps(p.NodeSelector, tt.selector) {
				t.Errorf("nodeSelector %v, want %v", p.NodeSelector, tt.selector)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestAddOrUpdateIdentical is AddOrUpdateTolerationInPodSpec's early
// return: an identical toleration anywhere leaves the list as it was, even
// when an earlier one matched and differed.
func TestAddOrUpdateIdentical(t *testing.T) {
	secs := int64(60)
	add := v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}
	tols := []Toleration{
		{Toleration: v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &secs}, Source: FromManifest, Index: 0, Replaces: -1},
		{Toleration: add, Source: FromManifest, Index: 1, Replaces: -1},
	}
	got := addOrUpdateToleration(tols, add, FromDaemonSetController)
	if len(got) != 2 || got[0].TolerationSeconds == nil || got[0].Source != FromManifest {
		t.Errorf("list changed: %q", describe(got))
	}
	got = addOrUpdateToleration(tols[:1], add, FromDaemonSetController)
	if len(got) != 1 || got[0].TolerationSeconds != nil || got[0].Replaces != 0 {
		t.Errorf("not replaced in place: %q", describe(got))
	}
}
