package rego

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

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
)

// objectInput builds the input document of one object:
//
//	{"object": <manifest>, "apiVersion", "kind", "namespace", "name",
//	 "podSpecPath": "spec.template.spec" | null, "podSpec": {...} | null,
//	 "placements": [{"path": "spec.placement.mon", "value": {...}}] | null}
//
// podSpec is the very value inside object at podSpecPath, not a copy;
// placements (placementsJSON) are the object's placement fields outside a
// pod spec, an operator's custom resource's (k8s.Placement).
func objectInput(obj *loader.Object, specPath string, placements []byte) (ast.Value, error) {
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
	if specPath != "" {
		path = ast.StringTerm(specPath)
		if v := lookupDotted(manifest, specPath); v != nil {
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
	), nil
}

// placementsJSON is input.placements of an object's placements: a JSON
// list of {"path", "value"}, or nil for none.
func placementsJSON(pls []k8s.Placement) []byte {
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
		b = append(b, '}')
	}
	return append(b, ']')
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

// lookupDotted follows a path of plain field names (pod spec paths hold no
// indexes or bracketed keys) and returns nil when it leads nowhere.
func lookupDotted(v ast.Value, path string) ast.Value {
	for name := range strings.SplitSeq(path, ".") {
		o, ok := v.(ast.Object)
		if !ok {
			return nil
		}
		t := o.Get(ast.StringTerm(name))
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
	// are not among them.
	objs []*loader.Object
	// workloads are the workloads by object, with what the run knows of
	// each one's scheduling (prereq.Workloads): its shared facts, and the
	// tolerations a scheduling rule explains.
	workloads map[*loader.Object]workload
	// placements are input.placements by object (placementsJSON), for the
	// objects that have some.
	placements map[*loader.Object][]byte
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
	x := &objects{in: in, workloads: make(map[*loader.Object]workload, len(in.Workloads)), runs: runs, memoize: true}
	for i, w := range in.Workloads {
		x.workloads[w.Object] = workload{w, &scheduled[i]}
	}
	byObject := map[*loader.Object][]k8s.Placement{}
	for _, p := range in.Placements {
		byObject[p.Object] = append(byObject[p.Object], p)
	}
	x.placements = make(map[*loader.Object][]byte, len(byObject))
	for obj, pls := range byObject {
		x.placements[obj] = placementsJSON(pls)
	}
	x.undecoded = in.UndecodedPodSpecs()
	x.objs = append(x.objs, in.Objects...)
	seen := make(map[*loader.Object]bool, len(in.Objects))
	for _, o := range in.Objects {
		seen[o] = true
	}
	for _, n := range in.Nodes {
		if !seen[n.Object] {
			seen[n.Object] = true
			x.objs = append(x.objs, n.Object)
		}
	}
	x.opts = placer.Options
	x.inv = placer.Inventory
	x.invDoc = x.inv.InventoryDoc()
	x.invTerm = inventoryTerm(x.invDoc)
	x.facts = map[factsKey]*factsEntry{}
	x.groups = newGroupTerms()
	x.parts = map[string]uint64{}
	return x
}

// factsFor is the facts entry of obj's input, with node groups when
// groups (some rule may read them), or nil: input.facts is null for
// objects that are not workloads or whose pod spec did not decode. The
// caller asks only when some rule reads the facts.
func (x *objects) factsFor(obj *loader.Object, groups bool) *factsEntry {
	w := x.workloads[obj].Workload
	if w == nil || x.undecoded[obj] {
		return nil
	}
	return x.factsOf(w, groups)
}

// workload is a workload and its scheduling.
type workload struct {
	*k8s.Workload
	scheduled *prereq.Workload
}

// input is the input document of obj, with input.facts from entry. An
// error means the object cannot be converted (an alias bomb, a non-scalar
// map key): the loader and the parse-error rule report those, and no
// policy could judge them.
func (x *objects) input(obj *loader.Object, entry *factsEntry) (ast.Value, error) {
	v, err := objectInput(obj, x.specPath(obj), x.placements[obj])
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

func (x *objects) specPath(obj *loader.Object) string {
	if w := x.workloads[obj].Workload; w != nil {
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
	shared := x.workloads[w.Object].scheduled.Facts
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
	return x.workloads[w.Object].scheduled.ExplainedTolerations(x.runs)
}
