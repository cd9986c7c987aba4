package fastyaml

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/taintlint/taintlint/loader/internal/stream"
)

// A long List is one document: `kubectl get nodes -o yaml` of 5,000
// nodes is 18 MB, which one core would read while the others wait. The
// fast path reads such a List's items on every core instead, in chunks
// cut at the starts of entries, and checks the cut rather than trusting
// it: the document is read only if each chunk, read as the whole
// document's sequence would read its entries, stops exactly where the
// next chunk starts, the last one where the sequence ends, and the rest
// of the document, read with the sequence stood in for, is one the fast
// path reads. Anything else (and any document the fast path gives up on)
// is read as before, whole. FuzzListChunks holds the chunks to the whole.

// ListChunk is about how many bytes of a List's items a core reads at a
// time; a document of at least four chunks' bytes is cut.
const ListChunk = 256 << 10

// listLayout is where a List document's items sequence is: an "items:"
// key at column 0 followed by a block sequence on the lines after it, as
// kubectl writes one.
type listLayout struct {
	from   int   // the start of the line of the first entry
	col    int   // the column (0-based) of the entries' "-"
	to     int   // the start of the first line with content after the sequence; len(data) when none
	toLine int   // its 1-based number
	starts []int // the start of each chunk, the line of one of its entries; starts[0] == from
	lines  []int // the 1-based line number of each start
	items  []int // the index of each chunk's first entry, and at the end the number of entries
	// In a parser: where seq stops reading the items (the next chunk's
	// start; -1 for none), and the node value made for the sequence.
	stop int
	seq  int32
}

// scanList finds the items sequence of List document data and cuts it
// into chunks of about chunk bytes. ok is false when data has no
// "items:" line at column 0 followed by an entry. Lines are told apart as
// the fast path's skip tells them: blank or a comment, or content at the
// indentation of its first byte that is not a space.
func scanList(data []byte, chunk int) (l *listLayout, ok bool) {
	at := 0
	if !bytes.HasPrefix(data, []byte("items:")) {
		at = bytes.Index(data, []byte("\nitems:")) + 1
		if at == 0 {
			return nil, false
		}
	}
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	eol := lineEnd(data, at)
	if rest := bytes.TrimLeft(data[at+len("items:"):eol], " "); len(rest) > 0 && (rest[0] != '#' || len(rest) == eol-at-len("items:")) {
		return nil, false // a value on the key's line, or no key
	}
	l = &listLayout{col: -1, to: len(data), stop: -1, seq: -1}
	for ls := eol + 1; ls < len(data); ls = eol + 1 {
		eol, line = lineEnd(data, ls), line+1
		i := ls
		for i < eol && data[i] == ' ' {
			i++
		}
		if i == eol || data[i] == '#' {
			continue // blank, or a comment
		}
		entry := data[i] == '-' && (i+1 == eol || data[i+1] == ' ')
		switch ind := i - ls; {
		case l.col < 0:
			if !entry {
				return nil, false
			}
			l.from, l.col = ls, ind
			l.starts, l.lines, l.items = append(l.starts, ls), append(l.lines, line), append(l.items, 0)
			l.items = append(l.items, 1)
			continue
		case ind > l.col:
			continue
		case ind == l.col && entry:
			if ls-l.starts[len(l.starts)-1] >= chunk {
				l.starts, l.lines = append(l.starts, ls), append(l.lines, line)
				l.items = append(l.items, l.items[len(l.items)-1])
			}
			l.items[len(l.items)-1]++
			continue
		}
		l.to, l.toLine = ls, line
		break
	}
	if l.col < 0 {
		return nil, false
	}
	if l.to == len(data) {
		l.toLine = line + 1 // where skip leaves the last line
	}
	return l, true
}

// lineEnd is the offset of the '\n' ending the line that starts at ls, or
// len(data).
func lineEnd(data []byte, ls int) int {
	if e := bytes.IndexByte(data[ls:], '\n'); e >= 0 {
		return ls + e
	}
	return len(data)
}

// skipItems stands, in the parse of a List document, for the items
// sequence whose entries the chunks read: it makes the sequence's node
// and leaves p where seq would leave it (after the sequence, checked by
// ReadList), at the first entry, which value reached.
func (p *Parser) skipItems() int32 {
	l := p.list
	if p.depth != 1 || p.ind != l.col || !p.seqEntry(p.pos) {
		p.fail()
	}
	l.seq = p.node(fSeq, p.line, l.col+1)
	p.setLine(l.to, l.toLine)
	p.skip()
	return l.seq
}

// readEntries reads the entries of a List's items sequence (column col)
// in data from the entry at start, line line, as seq reads them in the
// whole document (the sequence's mapping at depth 1), up to stop, the
// next chunk's start (-1: to the sequence's end). It returns the
// sequence's node, how many entries it read and where it stopped: the
// start of the first line with content after them.
func (p *Parser) readEntries(data []byte, col, start, line, stop int) (seq int32, n, end int, ok bool) {
	defer p.recoverFast(&ok)
	p.src, p.nodes, p.depth, p.colLine = data, p.nodes[:0], 1, -1
	p.clearSeen()
	p.list = &listLayout{from: -1, col: col, stop: stop}
	p.setLine(start, line)
	p.skip()
	if p.ls != start || p.ind != col || !p.seqEntry(p.pos) {
		return 0, 0, 0, false
	}
	seq = p.seq(col)
	for e := p.nodes[seq].first; e >= 0; e = p.nodes[e].next {
		n++
	}
	return seq, n, p.ls, true
}

// ReadList reads document d as the fast path reads it whole (Parse,
// then Read), with the items of a List cut into chunks of about chunk
// bytes read on every core. It returns nil when d is not such a List or
// the fast path would not read all of it: the caller then reads d whole.
// strict and lean are NewParser's.
func ReadList(d stream.Document, chunk int, strict bool, lean *Lean) *Doc {
	if chunk <= 0 || len(d.Data) < 4*chunk {
		return nil
	}
	l, ok := scanList(d.Data, chunk)
	if !ok || len(l.starts) < 2 || !fastBytes(d.Data[:l.from]) || !fastBytes(d.Data[l.to:]) {
		return nil
	}
	// The document around the items: its kind says whether the items
	// are objects (a List kind) and which kind an item without one has.
	top := Parser{strict: strict, list: l}
	if !top.parseDoc(d.Data) || len(top.nodes) == 0 || l.seq < 0 {
		return nil
	}
	apiVersion, kind := top.kubectlString(0, "apiVersion"), top.kubectlString(0, "kind")
	if apiVersion == "" || kind == "" || !strings.HasSuffix(kind, "List") || top.lookup(0, "items") != l.seq {
		return nil
	}
	parts := make([]*Doc, len(l.starts))
	var failed atomic.Bool
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := Parser{strict: strict, lean: lean, nodes: make([]fnode, 0, chunk/10+16)}
			for c := range next {
				if failed.Load() {
					continue
				}
				start, end, stop := l.starts[c], l.to, -1
				if c+1 < len(l.starts) {
					end, stop = l.starts[c+1], l.starts[c+1]
				}
				if !fastBytes(d.Data[start:end]) {
					failed.Store(true)
					continue
				}
				seq, n, at, ok := p.readEntries(d.Data, l.col, start, l.lines[c], stop)
				if !ok || at != end || n != l.items[c+1]-l.items[c] {
					failed.Store(true)
					continue
				}
				cr := &Doc{}
				if lean != nil {
					p.group = &leanGroup{data: d.Data, col: l.col, start: start, line: l.lines[c], stop: stop, first: l.items[c]}
				}
				i := l.items[c]
				for it := p.nodes[seq].first; it >= 0; it, i = p.nodes[it].next, i+1 {
					p.addItem(cr, d, apiVersion, kind, i, it)
				}
				parts[c] = cr
			}
		}()
	}
	for c := range parts {
		next <- c
	}
	close(next)
	wg.Wait()
	if failed.Load() {
		return nil
	}
	r := &Doc{Keep: l.items[len(l.items)-1] > 1}
	for _, cr := range parts {
		r.Objects = append(r.Objects, cr.Objects...)
		r.Skipped += cr.Skipped
		r.Errors = append(r.Errors, cr.Errors...)
	}
	return r
}
