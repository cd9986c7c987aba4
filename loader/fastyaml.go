package loader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// The fast path reads the YAML that manifests are written in (block
// mappings and sequences, plain and quoted scalars on one line, literal and
// folded block scalars, flow collections on one line, comments) straight
// into a small tree of its own, and from it the Objects addDocument would
// make: yaml.v3 builds tokens, events and a node per scalar first, which
// cost the bulk of a run. It gives up on anything it is not sure of
// (anchors, tags, multi-line flow or plain scalars, tabs, CR line ends,
// duplicate keys, a document that is not a mapping, anything yaml.v3 would
// reject), and such a document is parsed by yaml.v3 as before: the fast
// path decides only how fast a document is read, never what it says.
// FuzzFastYAML holds the two paths to the same results.

// fnode is a node of a fast-path tree, in fastParser.nodes.
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

// fastParser reads documents one at a time; its buffers serve every
// document of a run.
type fastParser struct {
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
	fit     *checker
	fitMemo map[*Schema]*[2]map[string]bool
	scratch bytes.Buffer
	noMarks bool
	slab    []byte // what is left of the last allocation of kept members
}

// errFast stops the fast path: the document goes to yaml.v3.
type errFast struct{}

// parse reads document data into p.nodes, the root at index 0 (none for a
// document of comments only). ok is false when the fast path is not sure
// of the document.
func (p *fastParser) parse(data []byte) (ok bool) {
	if !fastBytes(data) {
		return false
	}
	return p.parseDoc(data)
}

// parseDoc is parse on data that fastBytes accepts.
func (p *fastParser) parseDoc(data []byte) (ok bool) {
	defer p.recoverFast(&ok)
	p.src, p.nodes, p.depth, p.colLine = data, p.nodes[:0], 0, -1
	p.clearSeen()
	p.setLine(0, 1)
	if isMarker(p.src[p.ls:p.eol], "---") {
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
func (p *fastParser) recoverFast(ok *bool) {
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
func (p *fastParser) clearSeen() {
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

func (p *fastParser) fail() { panic(errFast{}) }

// setLine makes the line starting at ls, numbered line, current.
func (p *fastParser) setLine(ls, line int) {
	p.ls, p.line = min(ls, len(p.src)), line
	if e := bytes.IndexByte(p.src[p.ls:], '\n'); e >= 0 {
		p.eol = p.ls + e
	} else {
		p.eol = len(p.src)
	}
}

// skip moves from the current line to the first line, itself included,
// with content: not blank, not only a comment.
func (p *fastParser) skip() {
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
func (p *fastParser) nextLine() {
	p.setLine(p.eol+1, p.line+1)
	p.skip()
}

func (p *fastParser) skipSpaces(i int) int {
	for i < p.eol && p.src[i] == ' ' {
		i++
	}
	return i
}

// endLine checks that only white space or a comment follows i on the
// line, and moves to the next line with content.
func (p *fastParser) endLine(i int) {
	j := p.skipSpaces(i)
	if j < p.eol && (p.src[j] != '#' || j == i) {
		p.fail()
	}
	p.nextLine()
}

func (p *fastParser) node(kind fkind, line, col int) int32 {
	p.nodes = append(p.nodes, fnode{kind: kind, line: int32(line), col: int32(col), first: -1, next: -1})
	return int32(len(p.nodes) - 1)
}

// seqEntry reports whether a block sequence entry ("- " or "-" at the end
// of the line) starts at i.
func (p *fastParser) seqEntry(i int) bool {
	return p.src[i] == '-' && (i+1 == p.eol || p.src[i+1] == ' ')
}

func (p *fastParser) enter() {
	p.depth++
	if p.depth > maxFastDepth {
		p.fail()
	}
}

// mapping reads the block mapping whose first key is at p.pos, column
// col (0-based), and leaves p at the first line with content after it.
func (p *fastParser) mapping(col int) int32 {
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
func (p *fastParser) checkKey(m, k int32, n int) {
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
func (p *fastParser) key(i int) (k int32, after int, ok bool) {
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
func (p *fastParser) plainStart(i int) bool {
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
func (p *fastParser) value(i, col int) int32 {
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
func (p *fastParser) seq(col int) int32 {
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
func (p *fastParser) inline(i, indent int) int32 {
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

// plain sets the value of plain scalar n, refusing "<<": yaml.v3 tags it
// a merge key wherever it stands, and the loader keeps no JSON for a
// tree with one.
func (p *fastParser) plain(n int32, val []byte) {
	if string(val) == "<<" {
		p.fail()
	}
	p.nodes[n].val = val
}

// column is the 1-based column of byte i of the current line, in code
// points. Counted on from the last column asked for on the line, so that
// a long flow collection costs one pass.
func (p *fastParser) column(i int) int {
	if p.colLine != p.ls || p.colAt > i {
		p.colLine, p.colAt, p.col = p.ls, p.ls, 1
	}
	p.col += utf8.RuneCount(p.src[p.colAt:i])
	p.colAt = i
	return p.col
}

// quoted reads the single-line quoted scalar at i and returns its value
// and the end of its closing quote; escapes are those of yaml.v3.
func (p *fastParser) quoted(i int) (val []byte, end int) {
	q := p.src[i]
	start := i + 1
	var out []byte // nil while the value is the source's bytes
	for j := start; j < p.eol; j++ {
		c := p.src[j]
		switch {
		case c == '\'' && q == '\'':
			if j+1 < p.eol && p.src[j+1] == '\'' {
				if out == nil {
					out = append([]byte(nil), p.src[start:j]...)
				}
				out = append(out, '\'')
				j++
				continue
			}
			if out == nil {
				return p.src[start:j], j + 1
			}
			return out, j + 1
		case c == '"' && q == '"':
			if out == nil {
				return p.src[start:j], j + 1
			}
			return out, j + 1
		case c == '\\' && q == '"':
			if out == nil {
				out = append([]byte(nil), p.src[start:j]...)
			}
			if j+1 == p.eol {
				p.fail() // an escaped line break
			}
			j++
			code := 0
			switch p.src[j] {
			case '0':
				out = append(out, 0)
			case 'a':
				out = append(out, '\x07')
			case 'b':
				out = append(out, '\x08')
			case 't':
				out = append(out, '\x09')
			case 'n':
				out = append(out, '\x0A')
			case 'v':
				out = append(out, '\x0B')
			case 'f':
				out = append(out, '\x0C')
			case 'r':
				out = append(out, '\x0D')
			case 'e':
				out = append(out, '\x1B')
			case ' ':
				out = append(out, ' ')
			case '"':
				out = append(out, '"')
			case '\'':
				out = append(out, '\'')
			case '\\':
				out = append(out, '\\')
			case 'N':
				out = append(out, "\u0085"...)
			case '_':
				out = append(out, "\u00a0"...)
			case 'L':
				out = append(out, "\u2028"...)
			case 'P':
				out = append(out, "\u2029"...)
			case 'x':
				code = 2
			case 'u':
				code = 4
			case 'U':
				code = 8
			default:
				p.fail() // yaml.v3 refuses it
			}
			if code > 0 {
				if j+code >= p.eol {
					p.fail()
				}
				v := 0
				for _, h := range p.src[j+1 : j+1+code] {
					switch {
					case h >= '0' && h <= '9':
						v = v<<4 + int(h-'0')
					case h >= 'a' && h <= 'f':
						v = v<<4 + int(h-'a') + 10
					case h >= 'A' && h <= 'F':
						v = v<<4 + int(h-'A') + 10
					default:
						p.fail()
					}
				}
				if v >= 0xd800 && v <= 0xdfff || v > 0x10ffff {
					p.fail()
				}
				out = utf8.AppendRune(out, rune(v))
				j += code
			}
		default:
			if out != nil {
				out = append(out, c)
			}
		}
	}
	p.fail() // no closing quote on the line
	return nil, 0
}

// flow reads the flow collection at i, all on its line, and returns its
// node and its end.
func (p *fastParser) flow(i int) (int32, int) {
	p.enter()
	defer func() { p.depth-- }()
	open := p.src[i]
	kind, close := fSeq, byte(']')
	if open == '{' {
		kind, close = fMap, '}'
	}
	n := p.node(kind, p.line, p.column(i))
	last := int32(-1)
	link := func(c int32) {
		if last < 0 {
			p.nodes[n].first = c
		} else {
			p.nodes[last].next = c
		}
		last = c
	}
	j := p.skipSpaces(i + 1)
	if j < p.eol && p.src[j] == close {
		return n, j + 1
	}
	for count := 0; ; count++ {
		if j == p.eol {
			p.fail()
		}
		if kind == fMap {
			k, end := p.flowScalar(j, true)
			if end-j > 1000 {
				p.fail() // too long for a simple key
			}
			if end == p.eol || p.src[end] != ':' || end+1 == p.eol || p.src[end+1] != ' ' {
				p.fail()
			}
			p.checkKey(n, k, count)
			link(k)
			j = p.skipSpaces(end + 1)
			if j == p.eol {
				p.fail()
			}
		}
		var e int32
		var end int
		if c := p.src[j]; c == '[' || c == '{' {
			e, end = p.flow(j)
		} else {
			e, end = p.flowScalar(j, false)
		}
		link(e)
		j = p.skipSpaces(end)
		if j == p.eol {
			p.fail()
		}
		switch p.src[j] {
		case ',':
			j = p.skipSpaces(j + 1)
			if j == p.eol || p.src[j] == close || p.src[j] == ',' {
				p.fail()
			}
		case close:
			return n, j + 1
		default:
			p.fail()
		}
	}
}

// flowScalar reads a quoted or plain scalar at i in a flow collection (a
// key when key) and returns its node and its end.
func (p *fastParser) flowScalar(i int, key bool) (int32, int) {
	if c := p.src[i]; c == '"' || c == '\'' {
		n := p.node(fStr, p.line, p.column(i))
		val, end := p.quoted(i)
		p.nodes[n].val = val
		return n, end
	}
	if !p.plainStart(i) {
		p.fail()
	}
	n := p.node(fPlain, p.line, p.column(i))
	end := i
	j := i
	for ; j < p.eol; j++ {
		c := p.src[j]
		if c == ',' || c == ']' || c == '}' {
			break
		}
		if c == ':' {
			if j+1 == p.eol || p.src[j+1] == ' ' {
				if key {
					break
				}
				p.fail()
			}
			if strings.IndexByte(",[]{}", p.src[j+1]) >= 0 {
				p.fail()
			}
		}
		if c == '?' || c == '#' || c == '[' || c == '{' {
			p.fail()
		}
		if c != ' ' {
			end = j + 1
		}
	}
	if key && (j == p.eol || p.src[j] != ':') {
		p.fail() // a key without a value, or a value on its own
	}
	if key && end != j {
		p.fail() // "a : b"
	}
	p.plain(n, p.src[i:end])
	return n, end
}

// blockScalar reads the literal or folded scalar whose indicator is at i,
// in a block collection at column indent, as yaml.v3's scanner does
// (yaml_parser_scan_block_scalar), and leaves p at the first line with
// content after it.
func (p *fastParser) blockScalar(i, indent int) int32 {
	n := p.node(fStr, p.line, p.column(i))
	literal := p.src[i] == '|'
	src := p.src
	j := i + 1
	chomping, increment := 0, 0
	digit := func() {
		if j < p.eol && src[j] >= '0' && src[j] <= '9' {
			if src[j] == '0' {
				p.fail()
			}
			increment = int(src[j] - '0')
			j++
		}
	}
	chomp := func() {
		if j < p.eol && (src[j] == '+' || src[j] == '-') {
			chomping = 1
			if src[j] == '-' {
				chomping = -1
			}
			j++
		}
	}
	if j < p.eol && (src[j] == '+' || src[j] == '-') {
		chomp()
		digit()
	} else {
		digit()
		chomp()
	}
	j = p.skipSpaces(j)
	if j < p.eol && src[j] == '#' {
		if src[j-1] != ' ' {
			p.fail() // "|#": a comment yaml.v3 may read otherwise
		}
		j = p.eol
	}
	if j != p.eol {
		p.fail()
	}
	// The scan, as yaml.v3's: pos is the read position, column its
	// column (only spaces count: no tabs, and content is not measured).
	pos, line := p.eol+1, p.line+1
	if pos > len(src) {
		pos = len(src)
	}
	lineStart := pos
	column := 0
	ind := 0
	if increment > 0 {
		ind = indent + increment
	}
	var s, leadingBreak, trailingBreaks []byte
	breaks := func() {
		maxIndent := 0
		for {
			for (ind == 0 || column < ind) && pos < len(src) && src[pos] == ' ' {
				pos++
				column++
			}
			maxIndent = max(maxIndent, column)
			if pos == len(src) || src[pos] != '\n' {
				break
			}
			trailingBreaks = append(trailingBreaks, '\n')
			pos++
			line++
			lineStart, column = pos, 0
		}
		if ind == 0 {
			ind = max(maxIndent, indent+1, 1)
		}
	}
	breaks()
	leadingBlank := false
	for column == ind && pos < len(src) {
		trailingBlank := src[pos] == ' '
		if !literal && !leadingBlank && !trailingBlank && len(leadingBreak) > 0 && leadingBreak[0] == '\n' {
			if len(trailingBreaks) == 0 {
				s = append(s, ' ')
			}
		} else {
			s = append(s, leadingBreak...)
		}
		leadingBreak = leadingBreak[:0]
		s = append(s, trailingBreaks...)
		trailingBreaks = trailingBreaks[:0]
		leadingBlank = src[pos] == ' '
		end := bytes.IndexByte(src[pos:], '\n')
		if end < 0 {
			end = len(src) - pos
		}
		s = append(s, src[pos:pos+end]...)
		pos += end
		if pos < len(src) {
			leadingBreak = append(leadingBreak, '\n')
			pos++
			line++
			lineStart, column = pos, 0
		}
		breaks()
	}
	if chomping != -1 {
		s = append(s, leadingBreak...)
	}
	if chomping == 1 {
		s = append(s, trailingBreaks...)
	}
	if s == nil {
		s = []byte{}
	}
	p.nodes[n].val = s
	p.setLine(lineStart, line)
	p.skip()
	return n
}

// lookup is the value of key in mapping m, or -1.
func (p *fastParser) lookup(m int32, key string) int32 {
	if m < 0 || p.nodes[m].kind != fMap {
		return -1
	}
	for k := p.nodes[m].first; k >= 0; k = p.nodes[p.nodes[k].next].next {
		if string(p.nodes[k].val) == key {
			return p.nodes[k].next
		}
	}
	return -1
}

// scalar is the loader's scalar (position.go) on a fast-path tree: the
// value of key in m, and whether it is a scalar other than null.
func (p *fastParser) scalar(m int32, key string) (string, bool) {
	v := p.lookup(m, key)
	if v < 0 {
		return "", false
	}
	switch n := &p.nodes[v]; n.kind {
	case fStr:
		return string(n.val), true
	case fPlain:
		s := string(n.val)
		if (&yaml.Node{Kind: yaml.ScalarNode, Value: s}).ShortTag() == "!!null" {
			return "", false
		}
		return s, true
	}
	return "", false
}

// add adds the objects of the document parse read, document index of a
// stream, as addDocument adds them from yaml.v3's tree.
func (p *fastParser) add(r *Result, name string, index int, d document) {
	if len(p.nodes) == 0 {
		return // comments only
	}
	apiVersion, okA := p.scalar(0, "apiVersion")
	kind, okK := p.scalar(0, "kind")
	if !okA || !okK || apiVersion == "" || kind == "" {
		r.Skipped++
		return
	}
	src := &docSource{raw: d.data}
	if strings.HasSuffix(kind, "List") {
		if items := p.lookup(0, "items"); items >= 0 && p.nodes[items].kind == fSeq {
			count := 0
			for it := p.nodes[items].first; it >= 0; it = p.nodes[it].next {
				count++
			}
			src.keep = count > 1
			if p.lean != nil {
				p.group = &leanGroup{data: d.data, whole: true}
				defer func() { p.group = nil }()
			}
			i := 0
			for it := p.nodes[items].first; it >= 0; it, i = p.nodes[it].next, i+1 {
				p.addItem(r, name, index, d, src, apiVersion, kind, i, it)
			}
			return
		}
	}
	r.Objects = append(r.Objects, p.object(name, index, -1, d, src, apiVersion, kind, 0))
}

// addItem adds item i, node it, of a List document (index of a stream)
// of apiVersion and kind, as addDocument adds it from yaml.v3's tree.
func (p *fastParser) addItem(r *Result, name string, index int, d document, src *docSource, apiVersion, kind string, i int, it int32) {
	n := &p.nodes[it]
	if n.kind != fMap {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.line + int(n.line), Column: int(n.col)}, Msg: fmt.Sprintf("%s item %d is not an object", kind, i)})
		return
	}
	iv, _ := p.scalar(it, "apiVersion")
	ik, _ := p.scalar(it, "kind")
	if ik == "" && kind != "List" {
		ik, iv = strings.TrimSuffix(kind, "List"), apiVersion
	}
	if iv == "" || ik == "" {
		r.Skipped++
		return
	}
	r.Objects = append(r.Objects, p.object(name, index, i, d, src, iv, ik, it))
}

// object is newObject on a fast-path tree.
func (p *fastParser) object(file string, doc, item int, d document, src *docSource, apiVersion, kind string, n int32) *Object {
	o := &Object{File: file, Doc: doc, Item: item, doc: src, lineBase: d.line}
	o.APIVersion, o.Kind = apiVersion, kind
	meta := p.lookup(n, "metadata")
	o.Name, _ = p.scalar(meta, "name")
	o.Namespace, _ = p.scalar(meta, "namespace")
	if item >= 0 && p.leanFor(apiVersion, kind, n) {
		o.lean = &leanItem{part: p.leanJSON(n, p.lean.Keep), schema: p.lean.Schema, group: p.group}
		return o
	}
	out, end := p.whole(n)
	o.json = out[:end:end]
	o.marks = out[end:]
	return o
}

// whole is the JSON of node n followed by the marks of its fields (one
// allocation, as newObject's), and where the JSON ends.
func (p *fastParser) whole(n int32) (out []byte, end int) {
	p.json.Reset()
	p.marks = p.marks[:0]
	prev := 0
	p.mark(n, &prev)
	p.writeJSON(n, &prev)
	j, m := p.json.Bytes(), p.marks
	out = make([]byte, len(j)+len(m))
	copy(out, j)
	copy(out[len(j):], m)
	return out, len(j)
}

// mark appends the position of node n to the marks, as markWriter does.
func (p *fastParser) mark(n int32, prev *int) {
	if p.noMarks {
		return
	}
	line := int(p.nodes[n].line)
	p.marks = binary.AppendVarint(p.marks, int64(line-*prev))
	p.marks = binary.AppendUvarint(p.marks, uint64(p.nodes[n].col))
	*prev = line
}

// writeJSON writes node n as writeJSON writes its yaml.v3 node, and the
// marks of its entries and elements as appendMarks does.
func (p *fastParser) writeJSON(n int32, prev *int) {
	b := &p.json
	switch nd := &p.nodes[n]; nd.kind {
	case fMap:
		b.WriteByte('{')
		for k := nd.first; k >= 0; {
			if k != nd.first {
				b.WriteByte(',')
			}
			writeStringBytes(b, p.nodes[k].val)
			b.WriteByte(':')
			p.mark(k, prev)
			v := p.nodes[k].next
			p.writeJSON(v, prev)
			k = p.nodes[v].next
		}
		b.WriteByte('}')
	case fSeq:
		b.WriteByte('[')
		for e := nd.first; e >= 0; e = p.nodes[e].next {
			if e != nd.first {
				b.WriteByte(',')
			}
			p.mark(e, prev)
			p.writeJSON(e, prev)
		}
		b.WriteByte(']')
	default:
		p.writeScalarJSON(b, nd)
	}
}

// writeScalarJSON writes scalar node nd as writeJSON writes its yaml.v3
// node.
func (p *fastParser) writeScalarJSON(b *bytes.Buffer, nd *fnode) {
	if nd.kind == fStr {
		writeStringBytes(b, nd.val)
		return
	}
	switch v := nd.val; {
	case len(v) > 0 && !resolveHint(v[0]):
		// yaml.v3 resolves it as a string without looking further,
		// and no YAML 1.1 boolean starts so.
		writeStringBytes(b, v)
		return
	case string(v) == "true" || string(v) == "false" || decimal(v):
		// A boolean, or an int writeScalar prints as it is written.
		b.Write(v)
		return
	case digitString(v), digitWord(v):
		writeStringBytes(b, v)
		return
	}
	writeScalar(b, &yaml.Node{Kind: yaml.ScalarNode, Value: string(nd.val)})
}

// resolveHint reports whether yaml.v3's resolve looks past the first byte
// c of a plain scalar (its resolveTable): any other first byte makes a
// string.
func resolveHint(c byte) bool {
	switch c {
	case '+', '-', '.', '~', 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O':
		return true
	}
	return c >= '0' && c <= '9'
}

// digitString reports whether yaml.v3 resolves v, a plain scalar, to a
// string for a reason seen at a glance: it starts with a digit (so
// resolve tries a timestamp, an int and a float, and no entry of its
// table of words) and holds a byte none of those can (a unit: 3920m,
// 16Gi), or only digits and more than one dot (an address: 10.0.0.1).
func digitString(v []byte) bool {
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return false
	}
	dots, other := 0, false
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
		case c == '.':
			dots++
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || strings.IndexByte("xXoO_+-:tTzZ ", c) >= 0:
			other = true // in hex, a base prefix, a sign, an exponent or a timestamp
		default:
			return true
		}
	}
	return dots > 1 && !other
}

// digitWord reports whether yaml.v3 resolves v, a plain scalar, to a
// string because it starts with a digit and holds a byte that no int,
// float or timestamp resolve tries can hold (a UUID, a boot ID: 6f1c0000-
// 0d1e-4b6a-...): resolve looks for a timestamp only after four digits
// and a '-', and with no base prefix (0x, 0o, 0b) and no underscore (which
// it drops before reading a number), an int or a float has only digits,
// dots, signs and exponents.
func digitWord(v []byte) bool {
	if len(v) < 2 || v[0] < '0' || v[0] > '9' || v[0] == '0' && strings.IndexByte("xXoObB", v[1]) >= 0 {
		return false
	}
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 4 && i < len(v) && v[i] == '-' {
		return false // maybe a timestamp
	}
	word := false
	for _, c := range v {
		switch {
		case c == '_':
			return false
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-':
		default:
			word = true
		}
	}
	return word
}

// decimal reports whether v is "0" or a decimal of at most 18 digits
// without a leading zero: an int (no timestamp has fewer than 4 digits
// before a '-') that fits int64 and is printed back as it is.
func decimal(v []byte) bool {
	if len(v) == 0 || len(v) > 18 || v[0] == '0' && len(v) > 1 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
