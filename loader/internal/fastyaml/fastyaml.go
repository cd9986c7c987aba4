package fastyaml

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// fnode is a node of a fast-path tree, in Parser.nodes.
type fnode struct {
	kind        fkind
	line, col   int32 // 1-based, col in code points: yaml.Node's Line and Column
	first, next int32 // first child, next sibling (-1 for none); a mapping's children are key, value, key, value...
	val         []byte
}

type fkind uint8

const (
	fMap   fkind = iota
	fSeq         // block or flow sequence
	fPlain       // plain scalar: its type resolves as yaml.v3 resolves it
	fStr         // quoted or block scalar: a string whatever it says
)

// maxFastDepth bounds the nesting the fast path follows; deeper documents
// go to yaml.v3.
const maxFastDepth = 100

// Parser reads documents one at a time; its buffers serve every
// document of a run.
type Parser struct {
	src  []byte
	ls   int // start of the current line
	eol  int // end of the current line (its '\n' or the end of src)
	pos  int // first byte of the current line's content
	ind  int // the current line's indentation; -1 past the end
	line int // 1-based number of the current line
	// colLine, colAt, col: the column of byte colAt of the line at colLine.
	colLine, colAt, col int

	nodes []fnode
	depth int
	seen  map[fastKey]struct{} // the keys of the long mappings of the document
	json  bytes.Buffer
	marks []byte
	// strict lets a panic other than errFast through: tests find bugs.
	strict bool
	// list, when set, is a long List's items sequence read elsewhere
	// (fastlist.go): value skips it, and seq stops at a chunk's end.
	list *listLayout
	// lean, when set, are the List items read lean (lean.go); group is
	// the run of items being added, fit, fitMemo and scratch check their
	// values, and noMarks leaves the marks out of writeJSON.
	lean    *Lean
	group   *leanGroup
	fit     *jsonscan.Scalars
	fitMemo map[*jsonscan.Schema]*[2]map[string]bool
	scratch bytes.Buffer
	noMarks bool
	slab    []byte // what is left of the last allocation of kept members
	out     Doc    // what Read returns
}

// NewParser is a parser for documents of about sizeHint bytes (their
// longest), reading lean's List items lean (nil: none). strict lets a
// panic other than the fast path's own stop through, for tests.
func NewParser(lean *Lean, strict bool, sizeHint int) *Parser {
	// About a node for every 10 bytes of a realistic manifest (flow
	// collections are dense), and JSON about as long as its YAML.
	p := &Parser{lean: lean, strict: strict, nodes: make([]fnode, 0, min(sizeHint, 1<<20)/10+16)}
	p.json.Grow(min(sizeHint, 1<<20))
	return p
}

// errFast stops the fast path: the document goes to yaml.v3.
type errFast struct{}

// Parse reads document data into p.nodes, the root at index 0 (none for a
// document of comments only). ok is false when the fast path is not sure
// of the document.
func (p *Parser) Parse(data []byte) (ok bool) {
	if !fastBytes(data) {
		return false
	}
	return p.parseDoc(data)
}

// parseDoc is Parse on data that fastBytes accepts.
func (p *Parser) parseDoc(data []byte) (ok bool) {
	defer p.recoverFast(&ok)
	p.src, p.nodes, p.depth, p.colLine = data, p.nodes[:0], 0, -1
	p.clearSeen()
	p.setLine(0, 1)
	if stream.IsMarker(p.src[p.ls:p.eol], "---") {
		if i := p.skipSpaces(p.ls + 3); i < p.eol && (p.src[i] != '#' || p.src[i-1] != ' ') {
			return false // content on the marker line
		}
		p.setLine(p.eol+1, 2)
	}
	p.skip()
	if p.ind < 0 {
		return true
	}
	if p.seqEntry(p.pos) {
		return false // not a mapping
	}
	p.mapping(p.ind)
	return p.ind < 0
}

// recoverFast, deferred, turns the panic that ends the fast path into
// *ok = false.
func (p *Parser) recoverFast(ok *bool) {
	if r := recover(); r != nil {
		// errFast ends the fast path; any other panic would be a bug
		// in it, and the document still goes to yaml.v3 rather than
		// end the run (the tests, strict, let it through).
		if _, stop := r.(errFast); !stop && p.strict {
			panic(r)
		}
		*ok = false
	}
}

// clearSeen forgets the keys of the last document's long mappings.
func (p *Parser) clearSeen() {
	if len(p.seen) > 4096 {
		p.seen = nil // clear would walk all its buckets for every document after
	} else if len(p.seen) > 0 {
		clear(p.seen)
	}
}

// fastBytes reports whether data holds only characters the fast path
// reads as yaml.v3 does: no tab, no CR, no control character, no byte
// order mark, no NEL or line and paragraph separators (which yaml.v3
// reads as line breaks), valid UTF-8.
func fastBytes(data []byte) bool {
	for i := 0; i < len(data); {
		// Eight bytes at a time while they are all printable ASCII
		// (0x20 to 0x7e): no byte below 0x20, none above 0x7e.
		for i+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[i:])
			if ((w-0x2020202020202020)|(w+0x0101010101010101))&0x8080808080808080 != 0 {
				break
			}
			i += 8
		}
		if i == len(data) {
			break
		}
		c := data[i]
		if c >= 0x20 && c < 0x7f || c == '\n' {
			i++
			continue
		}
		if c < 0x80 {
			return false
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 || r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xfffe && r <= 0xffff {
			return false
		}
		i += n
	}
	return true
}

func (p *Parser) fail() { panic(errFast{}) }

// setLine makes the line starting at ls, numbered line, current.
func (p *Parser) setLine(ls, line int) {
	p.ls, p.line = min(ls, len(p.src)), line
	if e := bytes.IndexByte(p.src[p.ls:], '\n'); e >= 0 {
		p.eol = p.ls + e
	} else {
		p.eol = len(p.src)
	}
}

// skip moves from the current line to the first line, itself included,
// with content: not blank, not only a comment.
func (p *Parser) skip() {
	for {
		if p.ls >= len(p.src) {
			p.ind, p.pos = -1, len(p.src)
			return
		}
		i := p.skipSpaces(p.ls)
		if i < p.eol && p.src[i] != '#' {
			if i == p.ls && p.eol-p.ls >= 3 && (bytes.HasPrefix(p.src[i:], []byte("---")) || bytes.HasPrefix(p.src[i:], []byte("..."))) {
				p.fail() // a document marker yaml.v3 may read otherwise
			}
			if i == p.ls && p.src[i] == '%' {
				p.fail() // a directive
			}
			p.ind, p.pos = i-p.ls, i
			return
		}
		p.setLine(p.eol+1, p.line+1)
	}
}

// nextLine moves to the next line with content.
func (p *Parser) nextLine() {
	p.setLine(p.eol+1, p.line+1)
	p.skip()
}

func (p *Parser) skipSpaces(i int) int {
	for i < p.eol && p.src[i] == ' ' {
		i++
	}
	return i
}

// endLine checks that only white space or a comment follows i on the
// line, and moves to the next line with content.
func (p *Parser) endLine(i int) {
	j := p.skipSpaces(i)
	if j < p.eol && (p.src[j] != '#' || j == i) {
		p.fail()
	}
	p.nextLine()
}

func (p *Parser) node(kind fkind, line, col int) int32 {
	p.nodes = append(p.nodes, fnode{kind: kind, line: int32(line), col: int32(col), first: -1, next: -1})
	return int32(len(p.nodes) - 1)
}

// seqEntry reports whether a block sequence entry ("- " or "-" at the end
// of the line) starts at i.
func (p *Parser) seqEntry(i int) bool {
	return p.src[i] == '-' && (i+1 == p.eol || p.src[i+1] == ' ')
}

func (p *Parser) enter() {
	p.depth++
	if p.depth > maxFastDepth {
		p.fail()
	}
}

// mapping reads the block mapping whose first key is at p.pos, column
// col (0-based), and leaves p at the first line with content after it.
func (p *Parser) mapping(col int) int32 {
	p.enter()
	defer func() { p.depth-- }()
	m := p.node(fMap, p.line, col+1)
	last := int32(-1)
	n := 0
	for {
		k, after, ok := p.key(p.pos)
		if !ok {
			p.fail()
		}
		p.checkKey(m, k, n)
		v := p.value(after, col)
		if last < 0 {
			p.nodes[m].first = k
		} else {
			p.nodes[last].next = k
		}
		p.nodes[k].next, last = v, v
		n++
		if p.ind < col {
			return m
		}
		if p.ind > col {
			p.fail()
		}
		if p.seqEntry(p.pos) {
			return m // the parent decides
		}
	}
}

// checkKey refuses a key given twice (the yaml.v3 path reports it), for
// a mapping m of n keys before k. A mapping of more than 16 keys keeps
// them in p.seen under its own index: mappings nest, and one map shared
// by all of a document's long mappings must not forget an outer
// mapping's keys while an inner one is read.
func (p *Parser) checkKey(m, k int32, n int) {
	kv := p.nodes[k].val
	if n < 16 {
		for c := p.nodes[m].first; c >= 0; c = p.nodes[p.nodes[c].next].next {
			if bytes.Equal(p.nodes[c].val, kv) {
				p.fail()
			}
		}
		return
	}
	if n == 16 {
		if p.seen == nil {
			p.seen = make(map[fastKey]struct{})
		}
		for c := p.nodes[m].first; c >= 0; c = p.nodes[p.nodes[c].next].next {
			p.seen[fastKey{m, string(p.nodes[c].val)}] = struct{}{}
		}
	}
	key := fastKey{m, string(kv)}
	if _, dup := p.seen[key]; dup {
		p.fail()
	}
	p.seen[key] = struct{}{}
}

// fastKey is a key of mapping m (its index in p.nodes) in p.seen.
type fastKey struct {
	m int32
	k string
}

// key reads a block mapping key at i: a plain or quoted scalar on one line
// followed by ": " or ":" at the line's end. It returns the key's node and
// where its value starts; ok is false when no key starts at i.
func (p *Parser) key(i int) (k int32, after int, ok bool) {
	col := i - p.ls + 1 // keys follow only spaces and "- ": ASCII
	switch c := p.src[i]; {
	case c == '"' || c == '\'':
		val, end := p.quoted(i)
		if end < p.eol && p.src[end] == ':' && (end+1 == p.eol || p.src[end+1] == ' ') {
			if end-i > 1000 {
				p.fail() // too long for a simple key
			}
			k = p.node(fStr, p.line, col)
			p.nodes[k].val = val
			return k, end + 1, true
		}
		return 0, 0, false
	case p.plainStart(i):
		for j := i; j < p.eol; j++ {
			switch p.src[j] {
			case ':':
				if j+1 == p.eol || p.src[j+1] == ' ' {
					if p.src[j-1] == ' ' || j-i > 1000 {
						p.fail() // "a : b", or too long for a simple key
					}
					if !yamltree.KeyAsWritten(p.src[i:j]) {
						p.fail() // kubectl reads another key (yamltree.KeyAsWritten)
					}
					k = p.node(fPlain, p.line, col)
					p.plain(k, p.src[i:j])
					return k, j + 1, true
				}
			case '#':
				if p.src[j-1] == ' ' {
					return 0, 0, false
				}
			}
		}
	}
	return 0, 0, false
}

// plainStart reports whether a plain scalar may start at i, as far as the
// fast path reads them.
func (p *Parser) plainStart(i int) bool {
	switch p.src[i] {
	case '-':
		if i+1 == p.eol {
			return false
		}
		switch p.src[i+1] {
		case ' ', ',', '[', ']', '{', '}':
			return false
		}
		return true
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	}
	return true
}

// value reads the value of a block mapping entry at column col, which
// starts at i on the key's line or on the lines after it, and leaves p at
// the first line with content after it.
func (p *Parser) value(i, col int) int32 {
	i = p.skipSpaces(i)
	if i < p.eol && p.src[i] != '#' {
		return p.inline(i, col)
	}
	p.nextLine()
	if p.list != nil && p.ls == p.list.from {
		return p.skipItems()
	}
	switch {
	case p.ind > col:
		if p.seqEntry(p.pos) {
			return p.seq(p.ind)
		}
		return p.mapping(p.ind)
	case p.ind == col && p.seqEntry(p.pos):
		return p.seq(col) // a sequence at its key's indentation
	}
	return p.node(fPlain, 0, 0) // empty: null
}

// seq reads the block sequence whose first "-" is at p.pos, column col.
func (p *Parser) seq(col int) int32 {
	p.enter()
	defer func() { p.depth-- }()
	s := p.node(fSeq, p.line, col+1)
	last := int32(-1)
	for {
		i := p.skipSpaces(p.pos + 1)
		if i == p.eol || p.src[i] == '#' {
			p.fail() // the element is on the next lines, or empty
		}
		c := i - p.ls
		p.pos = i
		var e int32
		if p.seqEntry(i) {
			e = p.seq(c)
		} else if k, _, ok := p.key(i); ok {
			p.nodes = p.nodes[:k] // read again by mapping
			e = p.mapping(c)
		} else {
			e = p.inline(i, col)
		}
		if last < 0 {
			p.nodes[s].first = e
		} else {
			p.nodes[last].next = e
		}
		last = e
		if p.ind < col {
			return s
		}
		if p.ind > col || !p.seqEntry(p.pos) {
			if p.ind > col {
				p.fail()
			}
			return s
		}
		if p.list != nil && p.ls == p.list.stop && col == p.list.col {
			return s // the next entry starts the next chunk (fastlist.go)
		}
	}
}

// inline reads a node that starts at i, inside a block collection at
// column indent: a scalar, a block scalar or a flow collection.
func (p *Parser) inline(i, indent int) int32 {
	switch p.src[i] {
	case '|', '>':
		return p.blockScalar(i, indent)
	case '[', '{':
		n, end := p.flow(i)
		p.endLine(end)
		return n
	case '"', '\'':
		n := p.node(fStr, p.line, p.column(i))
		val, end := p.quoted(i)
		p.nodes[n].val = val
		p.endLine(end)
		return n
	}
	if !p.plainStart(i) {
		p.fail()
	}
	n := p.node(fPlain, p.line, p.column(i))
	end := i
	for j := i; j < p.eol; j++ {
		c := p.src[j]
		if c == ':' && (j+1 == p.eol || p.src[j+1] == ' ') {
			p.fail() // a mapping yaml.v3 refuses here
		}
		if c == '#' && p.src[j-1] == ' ' {
			break
		}
		if c != ' ' {
			end = j + 1
		}
	}
	p.plain(n, p.src[i:end])
	p.nextLine()
	return n
}

// plain sets the value of plain scalar n, refusing "<<" (yaml.v3 tags it
// a merge key wherever it stands, and the loader keeps no JSON for a
// tree with one) and an infinity or NaN (kubectl cannot write it as JSON
// and refuses the document: yamltree.InfOrNaN).
func (p *Parser) plain(n int32, val []byte) {
	if string(val) == "<<" || yamltree.InfOrNaN(val) {
		p.fail()
	}
	p.nodes[n].val = val
}

// column is the 1-based column of byte i of the current line, in code
// points. Counted on from the last column asked for on the line, so that
// a long flow collection costs one pass.
func (p *Parser) column(i int) int {
	if p.colLine != p.ls || p.colAt > i {
		p.colLine, p.colAt, p.col = p.ls, p.ls, 1
	}
	p.col += utf8.RuneCount(p.src[p.colAt:i])
	p.colAt = i
	return p.col
}
