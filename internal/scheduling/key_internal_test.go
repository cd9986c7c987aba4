package scheduling

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// jsonKey is what the tables were keyed by before key.go: the value's
// JSON encoding.
func jsonKey(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameMeaning checks that key and the JSON encoding split values alike:
// equal keys exactly where the encodings are equal.
type sameMeaning struct {
	t            *testing.T
	name         string
	byJSON, byKy map[string]string
}

func newSameMeaning(t *testing.T, name string) *sameMeaning {
	return &sameMeaning{t: t, name: name, byJSON: map[string]string{}, byKy: map[string]string{}}
}

func (s *sameMeaning) add(v any, kb []byte) {
	key := string(kb)
	s.t.Helper()
	j := jsonKey(s.t, v)
	if k, ok := s.byJSON[j]; ok && k != key {
		s.t.Fatalf("%s: one JSON encoding, two keys:\n%s\n%q\n%q", s.name, j, k, key)
	}
	if o, ok := s.byKy[key]; ok && o != j {
		s.t.Fatalf("%s: one key, two JSON encodings:\n%q\n%s\n%s", s.name, key, o, j)
	}
	s.byJSON[j], s.byKy[key] = key, j
}

// keyPools are values of the fields of the key structs, with the corners
// JSON writes alike (nil and empty omitempty lists, empty strings) or
// apart (nil and empty maps and plain lists), and strings that look like
// the key form's own punctuation. Strings are valid UTF-8, as every
// string the loader gives is (JSON writes any invalid byte as U+FFFD).
type keyPools struct {
	strs        []string
	tolerations [][]v1.Toleration
	podTols     [][]k8s.Toleration
	selectors   []map[string]string
	affinities  []*v1.Affinity
	names       [][]string
	taints      [][]v1.Taint
}

func newKeyPools() *keyPools {
	secs := func(n int64) *int64 { return &n }
	p := &keyPools{strs: []string{"", "a", "b", "1:", "1:a", "a;", "ab", "n", "[", "0:", "é", "<&>"}}
	p.tolerations = [][]v1.Toleration{nil, {}, {{}}, {{Key: "a"}}, {{Key: "a", Operator: v1.TolerationOpExists}}, {{Key: "1:a"}}, {{Key: "a", Value: "1:"}},
		{{Key: "a", Effect: v1.TaintEffectNoExecute, TolerationSeconds: secs(0)}}, {{Key: "a", Effect: v1.TaintEffectNoExecute, TolerationSeconds: secs(5)}}, {{Key: "a", Effect: v1.TaintEffectNoExecute}},
		{{Key: "a"}, {Key: "b"}}, {{Key: "b"}, {Key: "a"}}, {{Key: "ab"}}, {{Key: "a", Value: "b"}}, {{Key: "a", Operator: "Gt", Value: "3"}}}
	for _, ts := range p.tolerations {
		if ts == nil {
			p.podTols = append(p.podTols, nil)
			continue
		}
		pts := make([]k8s.Toleration, len(ts))
		for i, t := range ts {
			pts[i] = k8s.Toleration{Toleration: t, Source: k8s.FromManifest, Index: i, Replaces: -1}
		}
		p.podTols = append(p.podTols, pts)
		if len(ts) > 0 {
			other := append([]k8s.Toleration(nil), pts...)
			other[0].Source, other[0].Index, other[0].Replaces = k8s.FromDaemonSetController, -1, 0
			p.podTols = append(p.podTols, other)
		}
	}
	p.selectors = []map[string]string{nil, {}, {"a": "b"}, {"a": "b", "c": "d"}, {"a": ""}, {"": "a"}, {"ab": ""}, {"a": "b", "1:": "x"}}
	in := func(vals ...string) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: vals}
	}
	required := func(terms ...v1.NodeSelectorTerm) *v1.Affinity {
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	p.affinities = []*v1.Affinity{nil, {}, {NodeAffinity: &v1.NodeAffinity{}},
		{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{}}},
		required(), required(v1.NodeSelectorTerm{}), required(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{}}),
		required(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{in()}}), required(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{in([]string{}...)}}),
		required(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{in("a")}}), required(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{in("a", "b")}}),
		required(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}),
		required(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{in("a")}}, v1.NodeSelectorTerm{}),
		{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{}}},
		{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1}}}},
		{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 2, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{in("a")}}}}}},
		{PodAffinity: &v1.PodAffinity{}}, {PodAntiAffinity: &v1.PodAntiAffinity{}, NodeAffinity: &v1.NodeAffinity{}},
	}
	p.names = [][]string{nil, {}, {""}, {"a"}, {"a", "b"}, {"ab"}, {"1:a"}}
	when := metav1.NewTime(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	later := metav1.NewTime(when.Add(time.Second))
	p.taints = [][]v1.Taint{nil, {}, {{Key: "a", Effect: v1.TaintEffectNoSchedule}}, {{Key: "a", Value: "b", Effect: v1.TaintEffectNoSchedule}},
		{{Key: "a", Effect: v1.TaintEffectNoSchedule, TimeAdded: &when}}, {{Key: "a", Effect: v1.TaintEffectNoSchedule, TimeAdded: &later}},
		{{Key: "a", Effect: v1.TaintEffectNoSchedule}, {Key: "b", Effect: v1.TaintEffectNoExecute}}}
	return p
}

func pick[T any](r *rand.Rand, vs []T) T { return vs[r.IntN(len(vs))] }

func (p *keyPools) template(r *rand.Rand) *daemonTemplate {
	if r.IntN(3) == 0 {
		return nil
	}
	return &daemonTemplate{NodeName: pick(r, p.strs), Selector: pick(r, p.selectors), Affinity: pick(r, p.affinities), Tolerations: pick(r, p.tolerations), Gate: r.IntN(2) == 0}
}

// TestKeysMeanJSON holds every hand-written key (key.go) to the JSON
// encoding of its struct: on random values drawn from keyPools, and on the
// keys of every workload of the fixtures.
func TestKeysMeanJSON(t *testing.T) {
	p := newKeyPools()
	r := rand.New(rand.NewPCG(1, 2))
	bools := []bool{false, true}
	sched, daemon, facts := newSameMeaning(t, "schedKey"), newSameMeaning(t, "daemonTemplate"), newSameMeaning(t, "factsInput")
	judge, group, nearest := newSameMeaning(t, "groupJudge"), newSameMeaning(t, "groupFactKey"), newSameMeaning(t, "nearestKey")
	for range 20000 {
		s := schedKey{Mode: pick(r, []string{"scheduler", "daemon"}), Gate: pick(r, bools), Tolerations: pick(r, p.tolerations), Selector: pick(r, p.selectors), Affinity: pick(r, p.affinities), SkipAff: pick(r, bools), PerNode: pick(r, bools)}
		sched.add(s, keyOf(&s))
		if d := p.template(r); d != nil {
			daemon.add(d, keyOf(d))
		}
		in := &factsInput{DaemonSet: pick(r, bools), SpecPath: pick(r, p.strs), NodeName: pick(r, p.strs), Rejected: pick(r, p.strs), Tolerations: pick(r, p.podTols), Selector: pick(r, p.selectors), Affinity: pick(r, p.affinities), Requested: pick(r, p.names), Template: p.template(r)}
		facts.add(in, keyOf(in))
		j := &groupJudge{DaemonSet: pick(r, bools), Judge: pick(r, p.tolerations), Tolerations: pick(r, p.tolerations), NodeName: pick(r, p.strs), Rejected: pick(r, bools), Selector: pick(r, p.selectors), Affinity: pick(r, p.affinities), Template: p.template(r), Gate: pick(r, bools)}
		judge.add(j, keyOf(j))
		g := groupFactKey{Group: r.IntN(3), Nodes: pick(r, p.names), GroupVerdict: GroupVerdict{Selected: pick(r, bools), Untolerated: pick(r, p.taints), CordonTolerated: pick(r, bools)}}
		if r.IntN(2) == 0 {
			d := &DaemonPlacement{ShouldRun: pick(r, bools), ShouldContinueRunning: pick(r, bools), Reason: pick(r, []string{"", "taint", "affinity"})}
			if ts := pick(r, p.taints); len(ts) > 0 {
				d.Untolerated = &ts[0]
			}
			g.Daemon = d
		}
		if r.IntN(2) == 0 {
			e := &Eviction{Seconds: int64(r.IntN(3) - 1), Taints: pick(r, p.taints)}
			if r.IntN(3) > 0 {
				e.Tolerations = make([]int, r.IntN(3))
				for i := range e.Tolerations {
					e.Tolerations[i] = r.IntN(12)
				}
			}
			g.Evicted = e
		}
		group.add(struct {
			Group int      `json:"group"`
			Nodes []string `json:"nodes"`
			GroupVerdict
		}{g.Group, g.Nodes, g.GroupVerdict}, keyOf(&g))
		n := nearestKey{pick(r, p.strs), pick(r, p.strs), pick(r, p.strs)}
		nearest.add(n, keyOf(n))
	}

	// The fixtures' workloads, as they are placed.
	res, err := loader.Load(context.Background(), []string{"../../testdata", "../../examples"}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rcs []*k8s.RuntimeClass
	for _, obj := range res.Objects {
		if k8s.IsRuntimeClass(obj) {
			if rc, _ := k8s.NewRuntimeClass(obj); rc != nil {
				rcs = append(rcs, rc)
			}
		}
	}
	n := 0
	for _, obj := range res.Objects {
		if k8s.IsNode(obj) || k8s.IsRuntimeClass(obj) {
			continue
		}
		w, _ := k8s.NewWorkload(obj)
		if w == nil {
			continue
		}
		n++
		for _, gates := range []k8s.FeatureGates{{}, {TaintTolerationComparisonOperators: true}} {
			pod := k8s.EffectivePod(w, rcs, k8s.Admission{})
			in := newFactsInput(w, pod, gates)
			facts.add(in, keyOf(in))
			if in.Template != nil {
				daemon.add(in.Template, keyOf(in.Template))
			}
			ps := newPodSched(pod.V1Tolerations(), pod.NodeSelector, pod.Affinity, nil, gates)
			for _, mode := range []string{"scheduler", "daemon"} {
				s := schedKey{Mode: mode, Gate: ps.gate, Tolerations: ps.tols, Selector: ps.selector, Affinity: ps.affinity, SkipAff: ps.skipAff, PerNode: ps.perNode}
				sched.add(s, keyOf(&s))
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d workloads in the fixtures", n)
	}
	for _, s := range []*sameMeaning{sched, daemon, facts, judge, group, nearest} {
		if len(s.byJSON) < 50 {
			t.Errorf("%s: only %d distinct values", s.name, len(s.byJSON))
		}
	}
}
