package rego

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	yaml "go.yaml.in/yaml/v3"

	"github.com/taintlint/taintlint/internal/k8s"
	"github.com/taintlint/taintlint/internal/placement"
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
)

// objectInput builds the input document of one object:
//
//	{"object": <manifest>, "apiVersion", "kind", "namespace", "name",
//	 "podSpecPath": "spec.template.spec" | null, "podSpec": {...} | null}
//
// podSpec is the very value inside object at podSpecPath, not a copy.
func objectInput(obj *loader.Object, specPath string) (ast.Value, error) {
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
	), nil
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
	objs      []*loader.Object
	workloads map[*loader.Object]*k8s.Workload
	// undecoded are objects with a field of their typed view of the wrong
	// type: their facts would rest on a partly decoded pod spec, so they
	// get none.
	undecoded map[*loader.Object]bool
	inv       *k8s.Inventory
	invTerm   *ast.Term // input.facts.inventory
	static    map[*k8s.NodeGroup][][2]*ast.Term
	groups    *groupTerms
	opts      k8s.FactsOptions

	// parts number the values of facts members (factsEntry.ids).
	partsMu  sync.Mutex
	parts    map[string]uint64
	nextPart uint64

	// facts are input.facts values by k8s.FactsKey: workloads that look
	// the same to the facts (real repositories repeat tolerations and
	// selectors across many) share one value, computed once per run. At
	// most maxFactsCache are kept; the cache starts over when full.
	mu    sync.Mutex
	facts map[string]*factsEntry

	// placeInv places the rare workloads whose tolerations a scheduling
	// rule explains (explained), made on first use.
	placeOnce sync.Once
	placeInv  *placement.Inventory
	placeOpts placement.Options
}

// factsEntry is one memoized input.facts value. Workloads sharing an
// entry share their facts, so its identity stands for them in memo keys.
type factsEntry struct {
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

// maxFactsCache bounds the facts cache of one run: a value holds a verdict
// per node group, so a run of distinct workloads over many groups must not
// keep them all.
const maxFactsCache = 1024

// memoizeFacts is false only in tests that compare memoized facts with
// facts computed for every workload.
var memoizeFacts = true

func newObjects(in *rules.Input) *objects {
	x := &objects{in: in, workloads: make(map[*loader.Object]*k8s.Workload, len(in.Workloads))}
	for _, w := range in.Workloads {
		x.workloads[w.Object] = w
	}
	x.undecoded = make(map[*loader.Object]bool, len(in.DecodeIssues))
	for _, d := range in.DecodeIssues {
		if d.InView {
			x.undecoded[d.Object] = true
		}
	}
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
	x.inv = k8s.NewInventory(in.Nodes)
	x.invTerm = inventoryTerm(x.inv)
	if x.inv != nil {
		x.static = make(map[*k8s.NodeGroup][][2]*ast.Term, len(x.inv.Groups))
		for _, g := range x.inv.Groups {
			x.static[g] = groupStatic(g, g.Nodes)
		}
	}
	x.opts = k8s.FactsOptions{Gates: in.Gates, RuntimeTaintKeys: in.RuntimeTaintKeys, Admission: in.Admission.WithObjects(in.Objects)}
	x.facts = map[string]*factsEntry{}
	x.groups = newGroupTerms()
	x.parts = map[string]uint64{}
	return x
}

// factsFor is the facts entry of obj's input when withFacts (some rule
// reads them), or nil: input.facts is then null, as it is for objects
// that are not workloads or whose pod spec did not decode.
func (x *objects) factsFor(obj *loader.Object, withFacts bool) *factsEntry {
	w := x.workloads[obj]
	if !withFacts || w == nil || x.undecoded[obj] {
		return nil
	}
	return x.factsOf(w)
}

// input is the input document of obj, with input.facts from entry. An
// error means the object cannot be converted (an alias bomb, a non-scalar
// map key): the loader and the parse-error rule report those, and no
// policy could judge them.
func (x *objects) input(obj *loader.Object, entry *factsEntry) (ast.Value, error) {
	v, err := objectInput(obj, x.specPath(obj))
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
	if w := x.workloads[obj]; w != nil {
		return w.SpecPath.String()
	}
	return ""
}

// memo keeps one rule's findings by what the rule reads of the input
// (prepared.reads): real repositories repeat tolerations, selectors and
// pod specs across many workloads, and a rule's findings on one hold for
// every object with the same values where it looks. A rule that reads
// something that differs on every object (a name) stops being memoized
// after a while, so its keys are not built for nothing.
type memo struct {
	mu           sync.Mutex
	found        map[memoKey][]finding
	lookups, hit int
	off          bool
}

type memoKey struct {
	facts *factsEntry // nil unless the rule reads input.facts
	reads string      // the values at the rule's other reads
}

const (
	// maxMemo bounds a rule's memo; a full memo starts over.
	maxMemo = 1 << 14
	// memoTrial is how many lookups a memo gets before it is judged: it
	// is turned off when fewer than one in memoMinHits hit.
	memoTrial   = 2048
	memoMinHits = 8
)

func (m *memo) get(k memoKey) ([]finding, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fs, ok := m.found[k]
	m.lookups++
	if ok {
		m.hit++
	}
	if m.lookups == memoTrial && m.hit*memoMinHits < m.lookups {
		m.off, m.found = true, nil
	}
	return fs, ok
}

func (m *memo) put(k memoKey, fs []finding) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.off {
		return
	}
	if len(m.found) >= maxMemo {
		clear(m.found)
	}
	m.found[k] = fs
}

func (m *memo) enabled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.off
}

// reads are the parts of the input the active rules of one evaluation
// read (prepared.reads), each once: rules share most of them, and an
// object's values are read from its JSON once for all its rules.
type reads struct {
	paths  []readPath
	byRule [][]int // per rule, indexes into paths; nil for a rule without memo
}

// readPath is one input path: the input key, then the JSON path below it.
type readPath struct {
	key  string
	rest []any // string keys and int indexes
}

func newReads(rs []*prepared, memos []*memo) *reads {
	rd := &reads{byRule: make([][]int, len(rs))}
	index := map[string]int{}
	for k, pr := range rs {
		if memos[k] == nil {
			continue
		}
		rd.byRule[k] = []int{}
		for _, r := range pr.reads {
			name := r.String()
			i, ok := index[name]
			if !ok {
				i = len(rd.paths)
				index[name] = i
				p := readPath{key: string(r[1].Value.(ast.String))}
				for _, t := range r[2:] {
					switch v := t.Value.(type) {
					case ast.String:
						p.rest = append(p.rest, string(v))
					case ast.Number:
						n, _ := v.Int()
						p.rest = append(p.rest, n)
					}
				}
				rd.paths = append(rd.paths, p)
			}
			rd.byRule[k] = append(rd.byRule[k], i)
		}
	}
	return rd
}

// objectReads are one object's values at reads' paths, read when first
// needed.
type objectReads struct {
	rd   *reads
	x    *objects
	obj  *loader.Object
	vals []readValue
	// root are the members of the object's JSON, read once for every
	// path into it: a path to an absent member would otherwise pass over
	// the whole object each time.
	root             []loader.JSONField
	rootOK, rootDone bool
	// spec is the pod spec's JSON, read once for every podSpec path, and
	// fields its members.
	spec                        []byte
	fields                      []loader.JSONField
	specFound, specOK, specDone bool
}

// at is the object's JSON at path, as loader.Object.JSONAt, from the
// members of its root read once.
func (o *objectReads) at(path []any) (val []byte, found, ok bool) {
	if len(path) == 0 {
		return o.obj.JSONAt()
	}
	if !o.rootDone {
		o.rootDone = true
		var j []byte
		j, _, o.rootOK = o.obj.JSONAt()
		o.root = loader.JSONFields(j, make([]loader.JSONField, 0, 8))
	}
	if !o.rootOK {
		return nil, false, false
	}
	if name, isKey := path[0].(string); isKey {
		for _, f := range o.root {
			if f.Is(name) {
				return loader.WalkJSON(f.Value, path[1:]...)
			}
		}
	}
	return nil, false, true
}

type readValue struct {
	done, found, ok bool
	val             []byte
}

func (o *objectReads) value(i int) readValue {
	if o.vals == nil {
		o.vals = make([]readValue, len(o.rd.paths))
	}
	v := &o.vals[i]
	if v.done {
		return *v
	}
	v.done, v.ok, v.found = true, true, true
	p := o.rd.paths[i]
	switch p.key {
	case keyKind:
		v.val = []byte(o.obj.Kind)
	case keyAPIVersion:
		v.val = []byte(o.obj.APIVersion)
	case keyName:
		v.val = []byte(o.obj.Name)
	case keyNamespace:
		v.val = []byte(o.obj.Namespace)
	case keyPodSpecPath:
		v.val = []byte(o.x.specPath(o.obj))
	case keyObject:
		v.val, v.found, v.ok = o.at(p.rest)
	case keyPodSpec:
		if !o.specDone {
			o.specDone, o.specOK = true, true
			if w := o.x.workloads[o.obj]; w != nil {
				o.spec, o.specFound, o.specOK = o.at(k8s.PodSpecSteps(w.SpecPath))
				o.fields = loader.JSONFields(o.spec, make([]loader.JSONField, 0, 16))
			}
		}
		if v.ok = o.specOK; !v.ok {
			break
		}
		v.found = o.specFound
		if !v.found || len(p.rest) == 0 {
			v.val = o.spec
			break
		}
		name, isKey := p.rest[0].(string)
		if !isKey || o.spec[0] != '{' {
			v.val, v.found, v.ok = loader.WalkJSON(o.spec, p.rest...)
			break
		}
		v.found = false
		for _, f := range o.fields {
			if f.Is(name) {
				v.val, v.found, v.ok = loader.WalkJSON(f.Value, p.rest[1:]...)
				break
			}
		}
	default: // a key the input does not have: always undefined
		v.found = false
	}
	return *v
}

// memoKey is the key of rule k's findings on the object, with entry its
// facts; ok is false when the values cannot be read without building the
// input (the object keeps no JSON).
func (o *objectReads) memoKey(k int, entry *factsEntry, buf []byte) (memoKey, []byte, bool) {
	var key memoKey
	buf = buf[:0]
	for _, i := range o.rd.byRule[k] {
		if p := o.rd.paths[i]; p.key == keyFacts {
			// A member of the facts: its number (0 when input.facts is
			// null); the whole facts value: the entry itself.
			name, isKey := "", false
			if len(p.rest) > 0 {
				name, isKey = p.rest[0].(string)
			}
			if !isKey {
				key.facts = entry
				continue
			}
			var id uint64
			if m, known := factsMembers[name]; entry != nil && known {
				id = entry.ids[m]
			}
			buf = binary.AppendUvarint(append(buf, 2), id)
			continue
		}
		v := o.value(i)
		if !v.ok {
			return key, buf, false
		}
		if !v.found {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		buf = binary.AppendUvarint(buf, uint64(len(v.val)))
		buf = append(buf, v.val...)
	}
	key.reads = string(buf)
	return key, buf, true
}

// factsOf is input.facts of w, shared with every workload of the run
// whose facts key is the same. Values are never modified once built, so
// concurrent evaluations may read one value.
func (x *objects) factsOf(w *k8s.Workload) *factsEntry {
	pod := k8s.EffectivePod(w, x.in.RuntimeClasses, x.opts.Admission)
	if rule, idx := x.explained(w); len(idx) > 0 {
		// Rare, and resting on what facts keys leave out (requests): never shared.
		f := k8s.PodFacts(w, pod, x.inv, x.opts)
		f.Explain(rule, idx)
		return x.newFactsEntry(factsValue(f, w, x.invTerm, x.static, x.groups))
	}
	if !memoizeFacts {
		v, parts := factsValue(k8s.PodFacts(w, pod, x.inv, x.opts), w, x.invTerm, x.static, nil)
		return x.newFactsEntry(v, parts)
	}
	key := k8s.FactsKey(w, pod)
	x.mu.Lock()
	e := x.facts[key]
	x.mu.Unlock()
	if e != nil {
		return e
	}
	e = x.newFactsEntry(factsValue(k8s.PodFacts(w, pod, x.inv, x.opts), w, x.invTerm, x.static, x.groups))
	x.mu.Lock()
	if prev := x.facts[key]; prev != nil { // another worker was first
		e = prev
	} else {
		if len(x.facts) >= maxFactsCache {
			clear(x.facts)
		}
		x.facts[key] = e
	}
	x.mu.Unlock()
	return e
}

// explained is the scheduling rule of the run that reports w with the fix
// for some of its manifest tolerations, and their indexes
// (placement.ExplainedTolerations): only for a workload with a toleration
// that tolerates no inventory taint, which toleration-unmatched would
// report too. The workload is placed as the scheduling rules place it.
func (x *objects) explained(w *k8s.Workload) (string, []int) {
	if x.inv == nil || !x.ruleSelected("toleration-unmatched") {
		return "", nil
	}
	gate := x.opts.Gates.TaintTolerationComparisonOperators
	unmatched := false
	for i := range w.Spec.Tolerations {
		t := &w.Spec.Tolerations[i]
		if t.Key != "" && !x.inv.Tolerates(t, gate) {
			unmatched = true
			break
		}
	}
	if !unmatched {
		return "", nil
	}
	x.placeOnce.Do(func() {
		x.placeOpts = placement.Options{Gates: x.in.Gates, RuntimeClasses: x.in.RuntimeClasses, Admission: x.opts.Admission, Brief: true}
		x.placeInv = placement.NewInventory(x.in.Nodes, k8s.SelectsOnHostname(x.in.Workloads, x.in.RuntimeClasses, x.opts.Admission))
	})
	rule, idx := x.placeInv.Place(w, x.placeOpts).ExplainedTolerations(x.in.Gates)
	if rule == "" || !x.ruleSelected(rule) {
		return "", nil
	}
	return rule, idx
}

// ruleSelected reports whether the run runs rule id (every rule when the
// driver did not say).
func (x *objects) ruleSelected(id string) bool {
	if x.in.Selected == nil {
		return true
	}
	for _, r := range x.in.Selected {
		if r.ID == id {
			return true
		}
	}
	return false
}

// yamlValue converts a YAML node to an OPA value the way loader.ToJSON
// converts it to JSON for kubectl (YAML 1.1 booleans, merge keys, aliases
// expanded within loader.MaxAliasExpansion nodes), without a JSON round
// trip. TestYAMLValueMatchesToJSON holds the two to the same answers.
func yamlValue(n *yaml.Node) (ast.Value, error) {
	budget := loader.MaxAliasExpansion
	return convert(n, &budget, 0)
}

const maxDepth = 1000

var errBudget = fmt.Errorf("alias expansion exceeds %d nodes", loader.MaxAliasExpansion)

func convert(n *yaml.Node, budget *int, depth int) (ast.Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxDepth)
	}
	*budget--
	if *budget < 0 {
		return nil, errBudget
	}
	if n == nil {
		return ast.Null{}, nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return ast.Null{}, nil
		}
		return convert(n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		return convert(n.Alias, budget, depth+1)
	case yaml.SequenceNode:
		terms := make([]*ast.Term, len(n.Content))
		for i, c := range n.Content {
			v, err := convert(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			terms[i] = ast.NewTerm(v)
		}
		return ast.NewArray(terms...), nil
	case yaml.MappingNode:
		pairs, err := mappingPairs(n, budget, 0)
		if err != nil {
			return nil, err
		}
		obj := ast.NewObjectWithCapacity(len(pairs))
		for _, p := range pairs {
			v, err := convert(p.val, budget, depth+1)
			if err != nil {
				return nil, err
			}
			obj.Insert(ast.StringTerm(p.key), ast.NewTerm(v))
		}
		return obj, nil
	case yaml.ScalarNode:
		return scalar(n), nil
	}
	return ast.Null{}, nil
}

type pair struct {
	key string
	val *yaml.Node
}

// mappingPairs lists a mapping's entries with merge keys applied, as the
// loader does: explicit keys win over merged ones, the last duplicate
// explicit key wins, and among merged sources the first wins.
func mappingPairs(n *yaml.Node, budget *int, depth int) ([]pair, error) {
	if depth > 64 {
		return nil, errors.New("merge keys nested deeper than 64 levels")
	}
	var merged, own []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			src := deref(v)
			if src == nil {
				continue
			}
			srcs := []*yaml.Node{src}
			if src.Kind == yaml.SequenceNode {
				srcs = src.Content
			}
			for _, s := range srcs {
				s = deref(s)
				if s == nil || s.Kind != yaml.MappingNode {
					return nil, fmt.Errorf("line %d: merge key << needs a mapping", k.Line)
				}
				*budget -= len(s.Content)
				if *budget < 0 {
					return nil, errBudget
				}
				ps, err := mappingPairs(s, budget, depth+1)
				if err != nil {
					return nil, err
				}
				merged = append(merged, ps...)
			}
			continue
		}
		key := k.Value
		if kk := deref(k); kk != nil && kk.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a map key must be a scalar", k.Line)
		} else if kk != nil {
			key = kk.Value
		}
		own = append(own, pair{key, v})
	}
	if len(merged) == 0 && !hasDup(own) {
		return own, nil
	}
	seen := make(map[string]int, len(own)+len(merged))
	out := make([]pair, 0, len(own)+len(merged))
	for _, p := range own {
		if i, ok := seen[p.key]; ok {
			out[i] = p
			continue
		}
		seen[p.key] = len(out)
		out = append(out, p)
	}
	for _, p := range merged {
		if _, ok := seen[p.key]; !ok {
			seen[p.key] = len(out)
			out = append(out, p)
		}
	}
	return out, nil
}

// hasDup reports whether two pairs share a key; most mappings are small,
// and a quadratic scan beats building a map for them.
func hasDup(ps []pair) bool {
	if len(ps) < 16 {
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				if ps[i].key == ps[j].key {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(ps))
	for _, p := range ps {
		if _, ok := seen[p.key]; ok {
			return true
		}
		seen[p.key] = struct{}{}
	}
	return false
}

// deref follows aliases and document wrappers.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 64; i++ {
		switch n.Kind {
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return nil
}

// yaml11Bool are the plain scalars YAML 1.1 (and so kubectl) reads as
// booleans.
var yaml11Bool = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"on": true, "On": true, "ON": true, "true": true, "True": true, "TRUE": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"off": false, "Off": false, "OFF": false, "false": false, "False": false, "FALSE": false,
}

// scalar resolves a scalar as kubectl does: quoted and block scalars are
// strings; plain ones follow their YAML tag with YAML 1.1 booleans; a
// number that does not fit (or is not finite) stays a string.
func scalar(n *yaml.Node) ast.Value {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return str(n.Value)
	}
	switch n.ShortTag() {
	case "!!null":
		return ast.Null{}
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return ast.Number(strconv.FormatInt(i, 10))
		}
		if u, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return ast.Number(strconv.FormatUint(u, 10))
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return ast.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case "!!bool":
		if v, ok := yaml11Bool[n.Value]; ok {
			return ast.Boolean(v)
		}
	case "!!str":
		if n.Style == 0 {
			if v, ok := yaml11Bool[n.Value]; ok {
				return ast.Boolean(v)
			}
		}
	}
	return str(n.Value)
}

// str is an OPA string with invalid UTF-8 replaced byte by byte, as
// encoding/json (and so loader.ToJSON) replaces it.
func str(s string) ast.Value {
	if utf8.ValidString(s) {
		return ast.String(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return ast.String(b.String())
}
