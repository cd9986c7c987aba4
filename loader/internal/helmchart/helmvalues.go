package helmchart

import (
	"sort"
	"sync"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/strvals"

	"github.com/taintlint/taintlint/internal/helmrender"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// A field a template printed from .Values (helmrender.ValueUse: the
// value's path, recorded as the engine printed it) is located at that
// path in the values it came from, in Helm's order of precedence: --set,
// then the --values files from the last, then the chart's values.yaml,
// then each subchart's under its name or alias. Two values that read the
// same (two components' equal tolerations) are told apart by their
// paths, not found at the first text that matches.

// valuesSource is a values file and the path its top stands at in the
// rendered values (a subchart's values.yaml: the subchart's name).
type valuesSource struct {
	valuesDoc
	prefix []string

	once sync.Once
	root *yaml.Node
}

// tree is the source's YAML, read once; nil when it does not parse.
func (s *valuesSource) tree() *yaml.Node {
	s.once.Do(func() {
		var doc yaml.Node
		if yamltree.Unmarshal(s.data, &doc) == nil {
			s.root = yamltree.Deref(&doc)
		}
	})
	return s.root
}

// byPath is where the value at p of the rendered values was written:
// the file and line, or fromSet when a --set assignment wrote it (no
// file holds it then). ok is false when no source holds p.
func (vi *valuesIndex) byPath(p []jsonscan.Step) (pos Position, fromSet, ok bool) {
	for i := len(vi.sets) - 1; i >= 0; i-- {
		m := map[string]any{}
		if strvals.ParseInto(vi.sets[i], m) == nil && holdsPath(m, p) {
			return Position{}, true, true
		}
	}
	for _, cand := range globalPaths(p) {
		for _, src := range vi.sources {
			rest, under := cutPrefix(cand, src.prefix)
			if !under {
				continue
			}
			root := src.tree()
			if root == nil {
				continue
			}
			if n, got := yamltree.Walk(root, rest); got == len(rest) && n != nil {
				return Position{File: src.name, Line: n.Line, Column: n.Column}, false, true
			}
		}
	}
	return Position{}, false, false
}

// globalPaths are the paths a value at p may have been written at: p
// itself, and for a subchart's globals (sub.global.x) the parent's
// (global.x), which win over the subchart's own; those first.
func globalPaths(p []jsonscan.Step) [][]jsonscan.Step {
	out := [][]jsonscan.Step{}
	for k, s := range p {
		if s.Index < 0 && s.Key == "global" {
			for j := 0; j < k; j++ {
				out = append(out, append(append([]jsonscan.Step(nil), p[:j]...), p[k:]...))
			}
			break
		}
	}
	return append(out, p)
}

// cutPrefix is p without the keys prefix, when it starts with them.
func cutPrefix(p []jsonscan.Step, prefix []string) ([]jsonscan.Step, bool) {
	if len(p) < len(prefix) {
		return nil, false
	}
	for i, k := range prefix {
		if p[i].Index >= 0 || p[i].Key != k {
			return nil, false
		}
	}
	return p[len(prefix):], true
}

// holdsPath reports whether the values v hold a value at p.
func holdsPath(v any, p []jsonscan.Step) bool {
	for _, s := range p {
		switch c := v.(type) {
		case map[string]any:
			if s.Index >= 0 {
				return false
			}
			var ok bool
			if v, ok = c[s.Key]; !ok {
				return false
			}
		case []any:
			if s.Index < 0 || s.Index >= len(c) {
				return false
			}
			v = c[s.Index]
		default:
			return false
		}
	}
	return true
}

// byUse locates the field at steps[:depth] of o through the values the
// template printed whole: the nearest enclosing rendered subtree that
// equals a value printed at or before its place in the output gives the
// value's path, and the rest of the steps lead below it.
func (l *Locator) byUse(o *object, vals []*yaml.Node, steps []jsonscan.Step, depth int) (Position, Exactness, bool) {
	if len(l.uses) == 0 {
		return Position{}, 0, false
	}
	for d := depth; d >= 1; d-- {
		v := yamltree.Deref(vals[d])
		if v == nil || v.Kind == yaml.ScalarNode || len(v.Content) == 0 {
			continue
		}
		if l.templateHolds(o, v) {
			break
		}
		c, ok := canonical(v)
		if !ok {
			continue
		}
		sum := helmrender.SumJSON([]byte(c))
		at := l.offset(o, v)
		// The last use printed at or before the subtree's line, then
		// earlier ones: the nearest that printed this value.
		i := sort.Search(len(l.uses), func(i int) bool { return l.uses[i].At > at })
		for j := i - 1; j >= 0 && j >= i-maxUsesScanned; j-- {
			u := l.uses[j]
			if u.Sum != sum {
				continue
			}
			full := append(append([]jsonscan.Step(nil), u.Path...), steps[d:depth]...)
			pos, fromSet, ok := l.values.byPath(full)
			switch {
			case !ok:
				continue
			case fromSet:
				return l.printedAt(o, v), CommandLine, true
			}
			return pos, Exact, true
		}
	}
	return Position{}, 0, false
}

// maxUsesScanned bounds the printed values looked at for one field.
const maxUsesScanned = 256

// offset is the byte offset in the rendered template of the line n
// starts on.
func (l *Locator) offset(o *object, n *yaml.Node) int {
	rl := n.Line + o.line - 1 // 0-based, as templateLine
	if rl < 0 {
		return 0
	}
	if rl >= len(l.lineStart) {
		return l.lineStart[len(l.lineStart)-1]
	}
	return l.lineStart[rl]
}

// printedAt is the template line nearest above n's rendered line that
// the alignment places: where the template prints the value n is.
func (l *Locator) printedAt(o *object, n *yaml.Node) Position {
	for ln := n.Line; ln >= 1; ln-- {
		if pos, ok := l.templateLine(o, &yaml.Node{Line: ln, Column: 1}); ok {
			pos.Column = 1
			return pos
		}
	}
	return l.objectStart(o)
}

// lineStarts are the byte offsets of each line of lines joined by "\n".
func lineStarts(lines [][]byte) []int {
	out := make([]int, len(lines))
	at := 0
	for i, ln := range lines {
		out[i] = at
		at += len(ln) + 1
	}
	return out
}
