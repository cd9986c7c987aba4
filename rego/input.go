package rego

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// Input keys (docs/policies.md). New keys may be added; a policy must not
// depend on a key being absent.
const (
	keyObject      = "object"
	keyAPIVersion  = "apiVersion"
	keyKind        = "kind"
	keyNamespace   = "namespace"
	keyName        = "name"
	keyPodSpecPath = "podSpecPath"
	keyPodSpec     = "podSpec"
	keyPlacements  = "placements"
	keyDaemonSet   = "daemonSet"
)

// objectInput builds the input document of one object:
//
//	{"object": <manifest>, "apiVersion", "kind", "namespace", "name",
//	 "podSpecPath": "spec.template.spec" | null, "podSpec": {...} | null,
//	 "placements": [{"path": "spec.placement.mon", "value": {...}}] | null,
//	 "daemonSet": true | false}
//
// podSpec is the very value inside object at podSpecPath, not a copy;
// placements (placementsJSON) are the object's placement fields outside a
// pod spec, an operator's custom resource's (k8s.Placement); daemonSet
// says whether the DaemonSet controller places the pods (a DaemonSet, or
// an operator's template it makes a DaemonSet of).
func objectInput(obj *loader.Object, w *k8s.Workload, placements []byte) (ast.Value, error) {
	// The loader keeps each object's JSON, not its node tree (parsing the
	// document again would cost more than reading its JSON).
	j, err := obj.JSON()
	if err != nil {
		return nil, err
	}
	manifest, err := jsonValue(j)
	if err != nil {
		return nil, err
	}
	var path, spec *ast.Term = ast.NullTerm(), ast.NullTerm()
	if w != nil {
		path = ast.StringTerm(w.SpecPathString())
		// A merged pod's spec is written nowhere (its placements are
		// input.placements): podSpec is null.
		if v := lookupSteps(manifest, w.SpecSteps()); v != nil && !w.Merged() {
			spec = ast.NewTerm(v)
		}
	}
	return ast.NewObject(
		[2]*ast.Term{ast.StringTerm(keyObject), ast.NewTerm(manifest)},
		[2]*ast.Term{ast.StringTerm(keyAPIVersion), ast.StringTerm(obj.APIVersion)},
		[2]*ast.Term{ast.StringTerm(keyKind), ast.StringTerm(obj.Kind)},
		[2]*ast.Term{ast.StringTerm(keyNamespace), ast.StringTerm(obj.Namespace)},
		[2]*ast.Term{ast.StringTerm(keyName), ast.StringTerm(obj.Name)},
		[2]*ast.Term{ast.StringTerm(keyPodSpecPath), path},
		[2]*ast.Term{ast.StringTerm(keyPodSpec), spec},
		[2]*ast.Term{ast.StringTerm(keyPlacements), placementsTerm(placements)},
		[2]*ast.Term{ast.StringTerm(keyDaemonSet), ast.BooleanTerm(isDaemonSet(obj, w))},
	), nil
}

// isDaemonSet is input.daemonSet.
func isDaemonSet(obj *loader.Object, w *k8s.Workload) bool {
	if w != nil {
		return w.IsDaemonSet()
	}
	return obj.Kind == "DaemonSet"
}

// placementsJSON is input.placements of an object's placements: a JSON
// list of {"path", "value", "facts"}, or nil for none. facts, when not
// nil, says of each decoded toleration what Go decides (tolerationFacts).
func placementsJSON(pls []k8s.Placement, facts func(*v1.Toleration) placementToleration) []byte {
	if len(pls) == 0 {
		return nil
	}
	b := []byte{'['}
	for i, p := range pls {
		if i > 0 {
			b = append(b, ',')
		}
		path, _ := json.Marshal(p.Path.String())
		b = append(append(append(append(b, `{"path":`...), path...), `,"value":`...), p.Value...)
		if facts != nil {
			doc := struct {
				Tolerations []placementToleration `json:"tolerations"`
			}{Tolerations: []placementToleration{}}
			for j := range p.Tolerations {
				doc.Tolerations = append(doc.Tolerations, facts(&p.Tolerations[j]))
			}
			f, _ := json.Marshal(doc)
			b = append(append(b, `,"facts":`...), f...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// placementToleration is input.placements[i].facts.tolerations[j]: what
// Go decides about a custom resource's toleration, as input.facts says it
// of a pod's (docs/policies.md).
type placementToleration struct {
	RuntimeTaint bool `json:"runtimeTaint"`
	// ToleratesInventory: it tolerates a taint of an inventory node;
	// absent without an inventory.
	ToleratesInventory *bool `json:"toleratesInventory,omitempty"`
}

// tolerationFacts are the facts of placements' tolerations in x's run.
func (x *objects) tolerationFacts(t *v1.Toleration) placementToleration {
	f := placementToleration{RuntimeTaint: t.Key != "" && scheduling.IsRuntimeTaintKey(t.Key, x.opts.RuntimeTaintKeys)}
	if x.in.HasInventory() {
		tol := x.inv.Tolerates(t, x.opts.Gates.TaintTolerationComparisonOperators)
		f.ToleratesInventory = &tol
	}
	return f
}

// placementsTerm is input.placements: null without placements, and null
// too should the JSON not convert (the object's JSON converted, and the
// values are parts of it).
func placementsTerm(placements []byte) *ast.Term {
	if placements == nil {
		return ast.NullTerm()
	}
	v, err := jsonValue(placements)
	if err != nil {
		return ast.NullTerm()
	}
	return ast.NewTerm(v)
}

// lookupSteps follows steps (member names, and list indexes in a custom
// kind's pod template paths) and returns nil when they lead nowhere.
func lookupSteps(v ast.Value, steps []any) ast.Value {
	for _, s := range steps {
		var t *ast.Term
		switch s := s.(type) {
		case string:
			o, ok := v.(ast.Object)
			if !ok {
				return nil
			}
			t = o.Get(ast.StringTerm(s))
		case int:
			a, ok := v.(*ast.Array)
			if !ok || s >= a.Len() {
				return nil
			}
			t = a.Elem(s)
		}
		if t == nil {
			return nil
		}
		v = t.Value
	}
	return v
}

// objects are the objects of one rules.Input that Rego rules see, and
// what their input documents share: the inventory, grouped once.
type objects struct {
	in *rules.Input
	// objs are the objects under check, then the inventory's Nodes that
	// are not among them: an entry per object, and for an object with
	// several workloads (a custom kind's pod templates) one per workload,
	// each with its own input document.
	objs []*loader.Object
	// ws are the workloads of the entries of objs (nil: none), and pls
	// their input.placements (placementsJSON), the object's first
	// entry's alone.
	ws  []*k8s.Workload
	pls [][]byte
	// scheduled is what the run knows of each workload's scheduling
	// (prereq.Workloads): its shared facts, and the tolerations a
	// scheduling rule explains.
	scheduled map[*k8s.Workload]*prereq.Workload
	// undecoded are objects with a field of their typed view of the wrong
	// type: their facts would rest on a partly decoded pod spec, so they
	// get none.
	undecoded map[*loader.Object]bool
	// inv is the inventory, nil without one.
	inv     *scheduling.Inventory
	invTerm *ast.Term // input.facts.inventory
	invDoc  *scheduling.InventoryDoc
	groups  *groupTerms
	opts    scheduling.Options

	// parts number the values of facts members (factsEntry.ids).
	partsMu  sync.Mutex
	parts    map[string]uint64
	nextPart uint64
	entries  uint64 // facts entries made (factsEntry.id)

	// facts are input.facts values by the workloads' shared facts
	// (scheduling.SharedFacts, one per facts key): workloads that look
	// the same to the facts (real repositories repeat tolerations and
	// selectors across many) share one value, computed once per run.
	mu    sync.Mutex
	facts map[factsKey]*factsEntry

	// runs says whether the run runs a rule.
	runs func(id string) bool
	// memoize: share facts values between workloads with the same facts
	// key (false only in tests that compare with facts computed for every
	// workload).
	memoize bool
}

// factsEntry is one memoized input.facts value. Workloads sharing an
// entry share their facts, so its identity stands for them in memo keys.
type factsEntry struct {
	// id numbers the run's entries, from 1: memo keys hold it.
	id   uint64
	term *ast.Term
	// ids stand for the values of input.facts' members (factsParts), by
	// factsMember: memo keys hold them for rules that read members only.
	ids [numFactsMembers]uint64
}

// factsMember numbers the members of input.facts that memo keys tell
// apart; inventory is the same value for every workload of a run.
const (
	memberDaemonSet = iota
	memberTolerations
	memberBuiltinTaints
	memberAdmissionRejected
	memberNodeGroups
	memberInventory
	numFactsMembers
)

var factsMembers = map[string]int{
	"daemonSet":         memberDaemonSet,
	"tolerations":       memberTolerations,
	"builtinTaints":     memberBuiltinTaints,
	"admissionRejected": memberAdmissionRejected,
	"nodeGroups":        memberNodeGroups,
	"inventory":         memberInventory,
}

// newFactsEntry is the entry of a facts value and its parts, numbered by x.
func (x *objects) newFactsEntry(v ast.Value, parts factsParts) *factsEntry {
	e := &factsEntry{term: ast.NewTerm(v)}
	e.ids[memberDaemonSet] = 1
	if parts.daemonSet {
		e.ids[memberDaemonSet] = 2
	}
	e.ids[memberInventory] = 1
	x.partsMu.Lock()
	defer x.partsMu.Unlock()
	x.entries++
	e.id = x.entries
	if len(x.parts) >= maxParts {
		clear(x.parts) // numbers go on: a value seen again gets a new one
	}
	for m, p := range map[int]string{memberTolerations: parts.tolerations, memberBuiltinTaints: parts.builtinTaints, memberAdmissionRejected: parts.admissionRejected, memberNodeGroups: parts.groupSeqs} {
		id, ok := x.parts[p]
		if !ok {
			x.nextPart++
			id = x.nextPart
			x.parts[p] = id
		}
		e.ids[m] = id
	}
	return e
}

// maxParts bounds the numbered facts parts of a run.
const maxParts = 1 << 16

// newObjects prepares the input documents of in's objects, with the
// run's scheduling inventory (placer), its workloads' scheduling (scheduled,
// by index of in.Workloads) and rules (runs).
func newObjects(in *rules.Input, placer *prereq.Placer, scheduled []prereq.Workload, runs func(id string) bool) *objects {
	x := &objects{in: in, scheduled: make(map[*k8s.Workload]*prereq.Workload, len(in.Workloads)), runs: runs, memoize: true}
	byObject := make(map[*loader.Object][]*k8s.Workload, len(in.Workloads))
	for i, w := range in.Workloads {
		x.scheduled[w] = &scheduled[i]
		byObject[w.Object] = append(byObject[w.Object], w)
	}
	placements := map[*loader.Object][]k8s.Placement{}
	for _, p := range in.Placements {
		placements[p.Object] = append(placements[p.Object], p)
	}
	x.undecoded = in.UndecodedPodSpecs()
	x.opts, x.inv = placer.Options, placer.Inventory // before the placements' facts
	add := func(o *loader.Object) {
		pl := placementsJSON(placements[o], x.tolerationFacts)
		ws := byObject[o]
		if len(ws) == 0 {
			x.objs, x.ws, x.pls = append(x.objs, o), append(x.ws, nil), append(x.pls, pl)
			return
		}
		for i, w := range ws {
			x.objs, x.ws, x.pls = append(x.objs, o), append(x.ws, w), append(x.pls, pl)
			if i == 0 {
				pl = nil
			}
		}
	}
	seen := make(map[*loader.Object]bool, len(in.Objects))
	for _, o := range in.Objects {
		if !seen[o] {
			seen[o] = true
			add(o)
		}
	}
	for _, n := range in.Nodes {
		if !seen[n.Object] {
			seen[n.Object] = true
			add(n.Object)
		}
	}
	x.invDoc = x.inv.InventoryDoc()
	x.invTerm = inventoryTerm(x.invDoc)
	x.facts = map[factsKey]*factsEntry{}
	x.groups = newGroupTerms()
	x.parts = map[string]uint64{}
	return x
}

// factsFor is the facts entry of entry i's input, with node groups when
// groups (some rule may read them), or nil: input.facts is null for
// objects that are not workloads or whose pod spec did not decode. The
// caller asks only when some rule reads the facts.
func (x *objects) factsFor(i int, groups bool) *factsEntry {
	w := x.ws[i]
	if w == nil || x.undecoded[x.objs[i]] {
		return nil
	}
	return x.factsOf(w, groups)
}

// input is the input document of entry i, with input.facts from entry. An
// error means the object cannot be converted (an alias bomb, a non-scalar
// map key): the loader and the parse-error rule report those, and no
// policy could judge them.
func (x *objects) input(i int, entry *factsEntry) (ast.Value, error) {
	v, err := objectInput(x.objs[i], x.ws[i], x.pls[i])
	if err != nil {
		return nil, err
	}
	facts := ast.NullTerm()
	if entry != nil {
		facts = entry.term
	}
	v.(ast.Object).Insert(ast.StringTerm(keyFacts), facts)
	return v, nil
}

// specPathOf is input.podSpecPath of w's entry: "" without a workload.
func specPathOf(w *k8s.Workload) string {
	if w != nil {
		return w.SpecPathString()
	}
	return ""
}

// factsKey is what a facts entry is shared by: the workloads' shared
// facts (scheduling.SharedFacts.ID), and whether the value holds node
// groups.
type factsKey struct {
	id     int
	groups bool
}

// factsOf is input.facts of w, shared with every workload of the run
// whose facts key is the same. Values are never modified once built, so
// concurrent evaluations may read one value.
func (x *objects) factsOf(w *k8s.Workload, groups bool) *factsEntry {
	shared := x.scheduled[w].Facts
	if rule, idx := x.explained(w); len(idx) > 0 {
		// Rare, and resting on what facts keys leave out (requests): never shared.
		f := *shared.Facts(groups)
		f.Tolerations = slices.Clone(f.Tolerations)
		f.Explain(rule, idx)
		return x.newFactsEntry(factsValue(&f, w, x.invTerm, x.invDoc, x.groups))
	}
	if !x.memoize {
		pod := k8s.EffectivePod(w, x.in.RuntimeClasses, x.opts.Admission)
		v, parts := factsValue(x.inv.PodFacts(w, pod, x.opts, groups), w, x.invTerm, x.invDoc, nil)
		return x.newFactsEntry(v, parts)
	}
	key := factsKey{shared.ID, groups}
	x.mu.Lock()
	e := x.facts[key]
	x.mu.Unlock()
	if e != nil {
		return e
	}
	e = x.newFactsEntry(factsValue(shared.Facts(groups), w, x.invTerm, x.invDoc, x.groups))
	x.mu.Lock()
	if prev := x.facts[key]; prev != nil { // another worker was first
		e = prev
	} else {
		x.facts[key] = e
	}
	x.mu.Unlock()
	return e
}

// explained is the scheduling rule of the run that reports w with the fix
// for some of its manifest tolerations, and their indexes
// (prereq.Workload.ExplainedTolerations, input.facts' explainedBy): only
// for a workload with a toleration that tolerates no inventory taint,
// when toleration-unmatched runs.
func (x *objects) explained(w *k8s.Workload) (string, []int) {
	return x.scheduled[w].ExplainedTolerations(x.runs)
}
