package yamltree

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// Marks are the positions of every node Locate can return in a plain
// tree (no aliases, no merge keys): the object itself, then in document
// order each map entry's key and each list element. They are packed as
// varints, a line delta and a column, about two bytes a field where the
// tree costs ten times its document. Locate walks the object's JSON, which
// has the tree's shape, counting the marks it passes, so that findings
// need no second parse of their document.
type Marks []byte

// AppendMarks appends the marks of the plain tree n, whose node lines
// are shift more than its document's, to b. ok is false
// when a key's JSON form would not read back as the key (invalid UTF-8):
// the JSON walk could then not find what the tree walk finds.
func AppendMarks(b []byte, n *yaml.Node, shift int) (out []byte, ok bool) {
	m := markWriter{b: b, ok: true, line: shift}
	m.mark(n)
	m.children(n, 0)
	return m.b, m.ok
}

type markWriter struct {
	b    []byte
	line int
	ok   bool
}

func (m *markWriter) mark(n *yaml.Node) {
	m.b = binary.AppendVarint(m.b, int64(n.Line-m.line))
	m.b = binary.AppendUvarint(m.b, uint64(n.Column))
	m.line = n.Line
}

func (m *markWriter) children(n *yaml.Node, depth int) {
	if depth > MaxDepth {
		return // Plain refused it already
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			m.mark(k)
			if !utf8.ValidString(k.Value) {
				m.ok = false
				return
			}
			m.children(n.Content[i+1], depth+1)
			if !m.ok {
				return
			}
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			m.mark(e)
			m.children(e, depth+1)
			if !m.ok {
				return
			}
		}
	}
}

// At is the line and column of mark i.
func (ms Marks) At(i int) (line, col int) {
	for k, j := 0, 0; j < len(ms); k++ {
		d, n := binary.Varint(ms[j:])
		if n <= 0 {
			break
		}
		j += n
		c, n := binary.Uvarint(ms[j:])
		if n <= 0 {
			break
		}
		j += n
		line += int(d)
		if k == i {
			return line, int(c)
		}
	}
	return 1, 1 // not reached: the JSON and the marks come from one tree
}

// MarkAt follows steps through data, the JSON that JSON wrote of a
// plain tree, the way Walk follows them through the tree: it returns the index
// of the mark of the deepest step found and how many steps it followed.
func MarkAt(data []byte, steps []jsonscan.Step) (mark, depth int) {
	i := 0 // start of the current value
	for depth, s := range steps {
		open := byte('{')
		if s.Index >= 0 {
			open = '['
		}
		if i >= len(data) || data[i] != open {
			return mark, depth
		}
		next := mark + 1 // the mark of the value's first entry or element
		found := false
		for j, n := i+1, 0; j < len(data) && data[j] != ']' && data[j] != '}'; n++ {
			val, match := j, n == s.Index
			if s.Index < 0 {
				kend := jsonscan.Skip(data, j)
				val, match = kend+1, jsonscan.KeyIs(data[j:kend], s.Key) // past ':'
			}
			if match {
				mark, i, found = next, val, true
				break
			}
			end, inner := jsonscan.SkipCounting(data, val)
			next += 1 + inner
			j = end
			if j < len(data) && data[j] == ',' {
				j++
			}
		}
		if !found {
			return mark, depth
		}
	}
	return mark, len(steps)
}
