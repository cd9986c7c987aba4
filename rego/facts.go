package rego

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
)

// keyFacts is input.facts (docs/policies.md, "input.facts"), and
// keyNodeGroups its nodeGroups.
const (
	keyFacts      = "facts"
	keyNodeGroups = "nodeGroups"
)

// factsValue turns one workload's facts into input.facts, the OPA value
// of scheduling.FactsDoc. inventory is the run's shared
// input.facts.inventory term and invDoc its document (nil without an
// inventory); node group entries are shared through shared (nil: built
// anew).
func factsValue(f *scheduling.Facts, w *k8s.Workload, inventory *ast.Term, invDoc *scheduling.InventoryDoc, shared *groupTerms) (ast.Value, factsParts) {
	doc := f.Doc(w.IsDaemonSet(), invDoc)
	groups := ast.NullTerm()
	var parts factsParts
	if doc.NodeGroups != nil {
		gs := make([]*ast.Term, len(doc.NodeGroups))
		seqs := make([]byte, 0, 8*len(doc.NodeGroups))
		for i := range doc.NodeGroups {
			var seq uint64
			gs[i], seq = shared.term(&doc.NodeGroups[i])
			seqs = binary.AppendUvarint(seqs, seq)
		}
		groups = ast.ArrayTerm(gs...)
		parts.groupSeqs = "[" + string(seqs)
	}
	tols, rejected := docTerm(doc.Tolerations), docTerm(doc.AdmissionRejected)
	builtin, builtinStr := shared.builtinTerm(f, doc.BuiltinTaints)
	parts.daemonSet = doc.DaemonSet
	parts.tolerations, parts.builtinTaints, parts.admissionRejected = docString(doc.Tolerations), builtinStr, docString(doc.AdmissionRejected)
	return ast.NewObject(
		[2]*ast.Term{keyTerm("daemonSet"), ast.BooleanTerm(doc.DaemonSet)},
		[2]*ast.Term{keyTerm("tolerations"), tols},
		[2]*ast.Term{keyTerm("builtinTaints"), builtin},
		[2]*ast.Term{keyTerm("admissionRejected"), rejected},
		[2]*ast.Term{keyTerm("inventory"), inventory},
		[2]*ast.Term{keyTerm(keyNodeGroups), groups},
	), parts
}

// docString is v, a member of the facts document, as JSON: docTerm makes
// its OPA value from the same fields (every one, by its JSON name), so
// equal strings are equal values. It costs less than OPA printing the
// value.
func docString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("rego: facts document: %v", err)) // a programming error in the document types, never input
	}
	return string(b)
}

// factsParts stand for the values of input.facts' members, so that a memo
// key can hold what a rule reads of the facts rather than the whole facts
// value: workloads whose facts differ somewhere often agree on the part a
// rule reads. Equal strings are equal values: each is the value as JSON
// (docString), or (nodeGroups) the numbers of its shared entries.
type factsParts struct {
	daemonSet                                     bool
	tolerations, builtinTaints, admissionRejected string
	groupSeqs                                     string // "" when nodeGroups is null
}

// groupTerms are the input.facts.nodeGroups entries of one run, shared
// between the workloads whose verdict on a group is the same: a facts value
// holds an entry per node group, and workloads differ on few groups. Terms
// are never modified once built. Safe for concurrent use; nil builds every
// entry anew.
//
// They also hold the run's input.facts.builtinTaints values: the same
// dozen taints, tolerated by the same tolerations in most workloads.
type groupTerms struct {
	mu       sync.Mutex
	m        map[string]groupTerm // by scheduling.GroupFact.Key
	next     uint64
	builtins map[string]builtinTerm // by the index of each taint's toleration
}

// builtinTerm is a shared input.facts.builtinTaints value and its text.
type builtinTerm struct {
	t   *ast.Term
	str string
}

// builtinTerm is input.facts.builtinTaints for the facts f, whose document
// holds it as doc, and the value's text; built anew when gt is nil.
func (gt *groupTerms) builtinTerm(f *scheduling.Facts, doc []scheduling.BuiltinDoc) (*ast.Term, string) {
	if gt == nil {
		t := docTerm(doc)
		return t, t.String()
	}
	// The value rests on which toleration (if any) tolerates each of the
	// fixed built-in taints.
	key := make([]byte, 0, 2*len(f.Builtin))
	for _, b := range f.Builtin {
		key = binary.AppendVarint(key, int64(b.Toleration))
	}
	gt.mu.Lock()
	e, ok := gt.builtins[string(key)]
	gt.mu.Unlock()
	if ok {
		return e.t, e.str
	}
	t := docTerm(doc)
	e = builtinTerm{t: t, str: t.String()}
	gt.mu.Lock()
	defer gt.mu.Unlock()
	if prev, ok := gt.builtins[string(key)]; ok { // another worker was first
		return prev.t, prev.str
	}
	gt.builtins[string(key)] = e
	return e.t, e.str
}

// groupTerm is a shared entry and its number, unique within the run,
// which stands for its value in the keys of factsParts.
type groupTerm struct {
	t   *ast.Term
	seq uint64
}

func newGroupTerms() *groupTerms {
	return &groupTerms{m: map[string]groupTerm{}, builtins: map[string]builtinTerm{}}
}

// term is g's entry and its number (0 when gt is nil).
func (gt *groupTerms) term(g *scheduling.GroupDoc) (*ast.Term, uint64) {
	if gt == nil {
		return docTerm(g), 0
	}
	k := g.Key()
	gt.mu.Lock()
	e, ok := gt.m[k]
	gt.mu.Unlock()
	if ok {
		return e.t, e.seq
	}
	t := docTerm(g)
	gt.mu.Lock()
	defer gt.mu.Unlock()
	if e, ok := gt.m[k]; ok { // another worker was first
		return e.t, e.seq
	}
	gt.next++
	gt.m[k] = groupTerm{t: t, seq: gt.next}
	return t, gt.next
}

// inventoryTerm is input.facts.inventory, shared by every object of a run.
func inventoryTerm(d *scheduling.InventoryDoc) *ast.Term {
	return docTerm(d)
}

// keyTerms are the facts' object keys, made once: every workload's facts
// share them instead of allocating each key again.
var keyTerms = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, k := range []string{"admissionRejected", "builtinTaints", "cordonTolerated", "count", "daemonSet", "effect", "eviction", "explainedBy", "fixes", "groups", "index", "invalid", "inventory", "key", "nearestTaint", "nodeGroups", "nodes", "operator", "path", "reason", "replaces", "runtimeTaint", "seconds", "selected", "shadows", "shouldContinueRunning", "shouldRun", "source", "taint", "taints", "tolerated", "toleratesInventory", "toleration", "tolerationSeconds", "tolerations", "unschedulable", "untolerated", "uses", "value"} {
		m[k] = ast.StringTerm(k)
	}
	return m
}()

func keyTerm(k string) *ast.Term {
	if t := keyTerms[k]; t != nil {
		return t
	}
	return ast.StringTerm(k)
}

// docTerm converts a value of the scheduling package's document types
// to the OPA value its JSON encoding reads as: structs by their JSON tags
// (embedded structs' fields inline), nil pointers and slices null, numbers
// as integers. The types hold only these kinds.
func docTerm(v any) *ast.Term {
	return valueTerm(reflect.ValueOf(v))
}

func valueTerm(v reflect.Value) *ast.Term {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ast.NullTerm()
		}
		return valueTerm(v.Elem())
	case reflect.Bool:
		return ast.BooleanTerm(v.Bool())
	case reflect.String:
		return ast.StringTerm(v.String())
	case reflect.Int, reflect.Int64:
		return ast.IntNumberTerm(int(v.Int()))
	case reflect.Slice:
		if v.IsNil() {
			return ast.NullTerm()
		}
		terms := make([]*ast.Term, v.Len())
		for i := range terms {
			terms[i] = valueTerm(v.Index(i))
		}
		return ast.ArrayTerm(terms...)
	case reflect.Struct:
		return ast.ObjectTerm(fieldPairs(v, nil)...)
	}
	panic(fmt.Sprintf("rego: no OPA value for %s in the facts document", v.Type())) // a programming error in the document types, never input
}

// fieldPairs appends the JSON members of struct v to pairs.
func fieldPairs(v reflect.Value, pairs [][2]*ast.Term) [][2]*ast.Term {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			pairs = fieldPairs(v.Field(i), pairs)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		pairs = append(pairs, [2]*ast.Term{keyTerm(name), valueTerm(v.Field(i))})
	}
	return pairs
}
