package kusttree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/kustomize"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/resource"
)

// File returns the kustomization file in dir, or "".
func File(dir string) string {
	for _, n := range kustomize.Names {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// Output is a build of one kustomization root.
type Output struct {
	Files   []string // the kustomization files, then the other files read, as named in positions
	Objects []Object
	Errors  []*Error
	// Remote are the remote references left out, one at its line: notes,
	// not findings.
	Remote []*Error
	// Read are the files the build read, as kustomize names them; set
	// only when the build succeeded.
	Read []string
	// Limit, when not "", is the limit the build ran into.
	Limit string
}

// Build builds the kustomization in dir the way `kustomize build` would
// with plugins and Helm off and loads restricted to each kustomization's
// root, in a worker process that cannot reach the network or run git
// unless opts.AllowRemote (kustomize.Build), and maps every output object
// back to the file and line a person edits. The tree is read first, to
// refuse what must never run (KRM functions, legacy plugins, Helm charts
// without opts.EnableHelm: then nothing is built) and to name the line of
// every remote reference. Remote references are not fetched without
// opts.AllowRemote: each is a note naming it at its line (not a finding:
// the overlay is not wrong, it is checked in part), and the rest of the
// tree is built and checked without them. Kustomize's own failures are
// Errors on the kustomization file too, never run failures. On a
// cancelled ctx it returns what it has; the loader reports the
// cancellation.
func Build(ctx context.Context, dir, name string, h Hooks, opts kustomize.Options) *Output {
	t := newKustTree(dir, name, h)
	t.allowRemote, t.enableHelm = opts.AllowRemote, opts.EnableHelm
	t.scan()
	r := &Output{}
	for _, k := range t.order {
		r.Files = append(r.Files, k.name)
	}
	if t.root == nil {
		r.Errors = []*Error{{Pos: Position{File: name, Line: 1, Column: 1}, Msg: "no kustomization file"}}
		return r
	}
	if len(t.errs) > 0 || t.fatal {
		r.Errors = t.errs
		r.Remote = t.remote
		return r
	}
	if ctx.Err() != nil {
		return r
	}
	inject := !kustomize.HasOriginAnnotations(t.root.doc)
	rep, err := kustomize.Build(ctx, t.rootDir, inject, opts)
	var limit *kustomize.Limit
	switch {
	case errors.As(err, &limit):
		r.Limit = limit.Msg
		return r
	case err != nil && ctx.Err() != nil:
		return r
	}
	t.skippedErrors(rep.Skipped)
	r.Remote = t.remote
	switch {
	case err != nil:
		r.Errors = append(r.Errors, &Error{Pos: Position{File: t.root.name, Line: 1, Column: 1}, Msg: "kustomize build failed: " + err.Error()})
		return r
	case rep.Err != "":
		r.Errors = append(r.Errors, t.kustomizeError(rep.Err))
		return r
	}
	for _, u := range rep.Refused {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: t.root.name, Line: 1, Column: 1},
			Msg: fmt.Sprintf("kustomize tried to reach %s: refused, %v", t.relPaths(u), kustomize.ErrRemoteRefused)})
	}
	objs, errs := t.objects(rep.Resources)
	r.Objects = objs
	r.Read = rep.Read
	r.Errors = append(r.Errors, errs...)
	seen := map[string]bool{}
	for _, f := range r.Files {
		seen[f] = true
	}
	for _, f := range t.read {
		if !seen[f] {
			seen[f] = true
			r.Files = append(r.Files, f)
		}
	}
	return r
}

// absPathRE finds absolute paths in kustomize's messages, which name
// files by their absolute, symlink-resolved path.
var absPathRE = regexp.MustCompile("(^|[\\s'\"`(=])(/[^\\s'\"`:,;]+)")

// kustomizeError turns a failed build into an Error on the kustomization
// file line whose path or key the message names last: kustomize wraps its
// errors outside in, so the innermost cause is quoted last.
func (t *kustTree) kustomizeError(msg string) *Error {
	pos := Position{File: t.root.name, Line: 1, Column: 1}
	best, bestLen, bestDir := -1, 0, false
	for _, m := range t.mentions {
		if len(m.value) < 2 {
			continue
		}
		i := strings.LastIndex(msg, m.value)
		if i < 0 {
			continue
		}
		dirIn := strings.Contains(msg, m.dir)
		if real, err := filepath.EvalSymlinks(m.dir); err == nil && !dirIn {
			dirIn = strings.Contains(msg, real)
		}
		better := i > best ||
			i == best && len(m.value) > bestLen ||
			i == best && len(m.value) == bestLen && dirIn && !bestDir
		if better {
			best, bestLen, bestDir, pos = i, len(m.value), dirIn, m.pos
		}
	}
	return &Error{Pos: pos, Msg: "kustomize build failed: " + t.relPaths(msg)}
}

// relPaths rewrites absolute paths in a message relative to the root as
// the command line named it, so messages do not depend on the machine.
func (t *kustTree) relPaths(msg string) string {
	roots := []string{t.rootDir}
	if real, err := filepath.EvalSymlinks(t.rootDir); err == nil && real != t.rootDir {
		roots = append([]string{real}, roots...)
	}
	return absPathRE.ReplaceAllStringFunc(msg, func(s string) string {
		m := absPathRE.FindStringSubmatch(s)
		for _, root := range roots {
			if rel, err := filepath.Rel(root, m[2]); err == nil {
				return m[1] + path.Join(t.rootName, filepath.ToSlash(rel))
			}
		}
		return s
	})
}

// objects converts kustomize's output into Objects whose positions point
// into the source files.
func (t *kustTree) objects(res []kustomize.Resource) ([]Object, []*Error) {
	var errs []*Error
	kustPos := Position{File: t.root.name, Line: 1, Column: 1}
	for _, k := range t.order {
		t.parsePatches(k)
	}
	mp := newMapper(t)
	var objs []Object
	for _, r := range res {
		var doc yaml.Node
		if err := yamltree.Unmarshal(r.YAML, &doc); err != nil {
			errs = append(errs, &Error{Pos: kustPos, Msg: "kustomize output: " + err.Error()})
			continue
		}
		n := yamltree.Deref(&doc)
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		objs = append(objs, mp.object(n, r.Origin))
	}
	return objs, errs
}

// mapper matches output objects to their sources.
type mapper struct {
	t        *kustTree
	parent   map[*kustFile]*kustFile
	listedBy map[string]*kustFile // resource file -> kustomization listing it
	byPath   map[string]*kustFile // kustomization file -> its kustFile
	sources  map[string]*Parsed   // parsed source files
	index    map[*Parsed]*sourceIndex
}

func newMapper(t *kustTree) *mapper {
	mp := &mapper{t: t, parent: map[*kustFile]*kustFile{}, listedBy: map[string]*kustFile{},
		byPath: map[string]*kustFile{}, sources: map[string]*Parsed{}, index: map[*Parsed]*sourceIndex{}}
	var visit func(k *kustFile)
	visit = func(k *kustFile) {
		for _, c := range k.children {
			if _, ok := mp.parent[c.k]; !ok && c.k != t.root {
				mp.parent[c.k] = k
				visit(c.k)
			}
		}
	}
	visit(t.root)
	for _, k := range t.order {
		mp.byPath[filepath.Clean(k.path)] = k
		for _, f := range k.files {
			if _, ok := mp.listedBy[f]; !ok {
				mp.listedBy[f] = k
			}
		}
	}
	return mp
}

// applied lists the kustomizations whose transformers ran over objects
// accumulated in k, in the order they ran: k's components, k, then the
// same for each kustomization that includes k, up to the root.
func (mp *mapper) applied(k *kustFile) []*kustFile {
	var out []*kustFile
	seen := map[*kustFile]bool{}
	var components func(x *kustFile)
	components = func(x *kustFile) {
		for _, c := range x.children {
			if c.component && !seen[c.k] {
				seen[c.k] = true
				components(c.k)
				out = append(out, c.k)
			}
		}
	}
	for x, n := k, 0; x != nil && n <= len(mp.t.order); x, n = mp.parent[x], n+1 {
		components(x)
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func (mp *mapper) source(abs string) *Parsed {
	if r, ok := mp.sources[abs]; ok {
		return r
	}
	name := mp.t.display(abs)
	var r *Parsed
	if data, err := kustomize.ReadRegular(abs); err == nil {
		r = mp.t.hooks.Parse(name, data)
		mp.t.read = append(mp.t.read, name)
	}
	mp.sources[abs] = r
	return r
}

// object builds the Object for output node n.
func (mp *mapper) object(n *yaml.Node, origin *resource.Origin) Object {
	t := mp.t
	kustPos := Position{File: t.root.name, Line: 1, Column: 1}
	n = yamltree.Deref(n)
	loc := &Locator{fallback: kustPos}
	o := &output{ref: yamltree.RefOf(n), node: n, File: t.root.name, Item: -1}

	var srcName string
	var srcNode *yaml.Node
	owner := t.root
	switch {
	case origin != nil && origin.Repo != "":
		// From a remote base (AllowRemote): the files a person edits are
		// elsewhere, so fields point at the reference that fetched it.
		entry := t.remoteRef(origin.Repo)
		o.File = entry.File
		loc.entry = &entry
	case origin != nil && origin.Path != "":
		abs := filepath.Join(t.rootDir, filepath.FromSlash(origin.Path))
		o.File = t.display(abs)
		if k := mp.listedBy[abs]; k != nil {
			owner = k
		}
		chain := mp.applied(owner)
		if src := mp.matchSource(mp.source(abs), o, chain); src != nil {
			o.File, o.Doc, o.Item = src.File, src.Doc, src.Item
			loc.base = &source{file: src.File, node: src.Tree(), lineBase: src.Line}
			srcName, srcNode = src.Name, src.Tree()
		} else {
			loc.entry = &Position{File: o.File, Line: 1, Column: 1}
		}
	case origin != nil && origin.ConfiguredIn != "":
		abs := filepath.Join(t.rootDir, filepath.FromSlash(origin.ConfiguredIn))
		var entry Position
		owner, entry, srcName = mp.generator(abs, origin, o)
		o.File = entry.File
		loc.entry = &entry
	default:
		loc.entry = &kustPos
	}
	chain := mp.applied(owner)
	for i := len(chain) - 1; i >= 0; i-- {
		loc.chain = append(loc.chain, chain[i])
	}
	loc.patches = mp.patchesFor(o, loc, srcName, srcNode, chain)
	return Object{Node: n, File: o.File, Doc: o.Doc, Item: o.Item, Loc: loc}
}

// remoteRef is the position of the first reference in the tree to the
// remote repository repo, as kustomize names it in an origin annotation
// (its URL without the path inside the repository or the query), or the
// root kustomization when no reference names it literally.
func (t *kustTree) remoteRef(repo string) Position {
	repo = strings.TrimSuffix(repo, ".git")
	for _, m := range t.mentions {
		if repo != "" && strings.Contains(m.value, repo) && kustomize.IsRemote(m.value, m.dir) {
			return m.pos
		}
	}
	return Position{File: t.root.name, Line: 1, Column: 1}
}

// matchSource finds the output object's source among the objects of its
// origin file: same kind, and the name that the prefixes and suffixes of
// the kustomizations that built it turn into the output name; failing
// that, the same name, a name the output name contains, or the only
// object of the kind; the first such object in the file. The file's
// objects are indexed once, so a kustomization of thousands of objects
// is not matched in quadratic time.
func (mp *mapper) matchSource(r *Parsed, o *output, chain []*kustFile) *Source {
	if r == nil {
		return nil
	}
	idx := mp.index[r]
	if idx == nil {
		idx = &sourceIndex{byKind: map[string][]*Source{}, byName: map[[2]string]*Source{}, transformed: map[string]map[[2]string]*Source{}}
		for i := range r.Objects {
			c := &r.Objects[i]
			idx.byKind[c.Kind] = append(idx.byKind[c.Kind], c)
			if _, ok := idx.byName[[2]string{c.Kind, c.Name}]; !ok {
				idx.byName[[2]string{c.Kind, c.Name}] = c
			}
		}
		mp.index[r] = idx
	}
	ck := chainKey(chain)
	tr := idx.transformed[ck]
	if tr == nil {
		tr = map[[2]string]*Source{}
		for i := range r.Objects {
			c := &r.Objects[i]
			k := [2]string{c.Kind, transformedName(c.Name, chain)}
			if _, ok := tr[k]; !ok {
				tr[k] = c
			}
		}
		idx.transformed[ck] = tr
	}
	if c := tr[[2]string{o.ref.Kind, o.ref.Name}]; c != nil {
		return c
	}
	if c := idx.byName[[2]string{o.ref.Kind, o.ref.Name}]; c != nil {
		return c
	}
	same := idx.byKind[o.ref.Kind]
	for _, c := range same {
		if c.Name != "" && strings.Contains(o.ref.Name, c.Name) {
			return c
		}
	}
	if len(same) > 0 {
		return same[0]
	}
	return nil
}

// sourceIndex is a source file's objects by kind, by kind and name, and by
// kind and the name a chain of kustomizations gives them (by chainKey).
type sourceIndex struct {
	byKind      map[string][]*Source
	byName      map[[2]string]*Source
	transformed map[string]map[[2]string]*Source
}

// chainKey tells chains of kustomizations apart by their prefixes and
// suffixes, all that transformedName reads.
func chainKey(chain []*kustFile) string {
	var b strings.Builder
	for _, k := range chain {
		b.WriteString(kustomize.FieldString(k.doc, "namePrefix"))
		b.WriteByte(0)
		b.WriteString(kustomize.FieldString(k.doc, "nameSuffix"))
		b.WriteByte(0)
	}
	return b.String()
}

// transformedName applies the namePrefix and nameSuffix of each
// kustomization in chain, in order.
func transformedName(name string, chain []*kustFile) string {
	for _, k := range chain {
		name = kustomize.FieldString(k.doc, "namePrefix") + name + kustomize.FieldString(k.doc, "nameSuffix")
	}
	return name
}

// generator finds the entry that generated an object: a configMapGenerator
// or secretGenerator item in a kustomization, or a generator configuration
// document. It returns the kustomization that ran it, the entry, and the
// name the entry gives.
func (mp *mapper) generator(abs string, origin *resource.Origin, o *output) (*kustFile, Position, string) {
	t := mp.t
	if k := mp.byPath[filepath.Clean(abs)]; k != nil {
		key := ""
		switch origin.ConfiguredBy.Kind {
		case "ConfigMapGenerator":
			key = "configMapGenerator"
		case "SecretGenerator":
			key = "secretGenerator"
		}
		kn, v := kustomize.Field(k.doc, key)
		chain := mp.applied(k)
		var best *yaml.Node
		bestName, bestScore := "", 0
		for _, it := range items(v) {
			n := kustomize.FieldString(it, "name")
			if n == "" {
				continue
			}
			full := transformedName(n, chain)
			score := 0
			switch {
			case full == o.ref.Name, strings.HasPrefix(o.ref.Name, full+"-"):
				score = 3
			case strings.Contains(o.ref.Name, n):
				score = 1 + len(n)/(len(o.ref.Name)+1) // longer names first
			}
			if score > bestScore {
				best, bestName, bestScore = it, n, score
			}
		}
		switch {
		case best != nil:
			return k, t.pos(k, best), bestName
		case kn != nil:
			return k, t.pos(k, kn), ""
		}
		return k, t.pos(k, nil), ""
	}
	// A generator configuration file listed under generators.
	owner := t.root
	for _, k := range t.order {
		_, v := kustomize.Field(k.doc, "generators")
		for _, s := range kustomize.Strs(v) {
			if !filepath.IsAbs(s.Value) && filepath.Join(k.dir, s.Value) == filepath.Clean(abs) {
				owner = k
			}
		}
	}
	pos := Position{File: t.display(abs), Line: 1, Column: 1}
	if r := mp.source(abs); r != nil {
		for _, c := range r.Objects {
			if c.Kind == origin.ConfiguredBy.Kind && c.Name == origin.ConfiguredBy.Name {
				return owner, c.Pos(), c.Name
			}
		}
	}
	return owner, pos, ""
}

// patchesFor lists the patches that select o, latest applied first. A
// patch in a kustomization sees the object under the name it has there:
// its source name with the prefixes and suffixes of the kustomizations
// below applied.
func (mp *mapper) patchesFor(o *output, loc *Locator, srcName string, srcNode *yaml.Node, chain []*kustFile) []*patchDoc {
	f := &objectFacts{kind: o.ref.Kind}
	if g, v, ok := strings.Cut(o.ref.APIVersion, "/"); ok {
		f.group, f.version = g, v
	} else {
		f.version = o.ref.APIVersion
	}
	f.namespaces = []string{o.ref.Namespace}
	for _, n := range []*yaml.Node{srcNode, o.node} {
		if n == nil {
			continue
		}
		_, meta := yamltree.Lookup(n, "metadata", 0)
		meta = yamltree.Deref(meta)
		if ns, ok := yamltree.Scalar(meta, "namespace"); ok {
			f.namespaces = append(f.namespaces, ns)
		}
		f.labels = append(f.labels, stringMap(meta, "labels"))
		f.annotations = append(f.annotations, stringMap(meta, "annotations"))
	}
	var out []*patchDoc
	cur := srcName
	for _, k := range chain {
		f.names = []string{cur, srcName, o.ref.Name}
		for _, p := range k.patches {
			if p.applies(f) {
				out = append(out, p)
			}
		}
		for _, r := range k.replacements {
			if r.applies(f) {
				loc.replaced = append(loc.replaced, r)
			}
		}
		cur = kustomize.FieldString(k.doc, "namePrefix") + cur + kustomize.FieldString(k.doc, "nameSuffix")
	}
	slices.Reverse(out)
	slices.Reverse(loc.replaced)
	return out
}

// realDir is dir absolute and symlink-resolved, as far as it resolves.
func realDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

func stringMap(meta *yaml.Node, key string) labels.Set {
	out := labels.Set{}
	_, m := yamltree.Lookup(meta, key, 0)
	if m = yamltree.Deref(m); m == nil || m.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if v := yamltree.Deref(m.Content[i+1]); v != nil && v.Kind == yaml.ScalarNode {
			out[m.Content[i].Value] = v.Value
		}
	}
	return out
}

// output is an output object while it is matched to its source.
type output struct {
	ref       yamltree.Ref
	node      *yaml.Node
	File      string
	Doc, Item int
}
