package kusttree

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/kustomize"
	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
)

// maxKustomizationDepth bounds how deep the scan follows bases and
// components, so a pathological tree costs bounded time.
const maxKustomizationDepth = 64

// kustTree is a kustomization and every local kustomization it reaches,
// read by taintlint itself before kustomize runs: to refuse what must never
// run (remote bases, Helm, plugins), to name lines in kustomize's errors,
// and after the build to map output objects back to the files a person
// edits.
type kustTree struct {
	rootDir  string // absolute, cleaned, as written (not symlink-resolved)
	rootName string // the root directory as named in positions
	root     *kustFile
	byDir    map[string]*kustFile // key: symlink-resolved directory
	order    []*kustFile          // in discovery order, root first
	errs     []*Error             // refusals and unreadable kustomization files
	// remote are the remote references, one Error each at its line
	// (reported as notes); they are not fetched without allowRemote, and
	// the rest is still built.
	remote []*Error
	// remoteSeen keys remote by kustomization file (symlink-resolved)
	// and value, so that the worker's account adds only what the scan
	// could not see.
	remoteSeen map[[2]string]bool
	// allowRemote and enableHelm lift the refusals of remote references
	// and Helm charts (kustomize.Options.AllowRemote, EnableHelm).
	allowRemote, enableHelm bool
	mentions                []mention // strings kustomize errors may quote
	read                    []string  // files read besides kustomization files, as named in positions
	// fatal is set when a kustomization cannot be read at all; the build
	// would only repeat the error less precisely.
	fatal bool
	hooks Hooks
}

// kustFile is one kustomization (or Component) file.
type kustFile struct {
	dir  string     // absolute, lexical (joined from the root, never symlink-resolved)
	path string     // the kustomization file, absolute
	name string     // the kustomization file as named in positions
	doc  *yaml.Node // top-level mapping; nil when unreadable
	raw  []byte
	// children are the kustomization directories reached through
	// resources, bases and components, in order.
	children []kustChild
	// files are the resource files listed directly, absolute and lexical.
	files []string
	// patches and replacements are filled in after a successful build;
	// patches in application order.
	patches      []*patchDoc
	replacements []replacementTarget
}

type kustChild struct {
	k         *kustFile
	component bool
}

// mention is a string in a kustomization file that a kustomize error may
// quote: a path entry or a top-level key.
type mention struct {
	pos   Position
	value string
	dir   string // the kustomization's directory, absolute
}

// pathKeys are the kustomization and builtin plugin fields whose strings
// kustomize loads as files, directories or repositories (lower case:
// kustomize decodes through encoding/json, which matches keys without
// regard to case).
var pathKeys = map[string]bool{
	"resources": true, "bases": true, "components": true, "crds": true,
	"configurations": true, "generators": true, "transformers": true,
	"validators": true, "patchesstrategicmerge": true, "path": true,
	"paths": true, "files": true, "envs": true, "env": true,
}

// opaqueKeys hold user data (label and annotation values, literals) that
// is never loaded, so a URL there is no reference.
var opaqueKeys = map[string]bool{
	"metadata": true, "commonlabels": true, "commonannotations": true,
	"annotations": true, "pairs": true, "literals": true,
}

// helmKeys make kustomize run the helm binary, which may pull charts.
var helmKeys = []string{"helmCharts", "helmChartInflationGenerator", "helmGlobals"}

// items lists the elements of a sequence.
func items(v *yaml.Node) []*yaml.Node {
	v = yamltree.Deref(v)
	if v == nil || v.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, 0, len(v.Content))
	for _, c := range v.Content {
		if c = yamltree.Deref(c); c != nil {
			out = append(out, c)
		}
	}
	return out
}

func newKustTree(dir, name string, h Hooks) *kustTree {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return &kustTree{rootDir: filepath.Clean(abs), rootName: name, byDir: map[string]*kustFile{}, remoteSeen: map[[2]string]bool{}, hooks: h}
}

// display names an absolute path the way positions name it: relative to
// the root as the command line named the root.
func (t *kustTree) display(abs string) string {
	rel, err := filepath.Rel(t.rootDir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return path.Join(t.rootName, filepath.ToSlash(rel))
}

func (t *kustTree) refuse(pos Position, format string, args ...any) {
	t.errs = append(t.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (t *kustTree) pos(k *kustFile, n *yaml.Node) Position {
	if n == nil {
		return Position{File: k.name, Line: 1, Column: 1}
	}
	return Position{File: k.name, Line: n.Line, Column: n.Column}
}

// scan reads the kustomization in dir and everything local it reaches.
func (t *kustTree) scan() {
	t.root = t.scanDir(t.rootDir, 0)
}

func (t *kustTree) scanDir(dir string, depth int) *kustFile {
	real := realDir(dir)
	if k := t.byDir[real]; k != nil {
		return k
	}
	if depth > maxKustomizationDepth {
		return nil
	}
	kf := File(dir)
	if kf == "" {
		return nil
	}
	k := &kustFile{dir: dir, path: kf, name: t.display(kf)}
	t.byDir[real] = k
	t.order = append(t.order, k)
	data, err := input.ReadFile(kf, nil)
	switch {
	case err != nil:
		t.fatal = true
		t.refuse(t.pos(k, nil), "cannot read kustomization file: %v", input.DescribeFSError(err))
		return k
	case len(data) > input.MaxFileSize:
		t.fatal = true
		t.refuse(t.pos(k, nil), "kustomization file is larger than %d MiB; not read", input.MaxFileSize>>20)
		return k
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	k.raw = data
	// Parse reports invalid YAML and duplicate keys at their lines, which
	// kustomize's own messages do not name.
	if pr := t.hooks.Parse(k.name, data); len(pr.Errors) > 0 {
		t.fatal = true
		t.errs = append(t.errs, pr.Errors...)
		return k
	}
	var doc yaml.Node
	if yamltree.Unmarshal(data, &doc) != nil {
		return k
	}
	root := yamltree.Deref(&doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return k // kustomize says what is wrong with it
	}
	k.doc = root
	for i := 0; i+1 < len(root.Content); i += 2 {
		if kn := root.Content[i]; kn.Kind == yaml.ScalarNode {
			t.mentions = append(t.mentions, mention{pos: t.pos(k, kn), value: `"` + kn.Value + `"`, dir: dir})
		}
	}
	t.checkRefs(k, root)
	if !t.allowRemote {
		t.checkRemote(k, data, root)
	}
	for _, key := range helmKeys {
		if kn, _ := kustomize.Field(root, key); kn != nil && !t.enableHelm {
			t.refuse(t.pos(k, kn), "kustomize %s: Helm charts are not inflated: taintlint never runs helm unless run with --enable-helm (render the chart and commit its output, or check it with helm template | taintlint check -)", kn.Value)
		}
	}
	for _, key := range []string{"generators", "transformers", "validators"} {
		_, v := kustomize.Field(root, key)
		for _, s := range kustomize.Strs(v) {
			t.checkPlugin(k, s, depth)
		}
	}
	for _, key := range []string{"resources", "bases", "components"} {
		_, v := kustomize.Field(root, key)
		for _, s := range kustomize.Strs(v) {
			if kustomize.IsRemote(s.Value, dir) || s.Value == "" || filepath.IsAbs(s.Value) {
				continue
			}
			p := filepath.Join(dir, s.Value)
			fi, err := os.Stat(p)
			switch {
			case err != nil:
			case fi.IsDir():
				if c := t.scanDir(p, depth+1); c != nil {
					k.children = append(k.children, kustChild{k: c, component: key == "components"})
				}
			case fi.Mode().IsRegular():
				k.files = append(k.files, p)
			}
		}
	}
	return k
}

// checkRefs remembers every path-like string under n for error positions.
func (t *kustTree) checkRefs(k *kustFile, n *yaml.Node) {
	visitRefs(n, func(key string, s *yaml.Node) {
		t.mentions = append(t.mentions, mention{pos: t.pos(k, s), value: s.Value, dir: k.dir})
	})
}

// checkRemote names, at its line, every reference in the kustomization
// that kustomize would fetch. Which references those are is decided by
// kustomize's own decoding of the file (kustomize.RemoteRefs), the same one the
// build worker uses to leave them out, so spelling, tags and anchors
// cannot make the two disagree; the YAML tree only supplies the line.
func (t *kustTree) checkRemote(k *kustFile, data []byte, root *yaml.Node) {
	used := map[*yaml.Node]bool{}
	for _, ref := range kustomize.RemoteRefs(data, k.dir) {
		t.addRemote(k.path, t.pos(k, findScalar(root, ref.Value, used)), ref)
	}
}

func (t *kustTree) addRemote(file string, pos Position, ref kustomize.RemoteRef) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		real = filepath.Join(realDir(filepath.Dir(file)), filepath.Base(file))
	}
	key := [2]string{real, ref.Value}
	if t.remoteSeen[key] {
		return
	}
	t.remoteSeen[key] = true
	t.remote = append(t.remote, &Error{Pos: pos, Msg: fmt.Sprintf("remote kustomize %s %q is not fetched, so what it adds is not checked: taintlint never reaches the network unless run with --allow-remote (or vendor it and refer to it by a local path); the rest of the kustomization is checked without it", refKind(ref.Field), ref.Value)})
}

// skippedErrors reports the remote references the build worker left out
// that the scan did not name (beyond its depth, say), at their line when
// the file shows the string, else on the kustomization file.
func (t *kustTree) skippedErrors(skipped []kustomize.SkippedRef) []*Error {
	n := len(t.remote)
	docs := map[string]*yaml.Node{}
	used := map[*yaml.Node]bool{}
	for _, s := range skipped {
		name := t.displayReal(s.File)
		root, ok := docs[s.File]
		if !ok {
			if data, err := kustomize.ReadRegular(s.File); err == nil {
				var doc yaml.Node
				if yamltree.Unmarshal(data, &doc) == nil {
					root = yamltree.Deref(&doc)
				}
			}
			docs[s.File] = root
		}
		pos := Position{File: name, Line: 1, Column: 1}
		if sn := findScalar(root, s.Value, used); sn != nil {
			pos.Line, pos.Column = sn.Line, sn.Column
		}
		t.addRemote(s.File, pos, s.RemoteRef)
	}
	return t.remote[n:]
}

// displayReal names a symlink-resolved path as positions name it.
func (t *kustTree) displayReal(p string) string {
	if k := t.byDir[realDir(filepath.Dir(p))]; k != nil {
		return t.display(filepath.Join(k.dir, filepath.Base(p)))
	}
	if rel, err := filepath.Rel(realDir(t.rootDir), p); err == nil {
		return path.Join(t.rootName, filepath.ToSlash(rel))
	}
	return filepath.ToSlash(p)
}

// findScalar finds the first scalar under n, not yet used, whose value
// (decoded when tagged !!binary) is s, and marks it used.
func findScalar(n *yaml.Node, s string, used map[*yaml.Node]bool) *yaml.Node {
	seen := map[*yaml.Node]bool{}
	var found *yaml.Node
	var visit func(n *yaml.Node, depth int)
	visit = func(n *yaml.Node, depth int) {
		n = yamltree.Deref(n)
		if n == nil || found != nil || seen[n] || depth > yamltree.MaxDepth {
			return
		}
		seen[n] = true
		if n.Kind == yaml.ScalarNode {
			v := n.Value
			if n.ShortTag() == "!!binary" {
				if b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(v), "")); err == nil {
					v = string(b)
				}
			}
			if v == s && !used[n] {
				found = n
				used[n] = true
			}
			return
		}
		for _, c := range n.Content {
			visit(c, depth+1)
		}
	}
	visit(n, 0)
	return found
}

// refKind names what a remote reference is, from its field in kustomize's
// decoding.
func refKind(field string) string {
	switch field {
	case "resources", "bases":
		return "resource"
	case "components":
		return "component"
	case "crds":
		return "CRD file"
	case "configurations":
		return "configuration file"
	case "generators", "transformers", "validators":
		return "plugin configuration"
	case "patchesStrategicMerge", "patches.path", "patchesJson6902.path":
		return "patch"
	case "replacements.path":
		return "replacement file"
	case "openapi.path":
		return "OpenAPI schema"
	}
	return "generator source"
}

func singular(key string) string {
	switch strings.ToLower(key) {
	case "resources", "bases":
		return "resource"
	case "components":
		return "component"
	case "files", "envs", "env":
		return "generator source"
	case "generators", "transformers", "validators":
		return "plugin configuration"
	}
	return "file"
}

// visitRefs calls fn for every string under a path-bearing key in n,
// skipping user data. Each node is visited once, so aliases cannot make
// the walk explode.
func visitRefs(n *yaml.Node, fn func(key string, s *yaml.Node)) {
	seen := map[*yaml.Node]bool{}
	var visit func(n *yaml.Node, depth int)
	visit = func(n *yaml.Node, depth int) {
		n = yamltree.Deref(n)
		if n == nil || seen[n] || depth > yamltree.MaxDepth {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml.SequenceNode:
			for _, c := range n.Content {
				visit(c, depth+1)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := strings.ToLower(n.Content[i].Value)
				if opaqueKeys[key] {
					continue
				}
				if pathKeys[key] {
					for _, s := range kustomize.Strs(n.Content[i+1]) {
						fn(key, s)
					}
				}
				visit(n.Content[i+1], depth+1)
			}
		}
	}
	visit(n, 0)
}

// checkPlugin inspects one generators, transformers or validators entry:
// an inline configuration, a configuration file, or a kustomization
// directory. Only kustomize's builtin plugins run; anything else (exec and
// container KRM functions, Starlark, legacy exec or Go plugins) is refused
// here, and kustomize itself is configured to refuse it too.
func (t *kustTree) checkPlugin(k *kustFile, entry *yaml.Node, depth int) {
	at := t.pos(k, entry)
	if docs := inlineDocs(entry.Value); docs != nil {
		for _, d := range docs {
			t.checkPluginDoc(k, at, d, "")
		}
		return
	}
	if kustomize.IsRemote(entry.Value, k.dir) || entry.Value == "" || filepath.IsAbs(entry.Value) {
		return
	}
	p := filepath.Join(k.dir, entry.Value)
	fi, err := os.Stat(p)
	if err != nil {
		return // kustomize reports the missing file
	}
	if fi.IsDir() {
		t.scanDir(p, depth+1)
		return
	}
	data, err := kustomize.ReadRegular(p)
	if err != nil {
		return // kustomize reports it
	}
	for _, d := range stream.Documents(data) {
		var doc yaml.Node
		if yamltree.Unmarshal(d.Data, &doc) != nil {
			continue
		}
		t.checkPluginDoc(k, at, yamltree.Deref(&doc), entry.Value)
	}
}

// inlineDocs parses s as an inline plugin configuration the way kustomize
// decides: if it holds at least one mapping, it is inline.
func inlineDocs(s string) []*yaml.Node {
	if !strings.Contains(s, "\n") && !strings.Contains(s, ":") {
		return nil
	}
	var out []*yaml.Node
	for _, d := range stream.Documents([]byte(s)) {
		var doc yaml.Node
		if yamltree.Unmarshal(d.Data, &doc) != nil {
			continue
		}
		if r := yamltree.Deref(&doc); r != nil && r.Kind == yaml.MappingNode {
			out = append(out, r)
		}
	}
	return out
}

func (t *kustTree) checkPluginDoc(k *kustFile, at Position, doc *yaml.Node, file string) {
	if doc == nil || doc.Kind != yaml.MappingNode {
		return
	}
	apiVersion, _ := yamltree.Scalar(doc, "apiVersion")
	kind, _ := yamltree.Scalar(doc, "kind")
	if kind == "" {
		return
	}
	_, meta := yamltree.Lookup(doc, "metadata", 0)
	name, _ := yamltree.Scalar(yamltree.Deref(meta), "name")
	where := ""
	if file != "" {
		where = " in " + file
	}
	switch {
	case apiVersion != "builtin":
		t.refuse(at, "kustomize plugin %s %q (apiVersion %s)%s is not run: taintlint never runs exec, container or Starlark KRM functions or legacy plugins", kind, name, apiVersion, where)
	case kind == "HelmChartInflationGenerator" && !t.enableHelm:
		t.refuse(at, "kustomize HelmChartInflationGenerator %q%s is not run: taintlint never runs helm unless run with --enable-helm", name, where)
	default:
		// A builtin plugin configuration may itself name files or URLs.
		visitRefs(doc, func(key string, s *yaml.Node) {
			if kustomize.IsRemote(s.Value, k.dir) && !t.allowRemote {
				t.refuse(at, "remote kustomize %s %q%s is not fetched: taintlint never reaches the network unless run with --allow-remote", singular(key), s.Value, where)
			}
		})
	}
}

// reachable lists the kustomization directories (symlink-resolved) that
// the kustomization in dir includes through resources, bases and
// components, transitively, without building anything.
func reachable(dir string, h Hooks) map[string]bool {
	t := newKustTree(dir, filepath.ToSlash(dir), h)
	t.scan()
	out := map[string]bool{}
	for real, k := range t.byDir {
		if k != t.root {
			out[real] = true
		}
	}
	// Plugin directories are scanned for refusals but are not included
	// as checked objects; only resources, bases and components count.
	inc := map[*kustFile]bool{}
	var mark func(k *kustFile)
	mark = func(k *kustFile) {
		for _, c := range k.children {
			if !inc[c.k] {
				inc[c.k] = true
				mark(c.k)
			}
		}
	}
	if t.root != nil {
		mark(t.root)
	}
	for real, k := range t.byDir {
		if !inc[k] {
			delete(out, real)
		}
	}
	return out
}

// Remote reads the kustomization in dir as Build does before building:
// the values of the remote references it names (sorted, each once), their
// notes, and whether the file is refused as a whole (then nothing would
// be built). The loader's tests hold it to kustomize's own reading.
func Remote(dir, name string, h Hooks) (values []string, notes []*Error, refused bool) {
	t := newKustTree(dir, name, h)
	t.scan()
	for key := range t.remoteSeen {
		values = append(values, key[1])
	}
	slices.Sort(values)
	return values, t.remote, t.fatal
}
