package fastyaml

import (
	"strings"
	"sync"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// Lean is loader.Lean, which the loader converts to it: the kind of List
// item read lean, the Schema its values must fit and the members kept.
type Lean struct {
	APIVersion, Kind string
	Schema           *jsonscan.Schema
	Keep             []string
}

// LeanItem is what a lean item keeps of itself: the JSON of the kept
// members (Part), for a caller that names Schema; its whole JSON and
// marks are made from its List, read again, when first asked for (Form).
type LeanItem struct {
	Part   []byte
	Schema *jsonscan.Schema
	group  *leanGroup
}

// Form is the JSON and the marks of the lean item of List index item;
// nil when its group could not be read again (which the tests hold never
// happens: the same bytes, read by the same parser).
func (it *LeanItem) Form(item int) ([]byte, yamltree.Marks) { return it.group.form(item) }

// leanGroup is the run of List items one parser read (a chunk of a long
// List, or a whole List document), which makes the whole JSON of all its
// items the first time one of them needs it.
type leanGroup struct {
	data []byte // the document
	// whole: the document is read whole (parseDoc) and its items are
	// those of its items sequence; else the chunk of entries at column
	// col from start (line line) up to stop (-1: the sequence's end), as
	// readEntries reads it.
	whole                  bool
	col, start, line, stop int
	first                  int // the List index of the group's first item

	once sync.Once
	full [][]byte // per item of the group: its JSON, then its marks
	ends []int    // where the JSON of full[i] ends
}

// form is the JSON and the marks of item, the List index of an object of
// the group; nil when the group could not be read again (which the tests
// hold never happens: the same bytes, read by the same parser).
func (g *leanGroup) form(item int) ([]byte, yamltree.Marks) {
	g.once.Do(g.read)
	i := item - g.first
	if i < 0 || i >= len(g.full) || g.full[i] == nil {
		return nil, nil
	}
	j := g.full[i]
	return j[:g.ends[i]:g.ends[i]], yamltree.Marks(j[g.ends[i]:])
}

// read reads the group's items again and makes the JSON and marks of
// each, as Parser.object makes them.
func (g *leanGroup) read() {
	p := Parser{}
	var seq int32
	if g.whole {
		if !p.parseDoc(g.data) || len(p.nodes) == 0 {
			return
		}
		if seq = p.lookup(0, "items"); seq < 0 || p.nodes[seq].kind != fSeq {
			return
		}
	} else {
		var ok bool
		if seq, _, _, ok = p.readEntries(g.data, g.col, g.start, g.line, g.stop); !ok {
			return
		}
	}
	for it := p.nodes[seq].first; it >= 0; it = p.nodes[it].next {
		var j []byte
		end := 0
		if p.nodes[it].kind == fMap {
			j, end = p.whole(it)
		}
		g.full = append(g.full, j)
		g.ends = append(g.ends, end)
	}
}

// leanFor reports whether an item of apiVersion and kind, node n, is read
// lean: its kind is p.lean's and its every value fits p.lean.Schema.
func (p *Parser) leanFor(apiVersion, kind string, n int32) bool {
	l := p.lean
	if l == nil || p.group == nil || apiVersion != l.APIVersion || kind != l.Kind {
		return false
	}
	if p.fit == nil {
		p.fit = &jsonscan.Scalars{}
	}
	return p.fits(n, l.Schema)
}

// fits reports whether node n's JSON fits s as CheckJSON judges it (no
// value of the wrong type), walking the tree instead of its JSON: each
// scalar's JSON goes to the checker on its own, mappings and sequences
// are followed as the checker follows them. Where the checker would call
// a type's own decoder on a mapping or a sequence, fits says no: the item
// is then read whole and checked as before.
func (p *Parser) fits(n int32, s *jsonscan.Schema) bool {
	nd := &p.nodes[n]
	if s.Shape() == jsonscan.ShapeAny {
		return true
	}
	switch nd.kind {
	case fMap:
		if sh := s.Shape(); sh != jsonscan.ShapeObject && sh != jsonscan.ShapeMap {
			return false
		}
		for k := nd.first; k >= 0; {
			v := p.nodes[k].next
			f := s.Member(string(p.nodes[k].val))
			if f != nil && !p.fits(v, f) {
				return false
			}
			k = p.nodes[v].next
		}
		return true
	case fSeq:
		if s.Shape() != jsonscan.ShapeList {
			return false
		}
		for e := nd.first; e >= 0; e = p.nodes[e].next {
			if !p.fits(e, s.Elem()) {
				return false
			}
		}
		return true
	case fStr:
		if s.Shape() == jsonscan.ShapeString {
			return true // written as a JSON string
		}
	case fPlain:
		if s.Shape() == jsonscan.ShapeString && len(nd.val) > 0 && (!yamltree.ResolveHint(nd.val[0]) || yamltree.DigitString(nd.val) || yamltree.DigitWord(nd.val)) {
			return true // written as a JSON string (writeScalarJSON)
		}
	}
	// The answer for a scalar depends on s, its kind and its text alone:
	// a run's Nodes repeat most of theirs (quantities, times, names).
	memos := p.fitMemo[s]
	if memos == nil {
		if p.fitMemo == nil {
			p.fitMemo = map[*jsonscan.Schema]*[2]map[string]bool{}
		}
		memos = &[2]map[string]bool{make(map[string]bool, 16), make(map[string]bool, 16)}
		p.fitMemo[s] = memos
	}
	memo := memos[nd.kind-fPlain] // fPlain or fStr
	if ok, seen := memo[string(nd.val)]; seen {
		return ok
	}
	p.scratch.Reset()
	p.writeScalarJSON(&p.scratch, nd)
	ok := p.fit.Fits(s, p.scratch.Bytes())
	if len(memo) < maxFitMemo {
		memo[string(nd.val)] = ok
	}
	return ok
}

// maxFitMemo bounds the answers fits keeps for the plain, and for the
// quoted, scalars of a Schema.
const maxFitMemo = 4096

// leanJSON writes the JSON of the members of mapping n that keep names,
// as writeJSON writes them, and returns a copy.
func (p *Parser) leanJSON(n int32, keep []string) []byte {
	b := &p.json
	b.Reset()
	p.noMarks = true
	defer func() { p.noMarks = false }()
	p.leanMembers(n, keep, "")
	// The kept members of a chunk's items share allocations of leanSlab
	// bytes: they live as long as each other, for the run.
	if b.Len() > len(p.slab) {
		p.slab = make([]byte, max(leanSlab, b.Len()))
	}
	out := p.slab[:b.Len():b.Len()]
	p.slab = p.slab[b.Len():]
	copy(out, b.Bytes())
	return out
}

// leanSlab is the size of the allocations kept members are cut from.
const leanSlab = 64 << 10

// leanMembers writes mapping n with the members keep names below
// prefix ("" for the top, "status." for status's members).
func (p *Parser) leanMembers(n int32, keep []string, prefix string) {
	b := &p.json
	b.WriteByte('{')
	prev, first := 0, true
	for k := p.nodes[n].first; k >= 0; {
		v := p.nodes[k].next
		name := string(p.nodes[k].val)
		whole, some := false, false
		for _, kp := range keep {
			rest, ok := strings.CutPrefix(kp, prefix)
			if !ok {
				continue
			}
			switch {
			case rest == name:
				whole = true
			case strings.HasPrefix(rest, name) && len(rest) > len(name) && rest[len(name)] == '.':
				some = true
			}
		}
		if whole || some {
			if !first {
				b.WriteByte(',')
			}
			first = false
			yamltree.WriteStringBytes(b, p.nodes[k].val)
			b.WriteByte(':')
			if !whole && p.nodes[v].kind == fMap {
				p.leanMembers(v, keep, prefix+name+".")
			} else {
				p.writeJSON(v, &prev)
			}
		}
		k = p.nodes[v].next
	}
	b.WriteByte('}')
}
