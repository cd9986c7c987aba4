package kusttree

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/kustomize"
	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/kyaml/utils"
)

// source is a node tree and how its node positions map to a file. A file's
// documents map one to one (shifted by the document's first line); a patch
// written inline in a kustomization as a literal block (|) is shifted by
// the block's first line and indentation; any other inline patch maps every
// node to the scalar that holds it.
type source struct {
	file     string
	node     *yaml.Node
	lineBase int
	colBase  int
	flat     *Position
}

func (s *source) pos(n *yaml.Node) Position {
	if s.flat != nil {
		return *s.flat
	}
	if n == nil {
		n = s.node
	}
	return Position{File: s.file, Line: n.Line + s.lineBase, Column: n.Column + s.colBase}
}

// patchDoc is one patch document of a kustomization: a strategic-merge
// patch (smp) or a list of JSON 6902 operations (ops).
type patchDoc struct {
	entry  Position // the entry in the kustomization file
	target *patchTarget
	smp    *source
	kind   string // the strategic-merge patch's kind and name, matched
	name   string // when the entry has no target
	ops    []jsonOp
	opsSrc *source
}

// jsonOp is one JSON 6902 operation.
type jsonOp struct {
	op       string
	ptr      []string   // path, unescaped segments
	item     *yaml.Node // the operation
	valueKey *yaml.Node // its "value" key, nil when it has none
	value    *yaml.Node
}

// patchTarget is a patch entry's target selector.
type patchTarget struct {
	group, version, kind, namespace string
	name                            *regexp.Regexp
	labels, annotations             labels.Selector
}

// objectFacts is what target selection looks at, gathered from the source
// and the output because a patch in a lower kustomization saw the object
// before later transformers changed it.
type objectFacts struct {
	kind, group, version string
	names, namespaces    []string
	labels, annotations  []labels.Set
}

func (t *patchTarget) matches(f *objectFacts) bool {
	if t.kind != "" && t.kind != f.kind || t.group != "" && t.group != f.group || t.version != "" && t.version != f.version {
		return false
	}
	if t.name != nil && !anyString(f.names, t.name.MatchString) {
		return false
	}
	if t.namespace != "" && !anyString(f.namespaces, func(s string) bool { return s == t.namespace }) {
		return false
	}
	if t.labels != nil && !anySet(f.labels, t.labels) {
		return false
	}
	if t.annotations != nil && !anySet(f.annotations, t.annotations) {
		return false
	}
	return true
}

func anyString(ss []string, ok func(string) bool) bool {
	for _, s := range ss {
		if ok(s) {
			return true
		}
	}
	return false
}

func anySet(sets []labels.Set, sel labels.Selector) bool {
	for _, s := range sets {
		if sel.Matches(s) {
			return true
		}
	}
	return false
}

func (p *patchDoc) applies(f *objectFacts) bool {
	if p.target != nil {
		return p.target.matches(f)
	}
	if p.smp == nil || p.kind == "" || p.kind != f.kind {
		return false
	}
	return anyString(f.names, func(s string) bool { return s == p.name })
}

// parseTarget reads a patch entry's target; nil when there is none.
func parseTarget(v *yaml.Node) *patchTarget {
	v = yamltree.Deref(v)
	if v == nil || v.Kind != yaml.MappingNode {
		return nil
	}
	t := &patchTarget{
		group:     kustomize.FieldString(v, "group"),
		version:   kustomize.FieldString(v, "version"),
		kind:      kustomize.FieldString(v, "kind"),
		namespace: kustomize.FieldString(v, "namespace"),
	}
	if n := kustomize.FieldString(v, "name"); n != "" {
		re, err := regexp.Compile("^(?:" + n + ")$")
		if err != nil {
			re = regexp.MustCompile("^" + regexp.QuoteMeta(n) + "$")
		}
		t.name = re
	}
	if s := kustomize.FieldString(v, "labelSelector"); s != "" {
		if sel, err := labels.Parse(s); err == nil {
			t.labels = sel
		}
	}
	if s := kustomize.FieldString(v, "annotationSelector"); s != "" {
		if sel, err := labels.Parse(s); err == nil {
			t.annotations = sel
		}
	}
	return t
}

// parsePatches reads the patches of k in the order kustomize applies them
// (patchesStrategicMerge, patches, then patchesJson6902), and the targets
// of its replacements.
func (t *kustTree) parsePatches(k *kustFile) {
	if k.doc == nil {
		return
	}
	t.parseReplacements(k)
	_, v := kustomize.Field(k.doc, "patchesStrategicMerge")
	for _, s := range kustomize.Strs(v) {
		entry := t.pos(k, s)
		if inlineDocs(s.Value) != nil {
			t.addPatches(k, entry, nil, t.inlineSources(k, s))
		} else {
			t.addPatches(k, entry, nil, t.fileSources(k, s.Value))
		}
	}
	for _, key := range []string{"patches", "patchesJson6902"} {
		_, v := kustomize.Field(k.doc, key)
		for _, it := range items(v) {
			if it.Kind != yaml.MappingNode {
				continue
			}
			entry := t.pos(k, it)
			_, tv := kustomize.Field(it, "target")
			target := parseTarget(tv)
			if p := kustomize.FieldString(it, "path"); p != "" {
				t.addPatches(k, entry, target, t.fileSources(k, p))
			} else if _, pv := kustomize.Field(it, "patch"); yamltree.Deref(pv) != nil && yamltree.Deref(pv).Kind == yaml.ScalarNode {
				t.addPatches(k, entry, target, t.inlineSources(k, yamltree.Deref(pv)))
			}
		}
	}
}

// replacementTarget is one fieldPaths entry of a replacement's target.
type replacementTarget struct {
	pos    Position
	sel    *patchTarget
	reject []*patchTarget
	path   []string // kustomize field path segments
}

func (r *replacementTarget) applies(f *objectFacts) bool {
	if r.sel == nil || !r.sel.matches(f) {
		return false
	}
	for _, rj := range r.reject {
		if rj.matches(f) {
			return false
		}
	}
	return true
}

// parseReplacements reads the replacements of k, inline or from files.
func (t *kustTree) parseReplacements(k *kustFile) {
	_, v := kustomize.Field(k.doc, "replacements")
	for _, it := range items(v) {
		if p := kustomize.FieldString(it, "path"); p != "" {
			for _, src := range t.fileSources(k, p) {
				reps := []*yaml.Node{src.node}
				if src.node.Kind == yaml.SequenceNode {
					reps = items(src.node)
				}
				for _, r := range reps {
					t.addReplacement(k, src, r)
				}
			}
			continue
		}
		t.addReplacement(k, &source{file: k.name, node: k.doc}, it)
	}
}

func (t *kustTree) addReplacement(k *kustFile, src *source, r *yaml.Node) {
	_, targets := kustomize.Field(r, "targets")
	for _, tg := range items(targets) {
		_, sel := kustomize.Field(tg, "select")
		rt := replacementTarget{sel: parseTarget(sel)}
		_, rejects := kustomize.Field(tg, "reject")
		for _, rj := range items(rejects) {
			if pt := parseTarget(rj); pt != nil {
				rt.reject = append(rt.reject, pt)
			}
		}
		_, fps := kustomize.Field(tg, "fieldPaths")
		for _, fp := range kustomize.Strs(fps) {
			rt := rt
			rt.pos = src.pos(fp)
			rt.path = utils.SmarterPathSplitter(fp.Value, ".")
			k.replacements = append(k.replacements, rt)
		}
	}
}

// fieldPathMatches reports whether a kustomize field path (segments such
// as spec, tolerations, 0, [key=spot] or *) names steps in out.
func fieldPathMatches(segs []string, steps []Step, out *yaml.Node) bool {
	if len(segs) != len(steps) {
		return false
	}
	cur := out
	for i, seg := range segs {
		cur = yamltree.Deref(cur)
		if cur == nil {
			return false
		}
		s := steps[i]
		if s.Index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.Index >= len(cur.Content) {
				return false
			}
			cur = cur.Content[s.Index]
			if kv, ok := strings.CutPrefix(seg, "["); ok && strings.Contains(kv, "=") {
				key, want, _ := strings.Cut(strings.TrimSuffix(kv, "]"), "=")
				if got, ok := yamltree.Scalar(yamltree.Deref(cur), key); !ok || got != want {
					return false
				}
			} else if seg != "*" && seg != strconv.Itoa(s.Index) {
				return false
			}
			continue
		}
		if seg != "*" && seg != s.Key || cur.Kind != yaml.MappingNode {
			return false
		}
		_, cur = yamltree.Lookup(cur, s.Key, 0)
	}
	return true
}

func (t *kustTree) addPatches(k *kustFile, entry Position, target *patchTarget, srcs []*source) {
	for _, s := range srcs {
		p := &patchDoc{entry: entry, target: target}
		switch s.node.Kind {
		case yaml.MappingNode:
			p.smp = s
			p.kind, _ = yamltree.Scalar(s.node, "kind")
			_, meta := yamltree.Lookup(s.node, "metadata", 0)
			p.name, _ = yamltree.Scalar(yamltree.Deref(meta), "name")
		case yaml.SequenceNode:
			p.opsSrc = s
			p.ops = parseOps(s.node)
			if target == nil {
				continue // kustomize requires a target for JSON 6902
			}
		default:
			continue
		}
		k.patches = append(k.patches, p)
	}
}

func parseOps(seq *yaml.Node) []jsonOp {
	var ops []jsonOp
	for _, it := range items(seq) {
		if it.Kind != yaml.MappingNode {
			continue
		}
		op := jsonOp{op: kustomize.FieldString(it, "op"), item: it}
		ptr := kustomize.FieldString(it, "path")
		if !strings.HasPrefix(ptr, "/") {
			continue
		}
		for _, seg := range strings.Split(ptr[1:], "/") {
			op.ptr = append(op.ptr, strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~"))
		}
		op.valueKey, op.value = kustomize.Field(it, "value")
		ops = append(ops, op)
	}
	return ops
}

// fileSources reads the documents of a patch file named in k.
func (t *kustTree) fileSources(k *kustFile, rel string) []*source {
	if filepath.IsAbs(rel) || kustomize.IsRemote(rel, k.dir) {
		return nil
	}
	abs := filepath.Join(k.dir, rel)
	data, err := kustomize.ReadRegular(abs)
	if err != nil {
		return nil
	}
	name := t.display(abs)
	t.read = append(t.read, name)
	var out []*source
	for _, d := range stream.Documents(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
		var doc yaml.Node
		if yamltree.Unmarshal(d.Data, &doc) != nil {
			continue
		}
		if r := yamltree.Deref(&doc); r != nil {
			out = append(out, &source{file: name, node: r, lineBase: d.Line})
		}
	}
	return out
}

// inlineSources reads the documents of a patch written inline in k.
func (t *kustTree) inlineSources(k *kustFile, s *yaml.Node) []*source {
	indent, block := blockIndent(k.raw, s)
	flat := t.pos(k, s)
	var out []*source
	for _, d := range stream.Documents([]byte(s.Value)) {
		var doc yaml.Node
		if yamltree.Unmarshal(d.Data, &doc) != nil {
			continue
		}
		r := yamltree.Deref(&doc)
		if r == nil {
			continue
		}
		src := &source{file: k.name, node: r}
		if block {
			src.lineBase, src.colBase = s.Line+d.Line, indent
		} else {
			src.flat = &flat
		}
		out = append(out, src)
	}
	return out
}

// blockIndent returns the indentation of a literal block scalar's content,
// which yaml.v3 strips from the value: adding it back maps positions in
// the value to positions in the file. Only plain literal blocks qualify;
// folded blocks rejoin lines and an explicit indentation indicator makes
// the first line an unreliable guide.
func blockIndent(raw []byte, s *yaml.Node) (int, bool) {
	if s.Style&yaml.LiteralStyle == 0 || s.Line < 1 {
		return 0, false
	}
	lines := strings.Split(string(raw), "\n")
	if s.Line > len(lines) {
		return 0, false
	}
	header := lines[s.Line-1]
	if i := strings.IndexByte(header, '|'); i < 0 || strings.ContainsAny(header[i:], "123456789") {
		return 0, false
	}
	for _, l := range lines[s.Line:] {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		return len(l) - len(strings.TrimLeft(l, " ")), true
	}
	return 0, false
}

// mergeKeys are the fields strategic merge matches list elements by in the
// Kubernetes types rules look at (containers, env, volumes, ports, mounts).
var mergeKeys = []string{"name", "mountPath", "devicePath", "containerPort", "ip"}
