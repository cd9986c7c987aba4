package helmchart

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/taintlint/taintlint/internal/helmrender"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
)

// A rendered chart object is located in the files a person edits. Its
// rendered lines are aligned with the lines of its template (literal text,
// and lines whose literal parts match around the template actions); a
// field on an aligned line is at the template line. A field the template
// does not hold literally (toYaml .Values.tolerations) is looked for in the
// values files: the nearest enclosing rendered subtree that equals a subtree
// of a values file places the field on that file's line. A field on a line
// of a helper template (define in a _*.tpl file) that only one helper line
// reads like is at that line. Anything else is at the template's first line
// of the object, with Exactness Rendered.

// Exactness says how well a position matches a field path: the loader's
// Exactness values a rendered object's positions have.
type Exactness int

const (
	// Exact: the position is the field itself.
	Exact Exactness = iota
	// Ancestor: the field is absent; the position is its nearest
	// existing ancestor.
	Ancestor
	// Rendered: the field could be traced to no line of the template or
	// values files; the position is the template's first line of the
	// object.
	Rendered
	// CommandLine: the field holds a value a --set assignment gave; the
	// position is the template line that prints it.
	CommandLine
)

// Locator locates the fields of objects rendered from one template.
type Locator struct {
	tpl       *helmTemplate
	rendered  [][]byte // the rendered lines
	lineStart []int    // each rendered line's byte offset
	values    *valuesIndex
	uses      []helmrender.ValueUse // values the template printed whole, in output order

	once  sync.Once
	align []int // rendered line (0-based) -> template line (0-based), or -1
}

// newLocator is the Locator of the objects rendered from tpl as
// rendered.
func newLocator(tpl *helmTemplate, rendered []byte, vi *valuesIndex, uses []helmrender.ValueUse) *Locator {
	lines := bytes.Split(rendered, []byte("\n"))
	return &Locator{tpl: tpl, rendered: lines, lineStart: lineStarts(lines), values: vi, uses: uses}
}

// alignment is the rendered-to-template line map, made once.
func (l *Locator) alignment() []int {
	l.once.Do(func() {
		tpl := bytes.Split(l.tpl.data, []byte("\n"))
		l.align = alignLines(tpl, l.rendered)
		realignDocuments(tpl, l.rendered, l.align)
	})
	return l.align
}

// realignDocuments aligns on its own each rendered document none of whose
// lines the alignment of the whole placed: the second and later objects
// a {{ range }} writes, whose lines the first iteration's already took.
// Aligned alone, each is placed as the first was.
func realignDocuments(tpl, rendered [][]byte, align []int) {
	start := 0
	for i := 0; i <= len(rendered); i++ {
		if i < len(rendered) && !bytes.HasPrefix(rendered[i], []byte("---")) {
			continue
		}
		if i > start && !slices.ContainsFunc(align[start:i], func(t int) bool { return t >= 0 }) {
			copy(align[start:i], alignLines(tpl, rendered[start:i]))
		}
		start = i + 1
	}
}

// object is a rendered object as the locator reads it: its tree and
// the 0-based line of its document in the rendered output.
type object struct {
	root *yaml.Node
	line int
}

// Locate is the loader's Object.Locate for a rendered object: root is its
// tree, docLine the 0-based line of its document in the output, p the
// field path.
func (l *Locator) Locate(root *yaml.Node, docLine int, p string) (Position, Exactness) {
	return l.locate(&object{root: root, line: docLine}, p)
}

// locate is Locate for o.
func (l *Locator) locate(o *object, p string) (Position, Exactness) {
	steps, err := jsonscan.ParsePath(p)
	if err != nil {
		steps = nil
	}
	root := o.root
	if len(steps) == 0 {
		return l.objectStart(o), Exact
	}
	// The nodes along the path: vals[d] is the value after d steps, marks[d]
	// the node that marks it (the key of a map field).
	vals := []*yaml.Node{root}
	marks := []*yaml.Node{root}
	cur := root
	for _, s := range steps {
		cur = yamltree.Deref(cur)
		if cur == nil {
			break
		}
		var key, val *yaml.Node
		if s.Index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.Index >= len(cur.Content) {
				break
			}
			key, val = cur.Content[s.Index], cur.Content[s.Index]
		} else {
			if cur.Kind != yaml.MappingNode {
				break
			}
			if key, val = yamltree.Lookup(cur, s.Key, 0); key == nil {
				break
			}
		}
		vals, marks, cur = append(vals, val), append(marks, key), val
	}
	depth := len(vals) - 1
	exact := Exact
	if depth < len(steps) {
		exact = Ancestor
	}
	mark := marks[depth]
	if pos, ok := l.templateLine(o, mark); ok && depth > 0 {
		return pos, exact
	}
	// The value the template printed, by its path.
	if pos, how, ok := l.byUse(o, vals, steps, depth); ok {
		if how == Exact {
			how = exact
		}
		return pos, how
	}
	// The nearest enclosing subtree a values file holds.
	for d := depth; d >= 1; d-- {
		v := yamltree.Deref(vals[d])
		if v == nil || v.Kind == yaml.ScalarNode || len(v.Content) == 0 {
			continue
		}
		if l.templateHolds(o, v) {
			break // the template wrote this subtree itself
		}
		if vn, file, ok := l.values.find(v); ok {
			n, got := yamltree.Walk(vn, steps[d:depth])
			if got == depth-d {
				return Position{File: file, Line: n.Line, Column: n.Column}, exact
			}
		}
	}
	// A map entry of values merged from several files (or from defaults
	// and a file) equals no one subtree; the entry itself, key and value,
	// is looked for.
	for d := depth; d >= 1; d-- {
		if steps[d-1].Index >= 0 {
			continue
		}
		if l.templateHolds(o, vals[d]) {
			break
		}
		if vn, file, ok := l.values.findEntry(steps[d-1].Key, vals[d]); ok {
			n, got := yamltree.Walk(vn, steps[d-1:depth])
			if got == depth-d+1 {
				return Position{File: file, Line: n.Line, Column: n.Column}, exact
			}
		}
	}
	if depth > 0 {
		if pos, ok := l.helperLine(o, mark); ok {
			return pos, exact
		}
	}
	return l.objectStart(o), Rendered
}

// templateLine is the template position of a rendered node, when its line
// is aligned with one.
func (l *Locator) templateLine(o *object, n *yaml.Node) (Position, bool) {
	if n == nil {
		return Position{}, false
	}
	rl := n.Line + o.line - 1
	al := l.alignment()
	if rl < 0 || rl >= len(al) || al[rl] < 0 {
		return Position{}, false
	}
	tl := al[rl]
	tline := lineAt(l.tpl.data, tl)
	col := n.Column - indentOf(l.rendered[rl]) + indentOf(tline)
	return Position{File: l.tpl.name, Line: tl + 1, Column: max(col, 1)}, true
}

// templateHolds reports whether most lines of a rendered subtree are lines
// of the template: then its fields are the template's, not a value's.
func (l *Locator) templateHolds(o *object, n *yaml.Node) bool {
	first, last := n.Line, lastLine(n)
	al := l.alignment()
	held := 0
	for ln := first; ln <= last; ln++ {
		rl := ln + o.line - 1
		if rl >= 0 && rl < len(al) && al[rl] >= 0 {
			held++
		}
	}
	return held*2 > last-first+1
}

// helperLine is the line of a helper template that alone reads like the
// rendered line of n.
func (l *Locator) helperLine(o *object, n *yaml.Node) (Position, bool) {
	rl := n.Line + o.line - 1
	if rl < 0 || rl >= len(l.rendered) {
		return Position{}, false
	}
	want := bytes.TrimSpace(l.rendered[rl])
	if len(want) == 0 || !hasWord(want) {
		return Position{}, false
	}
	var found Position
	count := 0
	for _, h := range l.tpl.helpers {
		for i, line := range bytes.Split(h.data, []byte("\n")) {
			if bytes.Equal(bytes.TrimSpace(line), want) {
				count++
				col := n.Column - indentOf(l.rendered[rl]) + indentOf(line)
				found = Position{File: h.name, Line: i + 1, Column: max(col, 1)}
			}
		}
	}
	return found, count == 1
}

// objectStart is the template line the object's rendered text starts on,
// or the template's first line.
func (l *Locator) objectStart(o *object) Position {
	root := o.root
	first, last := root.Line, lastLine(root)
	for ln := first; ln <= last; ln++ {
		if pos, ok := l.templateLine(o, &yaml.Node{Line: ln, Column: 1}); ok {
			pos.Column = 1
			return pos
		}
	}
	return Position{File: l.tpl.name, Line: 1, Column: 1}
}

// ErrorPos moves an error in the rendered output to the template line.
func (l *Locator) ErrorPos(p Position) Position {
	al := l.alignment()
	if rl := p.Line - 1; rl >= 0 && rl < len(al) && al[rl] >= 0 {
		return Position{File: l.tpl.name, Line: al[rl] + 1, Column: p.Column}
	}
	return Position{File: l.tpl.name, Line: 1, Column: 1}
}

// lastLine is the last line a node's subtree reaches.
func lastLine(n *yaml.Node) int {
	for n != nil && len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	if n == nil {
		return 0
	}
	return n.Line
}

func indentOf(line []byte) int {
	return len(line) - len(bytes.TrimLeft(line, " "))
}

func lineAt(data []byte, i int) []byte {
	for range i {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		return data[:j]
	}
	return data
}

func hasWord(b []byte) bool {
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

// actionRE is a template action.
var actionRE = regexp.MustCompile(`\{\{.*?\}\}`)

// linePattern is how a template line matches rendered lines: its trimmed
// text, or, with actions in it, the literal parts around them in order.
type linePattern struct {
	literal []byte         // a line without actions
	re      *regexp.Regexp // a line with actions and some literal word
}

func (p linePattern) match(line []byte) bool {
	t := bytes.TrimSpace(line)
	switch {
	case p.literal != nil:
		return bytes.Equal(p.literal, t)
	case p.re != nil:
		return p.re.Match(t)
	}
	return false
}

func patternOf(line []byte) linePattern {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || !hasWord(t) {
		return linePattern{}
	}
	if !bytes.Contains(t, []byte("{{")) {
		return linePattern{literal: t}
	}
	parts := actionRE.Split(string(t), -1)
	var b strings.Builder
	literal := ""
	b.WriteString("^")
	for i, part := range parts {
		if i > 0 {
			b.WriteString(".*")
		}
		b.WriteString(regexp.QuoteMeta(part))
		literal += part
	}
	b.WriteString("$")
	if !hasWord([]byte(literal)) || strings.Contains(literal, "{{") {
		return linePattern{}
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return linePattern{}
	}
	return linePattern{re: re}
}

// maxAlignCells bounds the line alignment's table; larger pairs are
// aligned greedily.
const maxAlignCells = 4 << 20

// alignLines maps each rendered line to the template line it came from
// (-1 for none): the longest common subsequence of matching lines, so the
// order of the template is kept.
func alignLines(tpl, rendered [][]byte) []int {
	pats := make([]linePattern, len(tpl))
	for i, t := range tpl {
		pats[i] = patternOf(t)
	}
	out := make([]int, len(rendered))
	for i := range out {
		out[i] = -1
	}
	n, m := len(tpl), len(rendered)
	if n == 0 || m == 0 {
		return out
	}
	if n*m > maxAlignCells {
		ti := 0
		for j, r := range rendered {
			for k := ti; k < n && k < ti+50; k++ {
				if pats[k].match(r) {
					out[j], ti = k, k+1
					break
				}
			}
		}
		return out
	}
	// lcs[i][j] is the LCS length of tpl[i:] and rendered[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	match := func(i, j int) bool { return pats[i].match(rendered[j]) }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case match(i, j):
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				lcs[i*w+j] = lcs[(i+1)*w+j]
			default:
				lcs[i*w+j] = lcs[i*w+j+1]
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case match(i, j) && lcs[i*w+j] == lcs[(i+1)*w+j+1]+1:
			out[j] = i
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// valuesIndex finds the values file subtree a rendered subtree equals.
type valuesIndex struct {
	docs    []valuesDoc     // searched in order: the first holding a value wins
	sources []*valuesSource // the same files, each at its place in the values (helmvalues.go)
	sets    []string        // --set assignments, in order

	once    sync.Once
	nodes   map[string]valuesNode
	entries map[string]valuesNode // key "\x00" canonical value -> the key node's mapping
}

// valuesDoc is a values file that may have supplied rendered fields.
type valuesDoc struct {
	name string
	data []byte
}

type valuesNode struct {
	file string
	node *yaml.Node
}

func (vi *valuesIndex) index() {
	vi.nodes = map[string]valuesNode{}
	vi.entries = map[string]valuesNode{}
	for _, d := range vi.docs {
		var doc yaml.Node
		if yamltree.Unmarshal(d.data, &doc) != nil {
			continue
		}
		var visit func(n *yaml.Node, depth int)
		visit = func(n *yaml.Node, depth int) {
			if n == nil || depth > yamltree.MaxDepth {
				return
			}
			if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) > 0 {
				if key, ok := canonical(n); ok {
					if _, seen := vi.nodes[key]; !seen {
						vi.nodes[key] = valuesNode{file: d.name, node: n}
					}
				}
			}
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if key, ok := canonical(n.Content[i+1]); ok && n.Content[i].Kind == yaml.ScalarNode {
						e := n.Content[i].Value + "\x00" + key
						if _, seen := vi.entries[e]; !seen {
							vi.entries[e] = valuesNode{file: d.name, node: n}
						}
					}
				}
			}
			for _, c := range n.Content {
				visit(c, depth+1)
			}
		}
		visit(yamltree.Deref(&doc), 0)
	}
}

// find returns the values node equal to n, and its file.
func (vi *valuesIndex) find(n *yaml.Node) (*yaml.Node, string, bool) {
	vi.once.Do(vi.index)
	key, ok := canonical(n)
	if !ok {
		return nil, "", false
	}
	v, ok := vi.nodes[key]
	return v.node, v.file, ok
}

// findEntry returns the values mapping holding key with a value equal to
// v, and its file.
func (vi *valuesIndex) findEntry(key string, v *yaml.Node) (*yaml.Node, string, bool) {
	vi.once.Do(vi.index)
	c, ok := canonical(v)
	if !ok {
		return nil, "", false
	}
	e, ok := vi.entries[key+"\x00"+c]
	return e.node, e.file, ok
}

// canonical is a subtree's value as a comparable string: its JSON with
// object keys sorted.
func canonical(n *yaml.Node) (string, bool) {
	if !yamltree.Plain(n, 0) {
		return "", false
	}
	j, err := yamltree.JSON(n, 0, nil)
	if err != nil {
		return "", false
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		return "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}
