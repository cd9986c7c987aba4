package rego

import (
	"encoding/binary"
	"strconv"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/k8s"
	"github.com/taintlint/taintlint/internal/scheduling"
)

// keyFacts is input.facts (docs/policies.md, "input.facts"), and
// keyNodeGroups its nodeGroups.
const (
	keyFacts      = "facts"
	keyNodeGroups = "nodeGroups"
)

// maxGroupNodes caps the node names listed per node group; count says
// how many there are.
const maxGroupNodes = 20

// factsValue turns one workload's facts into input.facts. inventory is the
// run's shared input.facts.inventory value (null without one).
func factsValue(f *scheduling.Facts, w *k8s.Workload, inventory *ast.Term, static map[*scheduling.Group][][2]*ast.Term, shared *groupTerms) (ast.Value, factsParts) {
	_, noInventory := inventory.Value.(ast.Null)
	tols := make([]*ast.Term, len(f.Tolerations))
	for i, t := range f.Tolerations {
		tols[i] = ast.NewTerm(tolerationFact(&t, !noInventory))
	}
	builtin := make([]*ast.Term, len(f.Builtin))
	for i, b := range f.Builtin {
		tolIdx := ast.NullTerm()
		if b.Toleration >= 0 {
			tolIdx = ast.InternedTerm(b.Toleration)
		}
		builtin[i] = obj(
			"key", ast.StringTerm(b.Key),
			"value", ast.StringTerm(b.Value),
			"effect", ast.StringTerm(string(b.Effect)),
			"tolerated", ast.BooleanTerm(b.Toleration >= 0),
			"toleration", tolIdx,
		)
	}
	groups := ast.NullTerm()
	var parts factsParts
	if f.Groups != nil {
		gs := make([]*ast.Term, len(f.Groups))
		seqs := make([]byte, 0, 8*len(f.Groups))
		for i := range f.Groups {
			var seq uint64
			gs[i], seq = shared.term(&f.Groups[i], static)
			seqs = binary.AppendUvarint(seqs, seq)
		}
		groups = ast.ArrayTerm(gs...)
		parts.groupSeqs = "[" + string(seqs)
	}
	rejected := ast.NullTerm()
	if f.Pod.Rejected != "" {
		rejected = ast.StringTerm(f.Pod.Rejected)
	}
	tolsTerm, builtinTerm := ast.ArrayTerm(tols...), ast.ArrayTerm(builtin...)
	parts.daemonSet = w.IsDaemonSet()
	parts.tolerations, parts.builtinTaints, parts.admissionRejected = tolsTerm.String(), builtinTerm.String(), rejected.String()
	return obj(
		"daemonSet", ast.BooleanTerm(w.IsDaemonSet()),
		"tolerations", tolsTerm,
		"builtinTaints", builtinTerm,
		"admissionRejected", rejected,
		"inventory", inventory,
		"nodeGroups", groups,
	).Value, parts
}

// factsParts stand for the values of input.facts' members, so that a memo
// key can hold what a rule reads of the facts rather than the whole facts
// value: workloads whose facts differ somewhere often agree on the part a
// rule reads. Equal strings are equal values: each is the value as OPA
// prints it, or (nodeGroups) the numbers of its shared entries.
type factsParts struct {
	daemonSet                                     bool
	tolerations, builtinTaints, admissionRejected string
	groupSeqs                                     string // "" when nodeGroups is null
}

func tolerationFact(t *scheduling.TolerationFact, hasInventory bool) ast.Value {
	seconds := ast.NullTerm()
	if t.TolerationSeconds != nil {
		seconds = ast.NewTerm(ast.Number(strconv.FormatInt(*t.TolerationSeconds, 10)))
	}
	index, replaces, path := ast.NullTerm(), ast.NullTerm(), ast.NullTerm()
	if t.Index >= 0 {
		index = ast.InternedTerm(t.Index)
	}
	if t.Replaces >= 0 {
		replaces = ast.InternedTerm(t.Replaces)
	}
	if t.Path != "" {
		path = ast.StringTerm(t.Path)
	}
	tolInv, nearest := ast.NullTerm(), ast.NullTerm()
	if hasInventory {
		tolInv = ast.BooleanTerm(t.ToleratesInventory)
		if t.Nearest != nil {
			nearest = taintTerm(*t.Nearest)
		}
	}
	explained := ast.NullTerm()
	if t.ExplainedBy != "" {
		explained = ast.StringTerm(t.ExplainedBy)
	}
	shadows := make([]*ast.Term, len(t.Shadows))
	for i, j := range t.Shadows {
		shadows[i] = ast.InternedTerm(j)
	}
	return obj(
		"key", ast.StringTerm(t.Key),
		"operator", ast.StringTerm(string(t.Operator)),
		"value", ast.StringTerm(t.Value),
		"effect", ast.StringTerm(string(t.Effect)),
		"tolerationSeconds", seconds,
		"source", ast.StringTerm(string(t.Source)),
		"index", index,
		"replaces", replaces,
		"path", path,
		"runtimeTaint", ast.BooleanTerm(t.RuntimeTaint),
		"requested", ast.BooleanTerm(t.Requested),
		"toleratesInventory", tolInv,
		"nearestTaint", nearest,
		"shadows", ast.ArrayTerm(shadows...),
		"explainedBy", explained,
		"invalid", ast.BooleanTerm(t.Invalid),
	).Value
}

// groupStatic are the fields of a node group fact that do not depend on
// the workload, built once per run and shared by every workload's facts.
func groupStatic(g *scheduling.Group, nodes []*k8s.Node) [][2]*ast.Term {
	names := make([]*ast.Term, 0, min(len(nodes), maxGroupNodes))
	for _, n := range nodes[:min(len(nodes), maxGroupNodes)] {
		names = append(names, ast.StringTerm(n.Object.Name))
	}
	node := &nodes[0].Node
	taints := make([]*ast.Term, len(node.Spec.Taints))
	for i, t := range node.Spec.Taints {
		taints[i] = taintTerm(t)
	}
	return [][2]*ast.Term{
		{keyTerm("nodes"), ast.ArrayTerm(names...)},
		{keyTerm("count"), ast.InternedTerm(len(nodes))},
		{keyTerm("taints"), ast.ArrayTerm(taints...)},
		{keyTerm("unschedulable"), ast.BooleanTerm(node.Spec.Unschedulable)},
	}
}

// groupTerms are the input.facts.nodeGroups entries of one run, shared
// between the workloads whose verdict on a group is the same: a facts value
// holds an entry per node group, and workloads differ on few groups. Terms
// are never modified once built. Safe for concurrent use; nil builds every
// entry anew.
type groupTerms struct {
	mu   sync.Mutex
	m    map[string]groupTerm // by scheduling.GroupFact.Key
	next uint64
}

// groupTerm is a shared entry and its number, unique within the run,
// which stands for its value in the keys of factsParts.
type groupTerm struct {
	t   *ast.Term
	seq uint64
}

func newGroupTerms() *groupTerms { return &groupTerms{m: map[string]groupTerm{}} }

// term is g's entry and its number (0 when gt is nil).
func (gt *groupTerms) term(g *scheduling.GroupFact, static map[*scheduling.Group][][2]*ast.Term) (*ast.Term, uint64) {
	if gt == nil {
		return groupFact(g, static), 0
	}
	k := g.Key()
	gt.mu.Lock()
	e, ok := gt.m[k]
	gt.mu.Unlock()
	if ok {
		return e.t, e.seq
	}
	t := groupFact(g, static)
	gt.mu.Lock()
	defer gt.mu.Unlock()
	if e, ok := gt.m[k]; ok { // another worker was first
		return e.t, e.seq
	}
	gt.next++
	gt.m[k] = groupTerm{t: t, seq: gt.next}
	return t, gt.next
}

func groupFact(g *scheduling.GroupFact, static map[*scheduling.Group][][2]*ast.Term) *ast.Term {
	fixed := static[g.Group]
	if fixed == nil || len(g.Nodes) != len(g.Group.Nodes) {
		fixed = groupStatic(g.Group, g.Nodes)
	}
	untol := make([]*ast.Term, len(g.Untolerated))
	fixes := make([]*ast.Term, len(g.Untolerated))
	for i, t := range g.Untolerated {
		untol[i] = taintTerm(t)
		fix := scheduling.FixToleration(t)
		fixes[i] = obj("key", ast.StringTerm(fix.Key), "operator", ast.StringTerm(string(fix.Operator)), "effect", ast.StringTerm(string(fix.Effect)))
	}
	daemon := ast.NullTerm()
	if d := g.Daemon; d != nil {
		daemon = obj(
			"shouldRun", ast.BooleanTerm(d.ShouldRun),
			"shouldContinueRunning", ast.BooleanTerm(d.ShouldContinueRunning),
			"reason", ast.StringTerm(d.Reason),
		)
	}
	evicted := ast.NullTerm()
	if e := g.Evicted; e != nil {
		used := make([]*ast.Term, len(e.Tolerations))
		for i := range e.Tolerations {
			used[i] = obj("toleration", ast.InternedTerm(e.Tolerations[i]), "taint", taintTerm(e.Taints[i]))
		}
		evicted = obj("seconds", ast.NewTerm(ast.Number(strconv.FormatInt(e.Seconds, 10))), "uses", ast.ArrayTerm(used...))
	}
	pairs := make([][2]*ast.Term, 0, len(fixed)+6)
	pairs = append(pairs, fixed...)
	pairs = append(pairs,
		[2]*ast.Term{keyTerm("selected"), ast.BooleanTerm(g.Selected)},
		[2]*ast.Term{keyTerm("untolerated"), ast.ArrayTerm(untol...)},
		[2]*ast.Term{keyTerm("fixes"), ast.ArrayTerm(fixes...)},
		[2]*ast.Term{keyTerm("cordonTolerated"), ast.BooleanTerm(g.CordonTolerated)},
		[2]*ast.Term{keyTerm("daemonSet"), daemon},
		[2]*ast.Term{keyTerm("eviction"), evicted},
	)
	return ast.ObjectTerm(pairs...)
}

// inventoryTerm is input.facts.inventory, shared by every object of a run.
func inventoryTerm(inv *scheduling.Inventory) *ast.Term {
	if inv == nil {
		return ast.NullTerm()
	}
	taints := make([]*ast.Term, len(inv.Taints))
	for i, t := range inv.Taints {
		taints[i] = obj("key", ast.StringTerm(t.Key), "value", ast.StringTerm(t.Value), "effect", ast.StringTerm(string(t.Effect)), "nodes", ast.InternedTerm(t.Nodes))
	}
	return obj(
		"nodes", ast.InternedTerm(len(inv.Nodes)),
		"groups", ast.InternedTerm(len(inv.Groups)),
		"taints", ast.ArrayTerm(taints...),
	)
}

func taintTerm(t v1.Taint) *ast.Term {
	return obj("key", ast.StringTerm(t.Key), "value", ast.StringTerm(t.Value), "effect", ast.StringTerm(string(t.Effect)))
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

// obj builds an object term from alternating keys and values.
func obj(kv ...any) *ast.Term {
	pairs := make([][2]*ast.Term, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, [2]*ast.Term{keyTerm(kv[i].(string)), kv[i+1].(*ast.Term)})
	}
	return ast.ObjectTerm(pairs...)
}
