package scheduling

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/k8s"
)

// The keys of the run's tables (verdicts, DaemonSet controller, facts
// group verdicts, nearest taints) and of workloads' facts are written by
// hand here: each key struct's writer shows exactly what the struct's
// JSON encoding shows (what the keys were before, by reflection), so two
// values get equal keys if and only if their JSON encodings are equal
// (TestKeysMeanJSON holds every writer to it). A key struct's field that
// the computation reads is therefore in its key, as before: add a field to
// the struct and to its writer together.
//
// The form is compact, not JSON: a string is its length, ':' and its
// bytes; an integer its digits and ';'; a bool 't' or 'f'; a nil pointer,
// slice or map 'n' where JSON writes null. A slice that JSON leaves out
// when empty (omitempty) is its length and its elements, nil or empty
// alike; one JSON writes as null or [] is 'n', or '[' and its length and
// elements. A map is 'n', or '{', its length and its members sorted by key.
// Every value's form ends where a reader knows it ends, so the
// concatenation of a struct's fields is unambiguous.

// keyWriter appends a key to b. Keys are bytes: a table looks a key up
// without making a string of it, and makes one only to keep a new key.
type keyWriter struct{ b []byte }

// keyOf is v's key in a buffer of its own. The lookups made for every
// workload (verdicts, daemonVerdicts, FactsTable.Of) write theirs into a
// buffer sized for most keys, so that writing one allocates once.
func keyOf(v interface{ writeKey(*keyWriter) }) []byte {
	k := &keyWriter{b: make([]byte, 0, 256)}
	v.writeKey(k)
	return k.b
}

// keyBufs lends key buffers to the lookups made for every workload
// (verdicts, daemonVerdicts, FactsTable.Of, classSets.of): a buffer on the
// stack escapes through keyWriter's methods, so each lookup would
// allocate one. Tables keep a string of a key, never its buffer.
type keyBufs struct{ p sync.Pool }

func (kb *keyBufs) get() *keyWriter {
	if k, ok := kb.p.Get().(*keyWriter); ok {
		k.b = k.b[:0]
		return k
	}
	return &keyWriter{b: make([]byte, 0, 1024)}
}

// put returns k, unless a key made it huge.
func (kb *keyBufs) put(k *keyWriter) {
	if cap(k.b) <= 64<<10 {
		kb.p.Put(k)
	}
}

func (k *keyWriter) str(s string) {
	k.b = strconv.AppendInt(k.b, int64(len(s)), 10)
	k.b = append(k.b, ':')
	k.b = append(k.b, s...)
}

func (k *keyWriter) int(v int64) {
	k.b = strconv.AppendInt(k.b, v, 10)
	k.b = append(k.b, ';')
}

func (k *keyWriter) bool(v bool) {
	if v {
		k.b = append(k.b, 't')
	} else {
		k.b = append(k.b, 'f')
	}
}

// null writes 'n' for a nil value, else tag, and reports whether it was nil.
func (k *keyWriter) null(isNil bool, tag byte) bool {
	if isNil {
		k.b = append(k.b, 'n')
	} else {
		k.b = append(k.b, tag)
	}
	return isNil
}

// strings is a []string JSON writes as null or an array.
func (k *keyWriter) strings(ss []string) {
	if k.null(ss == nil, '[') {
		return
	}
	k.int(int64(len(ss)))
	for _, s := range ss {
		k.str(s)
	}
}

// stringMap is a map[string]string JSON writes as null or an object.
func (k *keyWriter) stringMap(m map[string]string) {
	if k.null(m == nil, '{') {
		return
	}
	k.int(int64(len(m)))
	var small [8]string
	keys := small[:0]
	for name := range m {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	for _, name := range keys {
		k.str(name)
		k.str(m[name])
	}
}

// toleration is a v1.Toleration: every field is omitempty, so an empty
// string is as absent.
func (k *keyWriter) toleration(t *v1.Toleration) {
	k.str(t.Key)
	k.str(string(t.Operator))
	k.str(t.Value)
	k.str(string(t.Effect))
	if !k.null(t.TolerationSeconds == nil, 's') {
		k.int(*t.TolerationSeconds)
	}
}

// tolerations is a []v1.Toleration JSON writes as null or an array.
func (k *keyWriter) tolerations(ts []v1.Toleration) {
	if k.null(ts == nil, '[') {
		return
	}
	k.int(int64(len(ts)))
	for i := range ts {
		k.toleration(&ts[i])
	}
}

// podTolerations is a []k8s.Toleration JSON writes as null or an array:
// the embedded toleration's fields, then Source, Index, Path and Replaces.
func (k *keyWriter) podTolerations(ts []k8s.Toleration) {
	if k.null(ts == nil, '[') {
		return
	}
	k.int(int64(len(ts)))
	for i := range ts {
		t := &ts[i]
		k.toleration(&t.Toleration)
		k.str(string(t.Source))
		k.int(int64(t.Index))
		k.str(t.Path)
		k.int(int64(t.Replaces))
	}
}

// taint is a v1.Taint; timeAdded (omitempty) as its JSON, which only a
// Node's own taint can carry.
func (k *keyWriter) taint(t *v1.Taint) {
	k.str(t.Key)
	k.str(t.Value)
	k.str(string(t.Effect))
	if !k.null(t.TimeAdded == nil, 't') {
		j, _ := t.TimeAdded.MarshalJSON()
		k.str(string(j))
	}
}

// taints is a []v1.Taint JSON writes as null or an array.
func (k *keyWriter) taints(ts []v1.Taint) {
	if k.null(ts == nil, '[') {
		return
	}
	k.int(int64(len(ts)))
	for i := range ts {
		k.taint(&ts[i])
	}
}

// affinity is a *v1.Affinity JSON writes as null or an object. Workloads'
// views hold only node affinity; an affinity with pod (anti-)affinity
// (a spec decoded whole) is written as its JSON.
func (k *keyWriter) affinity(a *v1.Affinity) {
	if a == nil {
		k.b = append(k.b, 'n')
		return
	}
	if a.PodAffinity != nil || a.PodAntiAffinity != nil {
		j, _ := json.Marshal(a)
		k.b = append(k.b, 'J')
		k.str(string(j))
		return
	}
	k.b = append(k.b, 'a')
	na := a.NodeAffinity
	if k.null(na == nil, 'N') {
		return
	}
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; !k.null(req == nil, 'R') {
		if !k.null(req.NodeSelectorTerms == nil, '[') {
			k.int(int64(len(req.NodeSelectorTerms)))
			for i := range req.NodeSelectorTerms {
				k.term(&req.NodeSelectorTerms[i])
			}
		}
	}
	pref := na.PreferredDuringSchedulingIgnoredDuringExecution
	k.int(int64(len(pref)))
	for i := range pref {
		k.int(int64(pref[i].Weight))
		k.term(&pref[i].Preference)
	}
}

// term is a v1.NodeSelectorTerm: both lists omitempty.
func (k *keyWriter) term(t *v1.NodeSelectorTerm) {
	for _, rs := range [2][]v1.NodeSelectorRequirement{t.MatchExpressions, t.MatchFields} {
		k.int(int64(len(rs)))
		for i := range rs {
			r := &rs[i]
			k.str(r.Key)
			k.str(string(r.Operator))
			k.int(int64(len(r.Values)))
			for _, v := range r.Values {
				k.str(v)
			}
		}
	}
}

// template is a *daemonTemplate JSON writes as null or an object.
func (k *keyWriter) template(d *daemonTemplate) {
	if k.null(d == nil, 'T') {
		return
	}
	k.str(d.NodeName)
	k.stringMap(d.Selector)
	k.affinity(d.Affinity)
	k.tolerations(d.Tolerations)
	k.bool(d.Gate)
}

func (s *schedKey) writeKey(k *keyWriter) {
	k.str(s.Mode)
	k.bool(s.Gate)
	k.tolerations(s.Tolerations)
	k.stringMap(s.Selector)
	k.affinity(s.Affinity)
	k.bool(s.SkipAff)
	k.bool(s.PerNode)
}

func (d *daemonTemplate) writeKey(k *keyWriter) {
	k.template(d)
}

func (in *factsInput) writeKey(k *keyWriter) {
	k.bool(in.DaemonSet)
	k.str(in.SpecPath)
	k.str(in.NodeName)
	k.str(in.Rejected)
	k.podTolerations(in.Tolerations)
	k.stringMap(in.Selector)
	k.affinity(in.Affinity)
	k.strings(in.Requested)
	k.template(in.Template)
}

func (j *groupJudge) writeKey(k *keyWriter) {
	k.bool(j.DaemonSet)
	k.tolerations(j.Judge)
	k.tolerations(j.Tolerations)
	k.str(j.NodeName)
	k.bool(j.Rejected)
	k.stringMap(j.Selector)
	k.affinity(j.Affinity)
	k.template(j.Template)
	k.bool(j.Gate)
}

func (n nearestKey) writeKey(k *keyWriter) {
	for _, s := range n {
		k.str(s)
	}
}

// groupFactKey is what GroupFact.Key stands for: the group, the names of
// its nodes the fact is for (nil for all of them), and the verdict.
type groupFactKey struct {
	Group int      `json:"group"`
	Nodes []string `json:"nodes"`
	GroupVerdict
}

func (g *groupFactKey) writeKey(k *keyWriter) {
	k.int(int64(g.Group))
	k.strings(g.Nodes)
	k.bool(g.Selected)
	k.taints(g.Untolerated)
	k.bool(g.CordonTolerated)
	if d := g.Daemon; !k.null(d == nil, 'D') {
		k.bool(d.ShouldRun)
		k.bool(d.ShouldContinueRunning)
		k.str(d.Reason)
		if !k.null(d.Untolerated == nil, 'U') {
			k.taint(d.Untolerated)
		}
	}
	if e := g.Evicted; !k.null(e == nil, 'E') {
		k.int(e.Seconds)
		if !k.null(e.Tolerations == nil, '[') {
			k.int(int64(len(e.Tolerations)))
			for _, i := range e.Tolerations {
				k.int(int64(i))
			}
		}
		k.taints(e.Taints)
	}
}
