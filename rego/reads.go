package rego

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// memo keeps one rule's findings by what the rule reads of the input
// (prepared.reads): real repositories repeat tolerations, selectors and
// pod specs across many workloads, and a rule's findings on one hold for
// every object with the same values where it looks. A rule that reads
// something that differs on every object (a name) stops being memoized
// after a while, so its keys are not built for nothing.
type memo struct {
	mu           sync.Mutex
	found        map[string][]finding // by memoKey
	lookups, hit int
	off          bool
}

const (
	// maxMemo bounds a rule's memo; a full memo starts over.
	maxMemo = 1 << 14
	// memoTrial is how many lookups a memo gets before it is judged: it
	// is turned off when fewer than one in memoMinHits hit.
	memoTrial   = 2048
	memoMinHits = 8
)

func (m *memo) get(k []byte) ([]finding, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fs, ok := m.found[string(k)]
	m.lookups++
	if ok {
		m.hit++
	}
	if m.lookups == memoTrial && m.hit*memoMinHits < m.lookups {
		m.off, m.found = true, nil
	}
	return fs, ok
}

func (m *memo) put(k []byte, fs []finding) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.off {
		return
	}
	if len(m.found) >= maxMemo {
		clear(m.found)
	}
	m.found[string(k)] = fs
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
	rest []any // string keys, int indexes and at most one anyStep
	// index: rest holds an index; above are the other paths that lead
	// to this one (a strict prefix of it).
	index bool
	above []int
	// wild is where rest holds anyStep (each element of the list before
	// it), or -1.
	wild int
}

// anyStep is anyElement in a readPath.
type anyStep struct{}

// prefix is rest up to its anyStep (all of it without one).
func (p readPath) prefix() []any {
	if p.wild >= 0 {
		return p.rest[:p.wild]
	}
	return p.rest
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
				p := readPath{key: string(r[1].Value.(ast.String)), wild: -1}
				for _, t := range r[2:] {
					switch v := t.Value.(type) {
					case ast.String:
						p.rest = append(p.rest, string(v))
					case ast.Number:
						n, _ := v.Int()
						p.rest = append(p.rest, n)
						p.index = true
					case ast.Var: // anyElement
						p.wild = len(p.rest)
						p.rest = append(p.rest, anyStep{})
					}
				}
				rd.paths = append(rd.paths, p)
			}
			rd.byRule[k] = append(rd.byRule[k], i)
		}
	}
	for i := range rd.paths {
		for j := range rd.paths {
			if i != j && rd.paths[j].leadsTo(rd.paths[i]) {
				rd.paths[i].above = append(rd.paths[i].above, j)
			}
		}
	}
	return rd
}

// union marks the paths the rules rs[eval...] read, or is nil when one
// of them keeps no memo (its reads are not known, or shortcuts are off).
func (rd *reads) union(eval []int, memos []*memo) []bool {
	want := make([]bool, len(rd.paths))
	for _, k := range eval {
		if memos[k] == nil {
			return nil
		}
		for _, i := range rd.byRule[k] {
			want[i] = true
		}
	}
	return want
}

// leadsTo reports whether p is a strict prefix of q.
func (p readPath) leadsTo(q readPath) bool {
	if p.key != q.key || len(p.rest) >= len(q.rest) {
		return false
	}
	for i, s := range p.rest {
		if q.rest[i] != s {
			return false
		}
	}
	return true
}

// objectReads are one object's values at reads' paths, read when first
// needed.
type objectReads struct {
	rd   *reads
	x    *objects
	obj  *loader.Object
	w    *k8s.Workload // the entry's workload, or nil
	pl   []byte        // the entry's input.placements (placementsJSON), or nil
	sc   *scratch      // storage reused for vals and the members' lists; nil: none
	vals []readValue
	// root are the members of the object's JSON, read once for every
	// path into it: a path to an absent member would otherwise pass over
	// the whole object each time.
	root             []jsonscan.Field
	rootOK, rootDone bool
	// spec is the pod spec's JSON, read once for every podSpec path, and
	// fields its members.
	spec                        []byte
	fields                      []jsonscan.Field
	specFound, specOK, specDone bool
}

// list reads the members of the object's root and, for a workload, of
// its pod spec, in one pass over its JSON (jsonscan.FieldsAlong): the
// pod spec is most of a workload, and listing the root passes over it.
// A pod spec that is not an object where the path leads is left to podSpec
// to read.
func (o *objectReads) list() {
	if o.rootDone {
		return
	}
	o.rootDone = true
	var j []byte
	if j, _, o.rootOK = o.obj.JSONAt(); !o.rootOK {
		return
	}
	w := o.w
	steps := []any(nil)
	path := []string(nil)
	if w != nil {
		steps = w.SpecSteps()
		path = make([]string, len(steps))
		for i, s := range steps {
			name, ok := s.(string)
			if !ok { // an index: podSpec reads the spec on its own
				w = nil
				break
			}
			path[i] = name
		}
	}
	if w == nil {
		var buf []jsonscan.Field
		if o.sc != nil {
			buf = o.sc.fields[:0]
		}
		o.root = jsonscan.Fields(j, buf)
		if o.sc != nil {
			o.sc.fields = o.root
		}
		return
	}
	var levels [][]jsonscan.Field
	if o.sc != nil {
		levels = jsonscan.FieldsAlongIn(o.sc.levels, j, path, o.sc.known(w))
		o.sc.levels = levels
	} else {
		levels = jsonscan.FieldsAlong(j, path)
	}
	if len(levels) > 0 {
		o.root = levels[0]
	}
	if len(levels) == len(path)+1 { // the pod spec is an object
		for _, f := range levels[len(path)-1] {
			if f.Is(path[len(path)-1]) {
				o.spec, o.specFound, o.specOK, o.specDone = f.Value, true, true, true
				o.fields = levels[len(path)]
				break
			}
		}
	}
}

// at is the object's JSON at path, as loader.Object.JSONAt, from the
// members of its root read once.
func (o *objectReads) at(path []any) (val []byte, found, ok bool) {
	if len(path) == 0 {
		return o.obj.JSONAt()
	}
	o.list()
	if !o.rootOK {
		return nil, false, false
	}
	if name, isKey := path[0].(string); isKey {
		for _, f := range o.root {
			if f.Is(name) {
				return jsonscan.Walk(f.Value, path[1:]...)
			}
		}
	}
	return nil, false, true
}

// readValue is the value at a read path: the JSON val, or for the
// input's string members str (no copy of them is made).
type readValue struct {
	done, found, ok bool
	val             []byte
	str             string
}

func (o *objectReads) value(i int) readValue {
	if o.vals == nil {
		n := len(o.rd.paths)
		if o.sc == nil {
			o.vals = make([]readValue, n)
		} else {
			if cap(o.sc.vals) < n {
				o.sc.vals = make([]readValue, n)
			}
			o.vals = o.sc.vals[:n]
			clear(o.vals)
		}
	}
	v := &o.vals[i]
	if v.done {
		return *v
	}
	v.done, v.ok, v.found = true, true, true
	p := o.rd.paths[i]
	rest := p.prefix() // the value of the list an anyStep is about
	switch p.key {
	case keyKind:
		v.str = o.obj.Kind
	case keyAPIVersion:
		v.str = o.obj.APIVersion
	case keyName:
		v.str = o.obj.Name
	case keyNamespace:
		v.str = o.obj.Namespace
	case keyPodSpecPath:
		v.str = specPathOf(o.w)
	case keyDaemonSet:
		v.val, v.found = []byte("false"), len(rest) == 0 // nothing below a boolean
		if isDaemonSet(o.obj, o.w) {
			v.val = []byte("true")
		}
	case keyObject:
		v.val, v.found, v.ok = o.at(rest)
	case keyPlacements:
		if pl := o.pl; pl != nil {
			v.val, v.found, v.ok = jsonscan.Walk(pl, rest...)
		} else {
			v.val, v.found = []byte("null"), len(rest) == 0 // null, and nothing below it
		}
	case keyPodSpec:
		o.list()
		if !o.specDone {
			o.specDone, o.specOK = true, true
			if w := o.w; w != nil && !w.Merged() { // a merged pod's spec is null, as in objectInput
				o.spec, o.specFound, o.specOK = o.at(w.SpecSteps())
				o.fields = jsonscan.Fields(o.spec, make([]jsonscan.Field, 0, 16))
			}
		}
		if v.ok = o.specOK; !v.ok {
			break
		}
		v.found = o.specFound
		if !v.found || len(rest) == 0 {
			v.val = o.spec
			break
		}
		name, isKey := rest[0].(string)
		if !isKey || o.spec[0] != '{' {
			v.val, v.found, v.ok = jsonscan.Walk(o.spec, rest...)
			break
		}
		v.found = false
		for _, f := range o.fields {
			if f.Is(name) {
				v.val, v.found, v.ok = jsonscan.Walk(f.Value, rest[1:]...)
				break
			}
		}
	default: // a key the input does not have: always undefined
		v.found = false
	}
	return *v
}

// prunedInput is the object's input document (see objectInput) with, of
// object and podSpec, only the values at the paths want marks (indexes into
// rd.paths) and the objects that lead to them, and with input.facts from
// entry: rules whose reads (inputReads) are all among those paths see the
// same values as in the whole document wherever they look, so their deny
// sets are the same, while converting the whole manifest costs more than
// evaluating them. object or podSpec is left out when no path is below it.
// ok is false when the document cannot be built so (a path with an index,
// an object that keeps no JSON): the caller builds the whole one. The
// caller has checked that the object's whole JSON converts
// (jsonConvertible), so that no part is judged where the whole would not be.
func (o *objectReads) prunedInput(want []bool, entry *factsEntry) (ast.Value, bool) {
	var object, spec *part // nil: not read
	for i, p := range o.rd.paths {
		if !want[i] || p.key != keyObject && p.key != keyPodSpec || o.covered(i, want) {
			continue
		}
		if p.index {
			return nil, false
		}
		v := o.value(i)
		if !v.ok {
			return nil, false
		}
		root := &object
		if p.key == keyPodSpec {
			root = &spec
			switch {
			case !o.specFound:
				*root = &part{val: ast.Null{}} // podSpec is null
				continue
			case o.spec[0] != '{':
				// Not an object: the whole value (the rule finds no
				// field in it).
				sv, err := jsonValue(o.spec)
				if err != nil {
					return nil, false
				}
				*root = &part{val: sv}
				continue
			}
		} else if j, _, _ := o.obj.JSONAt(); len(j) == 0 || j[0] != '{' {
			return nil, false
		}
		if *root == nil {
			*root = &part{}
		}
		if !v.found {
			continue
		}
		if p.wild >= 0 {
			if p.wild == 0 || !(*root).putEach(p.rest[:p.wild], p.rest[p.wild+1:], v.val) {
				return nil, false
			}
			continue
		}
		val, err := jsonValue(v.val)
		if err != nil {
			return nil, false
		}
		if len(p.rest) == 0 {
			*root = &part{val: val}
			continue
		}
		if !(*root).put(p.rest, val) {
			return nil, false
		}
	}
	specPath := specPathOf(o.w)
	path := ast.NullTerm()
	if specPath != "" {
		path = ast.StringTerm(specPath)
	}
	facts := ast.NullTerm()
	if entry != nil {
		facts = entry.term
	}
	members := [][2]*ast.Term{
		{ast.StringTerm(keyAPIVersion), ast.StringTerm(o.obj.APIVersion)},
		{ast.StringTerm(keyKind), ast.StringTerm(o.obj.Kind)},
		{ast.StringTerm(keyNamespace), ast.StringTerm(o.obj.Namespace)},
		{ast.StringTerm(keyName), ast.StringTerm(o.obj.Name)},
		{ast.StringTerm(keyPodSpecPath), path},
		{ast.StringTerm(keyFacts), facts},
		{ast.StringTerm(keyPlacements), placementsTerm(o.pl)},
		{ast.StringTerm(keyDaemonSet), ast.BooleanTerm(isDaemonSet(o.obj, o.w))},
	}
	if object != nil {
		members = append(members, [2]*ast.Term{ast.StringTerm(keyObject), object.term()})
	}
	if spec != nil {
		members = append(members, [2]*ast.Term{ast.StringTerm(keyPodSpec), spec.term()})
	}
	return ast.NewObject(members...), true
}

// covered reports whether a path want marks leads to path i: the value
// there is then in the document already.
func (o *objectReads) covered(i int, want []bool) bool {
	for _, j := range o.rd.paths[i].above {
		if want[j] {
			return true
		}
	}
	return false
}

// part is a value of a pruned input document being built: a converted
// value, an object of the members leading to some, or a list whose
// elements hold some (an anyStep path). OPA objects keep a hash of their
// members, so they are made bottom up, once complete.
type part struct {
	val     ast.Value
	names   []string
	members []*part
	list    bool
	elems   []*part
}

// put sets the value at path (object keys, none leading to another put)
// to val; false when a list is in the way.
func (p *part) put(path []any, val ast.Value) bool {
	if p = p.walk(path); p == nil {
		return false
	}
	p.val = val
	return true
}

// walk returns the part at path (object keys), made as objects where
// missing; nil when a list or a whole value is in the way.
func (p *part) walk(path []any) *part {
	for _, step := range path {
		if p.list || p.val != nil {
			return nil
		}
		name := step.(string)
		i := slices.Index(p.names, name)
		if i < 0 {
			i = len(p.names)
			p.names = append(p.names, name)
			p.members = append(p.members, &part{})
		}
		p = p.members[i]
	}
	return p
}

// putEach sets, at path, a list as long as the JSON list data, each of
// whose elements holds the value its element of data has at below
// (object keys), where it has one; elements hold nothing else, since the
// rules read nothing else of them. A value that is not a list is set
// whole. False when the part at path is something else already.
func (p *part) putEach(path, below []any, data []byte) bool {
	if len(data) == 0 || data[0] != '[' {
		val, err := jsonValue(data)
		return err == nil && p.put(path, val)
	}
	at := p.walk(path)
	if at == nil || at.val != nil || len(at.names) > 0 {
		return false
	}
	var buf [16][]byte
	elems := jsonscan.Elems(data, buf[:0])
	if !at.list {
		at.list, at.elems = true, make([]*part, len(elems))
		for k := range at.elems {
			at.elems[k] = &part{}
		}
	}
	if len(at.elems) != len(elems) {
		return false
	}
	for k, e := range elems {
		val, found, _ := jsonscan.Walk(e, below...)
		if !found {
			continue
		}
		v, err := jsonValue(val)
		if err != nil || !at.elems[k].put(below, v) {
			return false
		}
	}
	return true
}

func (p *part) term() *ast.Term {
	if p.val != nil {
		return ast.NewTerm(p.val)
	}
	if p.list {
		elems := make([]*ast.Term, len(p.elems))
		for i, e := range p.elems {
			elems[i] = e.term()
		}
		return ast.ArrayTerm(elems...)
	}
	members := make([][2]*ast.Term, len(p.names))
	for i, name := range p.names {
		members[i] = [2]*ast.Term{ast.StringTerm(name), p.members[i].term()}
	}
	return ast.ObjectTerm(members...)
}

// memoKey appends to buf the key of rule k's findings on the object, with
// entry its facts: the values at the rule's reads, and the entry's number
// when the rule reads the whole facts; ok is false when the values cannot
// be read without building the input (the object keeps no JSON).
func (o *objectReads) memoKey(k int, entry *factsEntry, buf []byte) ([]byte, bool) {
	for _, i := range o.rd.byRule[k] {
		if p := o.rd.paths[i]; p.key == keyFacts {
			// A member of the facts: its number (0 when input.facts is
			// null); the whole facts value: the entry itself.
			name, isKey := "", false
			if len(p.rest) > 0 {
				name, isKey = p.rest[0].(string)
			}
			if !isKey {
				var id uint64 // 0: input.facts is null
				if entry != nil {
					id = entry.id
				}
				buf = binary.AppendUvarint(append(buf, 3), id)
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
			return buf, false
		}
		if !v.found {
			buf = append(buf, 0)
			continue
		}
		if p := o.rd.paths[i]; p.wild >= 0 && len(v.val) > 0 && v.val[0] == '[' {
			// A list: the value below each element (the rule reads
			// nothing else of it), in order.
			var elems [16][]byte
			list := jsonscan.Elems(v.val, elems[:0])
			buf = binary.AppendUvarint(append(buf, 4), uint64(len(list)))
			for _, e := range list {
				val, found, _ := jsonscan.Walk(e, p.rest[p.wild+1:]...)
				if !found {
					buf = append(buf, 0)
					continue
				}
				buf = binary.AppendUvarint(append(buf, 1), uint64(len(val)))
				buf = append(buf, val...)
			}
			continue
		}
		buf = append(buf, 1)
		buf = binary.AppendUvarint(buf, uint64(len(v.val)+len(v.str)))
		buf = append(buf, v.val...)
		buf = append(buf, v.str...)
	}
	return buf, true
}
