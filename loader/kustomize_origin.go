package loader

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/taintlint/taintlint/loader/jsonscan"
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
	v = deref(v)
	if v == nil || v.Kind != yaml.MappingNode {
		return nil
	}
	t := &patchTarget{
		group:     fieldString(v, "group"),
		version:   fieldString(v, "version"),
		kind:      fieldString(v, "kind"),
		namespace: fieldString(v, "namespace"),
	}
	if n := fieldString(v, "name"); n != "" {
		re, err := regexp.Compile("^(?:" + n + ")$")
		if err != nil {
			re = regexp.MustCompile("^" + regexp.QuoteMeta(n) + "$")
		}
		t.name = re
	}
	if s := fieldString(v, "labelSelector"); s != "" {
		if sel, err := labels.Parse(s); err == nil {
			t.labels = sel
		}
	}
	if s := fieldString(v, "annotationSelector"); s != "" {
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
	_, v := field(k.doc, "patchesStrategicMerge")
	for _, s := range strs(v) {
		entry := t.pos(k, s)
		if inlineDocs(s.Value) != nil {
			t.addPatches(k, entry, nil, t.inlineSources(k, s))
		} else {
			t.addPatches(k, entry, nil, t.fileSources(k, s.Value))
		}
	}
	for _, key := range []string{"patches", "patchesJson6902"} {
		_, v := field(k.doc, key)
		for _, it := range items(v) {
			if it.Kind != yaml.MappingNode {
				continue
			}
			entry := t.pos(k, it)
			_, tv := field(it, "target")
			target := parseTarget(tv)
			if p := fieldString(it, "path"); p != "" {
				t.addPatches(k, entry, target, t.fileSources(k, p))
			} else if _, pv := field(it, "patch"); deref(pv) != nil && deref(pv).Kind == yaml.ScalarNode {
				t.addPatches(k, entry, target, t.inlineSources(k, deref(pv)))
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
	_, v := field(k.doc, "replacements")
	for _, it := range items(v) {
		if p := fieldString(it, "path"); p != "" {
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
	_, targets := field(r, "targets")
	for _, tg := range items(targets) {
		_, sel := field(tg, "select")
		rt := replacementTarget{sel: parseTarget(sel)}
		_, rejects := field(tg, "reject")
		for _, rj := range items(rejects) {
			if pt := parseTarget(rj); pt != nil {
				rt.reject = append(rt.reject, pt)
			}
		}
		_, fps := field(tg, "fieldPaths")
		for _, fp := range strs(fps) {
			rt := rt
			rt.pos = src.pos(fp)
			rt.path = utils.SmarterPathSplitter(fp.Value, ".")
			k.replacements = append(k.replacements, rt)
		}
	}
}

// fieldPathMatches reports whether a kustomize field path (segments such
// as spec, tolerations, 0, [key=spot] or *) names steps in out.
func fieldPathMatches(segs []string, steps []step, out *yaml.Node) bool {
	if len(segs) != len(steps) {
		return false
	}
	cur := out
	for i, seg := range segs {
		cur = deref(cur)
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
				if got, ok := scalar(deref(cur), key); !ok || got != want {
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
		_, cur = lookup(cur, s.Key, 0)
	}
	return true
}

func (t *kustTree) addPatches(k *kustFile, entry Position, target *patchTarget, srcs []*source) {
	for _, s := range srcs {
		p := &patchDoc{entry: entry, target: target}
		switch s.node.Kind {
		case yaml.MappingNode:
			p.smp = s
			p.kind, _ = scalar(s.node, "kind")
			_, meta := lookup(s.node, "metadata", 0)
			p.name, _ = scalar(deref(meta), "name")
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
		op := jsonOp{op: fieldString(it, "op"), item: it}
		ptr := fieldString(it, "path")
		if !strings.HasPrefix(ptr, "/") {
			continue
		}
		for _, seg := range strings.Split(ptr[1:], "/") {
			op.ptr = append(op.ptr, strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~"))
		}
		op.valueKey, op.value = field(it, "value")
		ops = append(ops, op)
	}
	return ops
}

// fileSources reads the documents of a patch file named in k.
func (t *kustTree) fileSources(k *kustFile, rel string) []*source {
	if filepath.IsAbs(rel) || isRemote(rel, k.dir) {
		return nil
	}
	abs := filepath.Join(k.dir, rel)
	data, err := readRegular(abs)
	if err != nil {
		return nil
	}
	name := t.display(abs)
	t.read = append(t.read, name)
	var out []*source
	for _, d := range splitDocuments(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
		var doc yaml.Node
		if parseYAML(d.data, &doc) != nil {
			continue
		}
		if r := deref(&doc); r != nil {
			out = append(out, &source{file: name, node: r, lineBase: d.line})
		}
	}
	return out
}

// inlineSources reads the documents of a patch written inline in k.
func (t *kustTree) inlineSources(k *kustFile, s *yaml.Node) []*source {
	indent, block := blockIndent(k.raw, s)
	flat := t.pos(k, s)
	var out []*source
	for _, d := range splitDocuments([]byte(s.Value)) {
		var doc yaml.Node
		if parseYAML(d.data, &doc) != nil {
			continue
		}
		r := deref(&doc)
		if r == nil {
			continue
		}
		src := &source{file: k.name, node: r}
		if block {
			src.lineBase, src.colBase = s.Line+d.line, indent
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

// kustLocator finds where a field of a Kustomize output object is written.
type kustLocator struct {
	base     *source             // the object in its source file; nil when generated
	entry    *Position           // the generator entry that made the object
	patches  []*patchDoc         // patches selecting the object, latest applied first
	replaced []replacementTarget // replacements targeting the object
	chain    []*kustFile         // kustomizations that built it, outermost first
	fallback Position            // the root kustomization file
}

// kustBacking is an object of Kustomize output: its tree, located by the
// kustomization's sources, patches and entries.
type kustBacking struct {
	node *yaml.Node
	loc  *kustLocator
}

func (b *kustBacking) form(*Object) ([]byte, marks) { return nil, nil }
func (b *kustBacking) jsonErr() error               { return nil }
func (b *kustBacking) tree(*Object) *yaml.Node      { return b.node }
func (b *kustBacking) locatesByTree(*Object) bool   { return true }
func (b *kustBacking) document() *docSource         { return nil }
func (b *kustBacking) docLine() int                 { return 0 }
func (b *kustBacking) source() string               { return "kustomize" }

func (b *kustBacking) locate(o *Object, path string) (Position, Exactness) {
	return b.loc.locate(o, path)
}

// locateValue is the value's place in the source file or the
// strategic-merge patch Locate chose, when that is where its key is.
func (b *kustBacking) locateValue(o *Object, steps []step, pos Position) Position {
	srcs := []*source{b.loc.base}
	for _, p := range b.loc.patches {
		srcs = append(srcs, p.smp)
	}
	for _, src := range srcs {
		if src == nil || src.flat != nil || src.file != pos.File {
			continue
		}
		mark, val, depth := walkGuided(src.node, o.Tree(), steps)
		if depth == len(steps) && val != nil && src.pos(mark) == pos {
			return src.pos(val)
		}
	}
	return pos
}

// locate resolves a field path of o. The order follows where a person
// would make a change: a patch that sets the value the output has, else a
// replacement that wrote a value the source file does not hold, else the
// object's source file, else a patch that sets the field at all (a later
// transformer changed the value), else the kustomization field of the
// transformer that set it (namespace, labels, annotations), else the
// kustomization file.
func (k *kustLocator) locate(o *Object, path string) (Position, Exactness) {
	steps, err := jsonscan.ParsePath(path)
	if err != nil {
		steps = nil
	}
	if _, depth := walkValue(o.Tree(), steps); depth < len(steps) {
		// Absent from the output too: name its nearest existing ancestor.
		p, ex := k.find(o, steps[:depth])
		if ex == Exact {
			ex = Ancestor
		}
		return p, ex
	}
	return k.find(o, steps)
}

func (k *kustLocator) objectPos() Position {
	switch {
	case k.base != nil:
		return k.base.pos(nil)
	case k.entry != nil:
		return *k.entry
	}
	return k.fallback
}

func (k *kustLocator) find(o *Object, steps []step) (Position, Exactness) {
	if len(steps) == 0 {
		return k.objectPos(), Exact
	}
	out, _ := walkValue(o.Tree(), steps)
	for _, p := range k.patches {
		if pos, ok := p.locate(o.Tree(), steps, out, true); ok {
			return pos, Exact
		}
	}
	var baseMark, baseVal *yaml.Node
	baseDepth := -1
	if k.base != nil {
		baseMark, baseVal, baseDepth = walkGuided(k.base.node, o.Tree(), steps)
	}
	for _, r := range k.replaced {
		// A replacement wrote the value, unless the source already had it.
		if fieldPathMatches(r.path, steps, o.Tree()) && (baseDepth < len(steps) || !equalValue(baseVal, out)) {
			return r.pos, Generated
		}
	}
	if baseDepth == len(steps) {
		return k.base.pos(baseMark), Exact
	}
	for _, p := range k.patches {
		if pos, ok := p.locate(o.Tree(), steps, out, false); ok {
			return pos, Exact
		}
	}
	if pos, ok := k.transformer(steps); ok {
		return pos, Generated
	}
	switch {
	case k.entry != nil:
		return *k.entry, Generated
	case len(k.patches) > 0:
		return k.patches[0].entry, Generated
	}
	return k.fallback, Generated
}

// locate finds a field in the patch. With same, the patch must set the
// value the output has; without, any mention of the field will do.
func (p *patchDoc) locate(outRoot *yaml.Node, steps []step, out *yaml.Node, same bool) (Position, bool) {
	if p.smp != nil {
		n, v, d := walkGuided(p.smp.node, outRoot, steps)
		if d == len(steps) && (!same || equalValue(v, out)) {
			return p.smp.pos(n), true
		}
		return Position{}, false
	}
	for i := len(p.ops) - 1; i >= 0; i-- {
		op := &p.ops[i]
		switch op.op {
		case "add", "replace", "copy", "move":
		default:
			continue
		}
		if !same {
			if ptrRelated(op.ptr, steps) {
				return p.opsSrc.pos(op.item), true
			}
			continue
		}
		if op.value == nil || !ptrPrefix(op.ptr, steps) {
			continue
		}
		rest := steps[len(op.ptr):]
		if len(rest) == 0 {
			if equalValue(op.value, out) {
				return p.opsSrc.pos(op.valueKey), true
			}
			continue
		}
		// The operation's whole value must have survived, or "-" (append)
		// would claim every element of the list.
		sub, _ := walkValue(outRoot, steps[:len(op.ptr)])
		if !subset(op.value, sub, 0) {
			continue
		}
		if n, v, d := walkGuided(op.value, sub, rest); d == len(rest) && equalValue(v, out) {
			return p.opsSrc.pos(n), true
		}
	}
	return Position{}, false
}

func segMatches(seg string, s step) bool {
	if s.Index >= 0 {
		return seg == "-" || seg == strconv.Itoa(s.Index)
	}
	return seg == s.Key
}

// ptrPrefix reports whether a JSON pointer names steps or an ancestor.
func ptrPrefix(ptr []string, steps []step) bool {
	if len(ptr) > len(steps) {
		return false
	}
	for i, seg := range ptr {
		if !segMatches(seg, steps[i]) {
			return false
		}
	}
	return true
}

// ptrRelated reports whether a JSON pointer names steps, an ancestor or a
// descendant.
func ptrRelated(ptr []string, steps []step) bool {
	for i := 0; i < len(ptr) && i < len(steps); i++ {
		if !segMatches(ptr[i], steps[i]) {
			return false
		}
	}
	return true
}

// mergeKeys are the fields strategic merge matches list elements by in the
// Kubernetes types rules look at (containers, env, volumes, ports, mounts).
var mergeKeys = []string{"name", "mountPath", "devicePath", "containerPort", "ip"}

// walkGuided is walk over a source tree (a base file or a patch) guided by
// the built output, because list indexes in the output need not be list
// indexes in the source: strategic merge matches elements by their merge
// key and appends new ones. It returns the mark node (the key of a map
// field, the element of a list), the value, and how many steps matched.
func walkGuided(src, out *yaml.Node, steps []step) (mark, val *yaml.Node, depth int) {
	mark, cur, o := src, src, out
	for d, s := range steps {
		cur, o = deref(cur), deref(o)
		if cur == nil {
			return mark, nil, d
		}
		if s.Index >= 0 {
			if cur.Kind != yaml.SequenceNode {
				return mark, nil, d
			}
			var oe *yaml.Node
			if o != nil && o.Kind == yaml.SequenceNode && s.Index < len(o.Content) {
				oe = o.Content[s.Index]
			}
			e := pickElement(cur, o, s.Index, oe)
			if e == nil {
				return mark, nil, d
			}
			mark, cur, o = e, e, oe
			continue
		}
		if cur.Kind != yaml.MappingNode {
			return mark, nil, d
		}
		k, v := lookup(cur, s.Key, 0)
		if k == nil {
			return mark, nil, d
		}
		var ov *yaml.Node
		if o != nil && o.Kind == yaml.MappingNode {
			_, ov = lookup(o, s.Key, 0)
		}
		mark, cur, o = k, v, ov
	}
	return mark, cur, len(steps)
}

// pickElement finds the element of source list seq that became element i
// (oe) of output list out.
func pickElement(seq, out *yaml.Node, i int, oe *yaml.Node) *yaml.Node {
	if e := deref(oe); e != nil && e.Kind == yaml.MappingNode {
		for _, mk := range mergeKeys {
			want, ok := scalar(e, mk)
			if !ok {
				continue
			}
			for _, c := range seq.Content {
				if v, ok := scalar(deref(c), mk); ok && v == want {
					return c
				}
			}
			return nil
		}
	}
	if i >= len(seq.Content) {
		return nil
	}
	switch {
	case oe == nil, out != nil && len(out.Content) == len(seq.Content), subset(seq.Content[i], oe, 0):
		return seq.Content[i]
	}
	return nil
}

// equalValue reports whether a patch sets exactly the value the output
// has. A patch that merely touches part of a map or list (a strategic
// merge patch's spec holding one container) does not own it: the source
// file does.
func equalValue(p, o *yaml.Node) bool {
	return subset(p, o, 0) && subset(o, p, 0)
}

// subset reports whether every field p sets has the same value in o: a
// patch's value survives in the output.
func subset(p, o *yaml.Node, depth int) bool {
	p, o = deref(p), deref(o)
	if p == nil || o == nil {
		return p == o
	}
	if depth > maxDepth {
		return false
	}
	switch p.Kind {
	case yaml.ScalarNode:
		return o.Kind == yaml.ScalarNode && scalarJSON(p) == scalarJSON(o)
	case yaml.MappingNode:
		if o.Kind != yaml.MappingNode {
			return false
		}
		for i := 0; i+1 < len(p.Content); i += 2 {
			k := p.Content[i]
			if k.Tag == "!!merge" || strings.HasPrefix(k.Value, "$") {
				continue // merge keys and patch directives
			}
			pv := deref(p.Content[i+1])
			_, ov := lookup(o, k.Value, 0)
			if ov == nil {
				if pv != nil && pv.Kind == yaml.ScalarNode && pv.ShortTag() == "!!null" {
					continue // null deletes the field
				}
				return false
			}
			if !subset(pv, ov, depth+1) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		if o.Kind != yaml.SequenceNode {
			return false
		}
	next:
		for _, pe := range p.Content {
			for _, oe := range o.Content {
				if subset(pe, oe, depth+1) {
					continue next
				}
			}
			return false
		}
		return true
	}
	return false
}

func scalarJSON(n *yaml.Node) string {
	var b bytes.Buffer
	writeScalar(&b, n)
	return b.String()
}

// transformer finds the kustomization field of the transformer that set
// a namespace, label, annotation or replica count absent from every
// source file.
func (k *kustLocator) transformer(steps []step) (Position, bool) {
	last := steps[len(steps)-1]
	if last.Index >= 0 {
		return Position{}, false
	}
	var keys []string
	switch {
	case len(steps) == 2 && steps[0].Key == "metadata" && last.Key == "namespace":
		for _, kf := range k.chain {
			if kn, _ := field(kf.doc, "namespace"); kn != nil {
				return Position{File: kf.name, Line: kn.Line, Column: kn.Column}, true
			}
		}
		return Position{}, false
	case len(steps) == 2 && steps[0].Key == "spec" && last.Key == "replicas":
		for _, kf := range k.chain {
			if kn, _ := field(kf.doc, "replicas"); kn != nil {
				return Position{File: kf.name, Line: kn.Line, Column: kn.Column}, true
			}
		}
		return Position{}, false
	case len(steps) < 2:
		return Position{}, false
	case steps[len(steps)-2].Key == "annotations":
		keys = []string{"commonAnnotations"}
	case steps[len(steps)-2].Key == "labels", steps[len(steps)-2].Key == "matchLabels",
		len(steps) == 3 && steps[0].Key == "spec" && steps[1].Key == "selector":
		keys = []string{"commonLabels", "labels"}
	default:
		return Position{}, false
	}
	for _, kf := range k.chain {
		for _, key := range keys {
			_, v := field(kf.doc, key)
			maps := []*yaml.Node{v}
			if key == "labels" {
				maps = nil
				for _, it := range items(v) {
					_, pairs := field(it, "pairs")
					maps = append(maps, pairs)
				}
			}
			for _, m := range maps {
				if m = deref(m); m == nil || m.Kind != yaml.MappingNode {
					continue
				}
				if kn, _ := lookup(m, last.Key, 0); kn != nil {
					return Position{File: kf.name, Line: kn.Line, Column: kn.Column}, true
				}
			}
		}
	}
	return Position{}, false
}
