package helmchart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"
	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/taintlint/taintlint/internal/helmrender"
	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
)

// A Helm chart (a directory with Chart.yaml, or a packaged .tgz) is
// rendered in-process the way `helm template` renders it: the chart's
// default values, then values files, then --set, dependencies only from the
// chart's charts/ directory, an engine with no cluster behind it (lookup
// returns an empty object, DNS lookups an empty string), so rendering
// reaches neither the network nor a program. Each rendered object keeps the
// template it came from, and its fields are located in that template or in
// the values file line that supplied them (Locator). Rendering is
// internal/helmrender: Helm's behaviour without linking Helm's engine,
// whose dependencies cost every start of taintlint (see its doc).

// defaultKubeVersion is the Kubernetes version charts are rendered for
// unless told otherwise.
const defaultKubeVersion = "v1.37.0"

// IsChartDir reports whether dir holds a Chart.yaml.
func IsChartDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && fi.Mode().IsRegular()
}

// IsChartArchive reports whether a file's name is that of a packaged chart.
func IsChartArchive(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".tgz") || strings.HasSuffix(n, ".tar.gz")
}

// Settings are the loader's HelmOptions (the loader converts them): the
// `helm template` settings charts are rendered with.
type Settings struct {
	ValuesFiles            []string
	Set                    []string
	Chart                  func(path string) (values, set []string)
	ReleaseName, Namespace string
	KubeVersion            string
	APIVersions            []string
}

// Options are how a chart is rendered: the Settings, the root no link may
// lead out of, the run's input budget its files are charged to, and the
// bounds of a render in a worker process (none: in-process).
type Options struct {
	Settings  Settings
	Root      string
	Budget    *input.Budget
	Timeout   time.Duration
	MaxMemory int64
}

// Position is a place in a file, as the loader's Position (which the
// loader converts it to).
type Position struct {
	File         string
	Line, Column int
}

// Error is an error at a position, which the loader reports as its own.
type Error struct {
	Pos Position
	Msg string
}

// Limit is a run limit the chart passed (the loader's LimitError): the
// run stops.
type Limit struct{ Name, Msg string }

func (e *Limit) Error() string { return e.Name + ": " + e.Msg }

// Chart is what rendering a chart gave: the files it read (for their
// inline directives), errors, notes, and each rendered template's output
// for the loader to read as a file, with the Locator that places its
// objects' fields in the chart's files. Skipped counts a library chart.
type Chart struct {
	Files     []string
	Errors    []Error
	Notes     []string
	Skipped   int
	Templates []Template
	Fatal     *Limit
}

// Template is a rendered template's output, named as its template file:
// Out to read, or Err when it is not read (too large).
type Template struct {
	Name string
	Out  []byte
	Err  string
	Loc  *Locator
}

// Render renders the chart at p (a directory or an archive), named
// name in positions.
func Render(ctx context.Context, p, name string, opts Options) *Chart {
	r := &Chart{}
	chartPos := Position{File: name, Line: 1, Column: 1}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		chartPos.File = path.Join(name, "Chart.yaml")
	}
	r.Files = []string{chartPos.File}
	fail := func(pos Position, format string, args ...any) *Chart {
		r.Errors = append(r.Errors, Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
		return r
	}
	// Helm's loader reads the chart itself: its files are charged to the
	// run's input budget before it does, as every other file is.
	if err := opts.Budget.Take(int(min(chartSize(p, opts.Root, opts.Budget.Left()), 1<<40))); err != nil {
		return &Chart{Fatal: &Limit{Name: name, Msg: opts.Budget.OverMsg()}}
	}
	ch, err := loadChart(p, opts.Root)
	var le *chartLinkError
	if errors.As(err, &le) {
		return fail(Position{File: path.Join(name, le.name), Line: 1, Column: 1}, "cannot load Helm chart: %s", err)
	}
	if err != nil {
		return fail(chartPos, "cannot load Helm chart: %s", err)
	}
	if t := ch.Metadata.Type; t != "" && t != "application" {
		// helm template refuses library charts: nothing to render.
		r.Skipped++
		return r
	}
	if missing := helmrender.MissingDependencies(ch); len(missing) > 0 {
		// helm template refuses the chart before rendering anything: one
		// error per dependency, at its entry, and no object to check.
		for _, m := range missing {
			r.Errors = append(r.Errors, Error{Pos: dependencyPos(ch, m, chartPos), Msg: "Helm chart not rendered: " + helmrender.MissingDependencyMsg + m})
		}
		return r
	}
	ho := opts.Settings
	var files, sets []string
	if ho.Chart != nil {
		files, sets = ho.Chart(p)
	}
	files = append(slices.Clone(files), ho.ValuesFiles...)
	sets = append(slices.Clone(sets), ho.Set...)
	vals := map[string]any{}
	var valueDocs []valuesDoc
	for _, f := range files {
		data, err := input.ReadFile(f, opts.Budget)
		if errors.Is(err, input.ErrOver) {
			return &Chart{Fatal: &Limit{Name: filepath.ToSlash(f), Msg: opts.Budget.OverMsg()}}
		}
		if err != nil {
			return fail(chartPos, "values file %s: %s", f, input.DescribeFSError(err))
		}
		m := map[string]any{}
		if err := sigsyaml.Unmarshal(data, &m); err != nil {
			return fail(Position{File: filepath.ToSlash(f), Line: 1, Column: 1}, "values file: %s", err)
		}
		vals = mergeValues(vals, m)
		valueDocs = append(valueDocs, valuesDoc{name: filepath.ToSlash(f), data: data})
		r.Files = append(r.Files, filepath.ToSlash(f))
	}
	for _, s := range sets {
		if err := strvals.ParseInto(s, vals); err != nil {
			return fail(chartPos, "--set %s: %s", s, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return r
	}
	res, err := renderLimited(ctx, name, ch, vals, valueDocs, sets, opts)
	var limit *Limit
	if errors.As(err, &limit) {
		return &Chart{Fatal: limit}
	}
	if err != nil && ctx.Err() != nil {
		return r
	}
	if err != nil {
		return fail(helmErrorPos(err, ch, name, chartPos), "Helm chart failed to render: %s", strings.TrimSpace(err.Error()))
	}
	for _, u := range res.Unchecked {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: values.schema.json of chart %s not checked (Helm checks it): %s", chartPos.File, u.Chart, u.Why))
	}
	// Values files from the command line are searched first: they win
	// over the chart's defaults, so a field equal to both came from them.
	slices.Reverse(valueDocs)
	vi := &valuesIndex{sets: sets}
	for _, d := range valueDocs {
		vi.sources = append(vi.sources, &valuesSource{valuesDoc: d})
	}
	vi.sources = append(vi.sources, chartValuesSources(ch, name, nil)...)
	for _, src := range vi.sources {
		vi.docs = append(vi.docs, src.valuesDoc)
		if !slices.Contains(r.Files, src.name) {
			// A chart's own values files are read for their inline
			// directives too (a finding located there may be ignored
			// there); values inside an archive are no file.
			if fi, err := os.Stat(filepath.FromSlash(src.name)); err == nil && fi.Mode().IsRegular() {
				r.Files = append(r.Files, src.name)
			}
		}
	}
	templates := chartTemplates(ch, name)
	rendered := res.Manifests
	keys := slices.Sorted(maps.Keys(rendered))
	for _, key := range keys {
		if strings.HasPrefix(path.Base(key), "_") || strings.HasSuffix(key, "NOTES.txt") {
			continue // partials and notes are not manifests
		}
		tpl, ok := templates[key]
		if !ok {
			// Never dropped: a template this side cannot name is checked
			// under the engine's name for it, located at its first line.
			tpl = &helmTemplate{name: path.Join(name, strings.TrimPrefix(key, ch.Name()+"/"))}
		}
		out := rendered[key]
		if strings.TrimSpace(out) == "" {
			continue
		}
		if len(out) > input.MaxFileSize {
			// The loader would refuse it too; reading it as Helm's
			// manifest check does first took a minute per 300 MB.
			r.Files = append(r.Files, tpl.name)
			r.Templates = append(r.Templates, Template{Name: tpl.name, Err: fmt.Sprintf("file is larger than %d MiB; not read (in the rendered template)", input.MaxFileSize>>20)})
			continue
		}
		if err := checkHelmManifests(key, out); err != nil {
			// helm template fails the whole chart on a document it cannot read.
			return &Chart{Files: r.Files, Errors: []Error{{Pos: Position{File: tpl.name, Line: 1, Column: 1}, Msg: "Helm chart failed to render: " + err.Error()}}}
		}
		r.Files = append(r.Files, tpl.name)
		r.Templates = append(r.Templates, Template{Name: tpl.name, Out: []byte(out), Loc: newLocator(tpl, []byte(out), vi, res.Uses[key])})
	}
	return r
}

// chartSize is the bytes Helm's loader may hold for the chart at p (an
// archive counted unpacked, up to limit: chartFileSize): the archive, or
// every regular file below the directory, through the links the chart's
// walk follows (chartWalk), counted at their target's size.
func chartSize(p string, root string, limit int64) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	if !fi.IsDir() {
		return chartFileSize(p, fi, limit)
	}
	var n int64
	w, err := newChartWalk(p, root)
	if err != nil {
		return 0
	}
	w.visit = func(file, _ string, fi fs.FileInfo) error {
		n += chartFileSize(file, fi, limit) // archives unpacked
		return nil
	}
	w.tolerant = true
	w.walk(w.top)
	return n
}

// loadChart loads a chart directory or archive, turning Helm's panics on
// odd archives into errors. root is the repository's root ("" for none):
// a link in a chart directory may lead anywhere inside it.
func loadChart(p, root string) (ch *chart.Chart, err error) {
	defer func() {
		if x := recover(); x != nil {
			ch, err = nil, fmt.Errorf("%v", x)
		}
	}()
	if fi, serr := os.Stat(p); serr == nil && fi.IsDir() {
		ch, err = loadChartDir(p, root)
	} else {
		ch, err = chartloader.Load(p)
	}
	if err == nil {
		err = ch.Validate()
	}
	return ch, err
}

// chartLinkError is a symbolic link in a chart directory that the chart
// loader refuses to follow.
type chartLinkError struct {
	name, msg string // name: the link, relative to the chart, slash-separated
}

func (e *chartLinkError) Error() string { return e.name + ": " + e.msg }

// chartWalk is the walk of a chart directory that Helm's loader.LoadDir
// does (its sympath.Walk, which follows every link, in name order), held
// inside the repository: Helm's own walk follows links to files and
// directories anywhere on the disk (a chart could read /etc/passwd into
// .Files, or loop through a link to its own directory, listing the tree
// again at each level). Here a link is followed when its target lies
// inside the chart or the repository's root (a library chart linked
// into charts/ from elsewhere in the repository, as rook does), and a
// link to a directory unless that directory is already being walked (a
// loop). Any other link is refused, naming it. Files under a followed
// link are named by the link's path, as Helm names them.
type chartWalk struct {
	top, realTop string
	allowed      []string      // real directories links may lead into
	rules        *ignore.Rules // nil: none (sizing)
	// visit gets each regular file (its path, its name in the chart and
	// its information, a link's target's).
	visit func(file, name string, fi fs.FileInfo) error
	// tolerant skips what cannot be read instead of failing (sizing).
	tolerant bool
	walking  map[string]bool // real directories on the walk's path
}

func newChartWalk(dir, root string) (*chartWalk, error) {
	top, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, err
	}
	w := &chartWalk{top: top, realTop: realTop, allowed: []string{realTop}, walking: map[string]bool{}}
	if root != "" {
		if r, err := filepath.Abs(root); err == nil {
			if real, err := filepath.EvalSymlinks(r); err == nil {
				w.allowed = append(w.allowed, real)
			}
		}
	}
	return w, nil
}

// inside reports whether the real path target lies in an allowed directory.
func (w *chartWalk) inside(target string) bool {
	for _, dir := range w.allowed {
		if in, err := filepath.Rel(dir, target); err == nil && filepath.IsLocal(in) {
			return true
		}
	}
	return false
}

// outsideMsg says where a refused link leads.
func (w *chartWalk) outsideMsg() string {
	if len(w.allowed) > 1 {
		return "symbolic link leads outside the repository: not followed (Helm would read what it names into the chart)"
	}
	return "symbolic link leads outside the chart: not followed (Helm would read what it names into the chart)"
}

func (w *chartWalk) walk(d string) error {
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return err
	}
	w.walking[real] = true
	defer delete(w.walking, real)
	entries, err := os.ReadDir(d)
	if err != nil {
		return err
	}
	for _, e := range entries { // sorted by name, as Helm's walk
		file := filepath.Join(d, e.Name())
		rel, _ := filepath.Rel(w.top, file)
		n := filepath.ToSlash(rel)
		fi, err := os.Lstat(file)
		if err != nil {
			if w.tolerant {
				continue
			}
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(file)
			switch {
			case err != nil:
				if w.tolerant {
					continue
				}
				return &chartLinkError{name: n, msg: fmt.Sprintf("symbolic link does not resolve: %s", input.DescribeFSError(err))}
			case !w.inside(target):
				if w.tolerant {
					continue
				}
				return &chartLinkError{name: n, msg: w.outsideMsg()}
			}
			if fi, err = os.Stat(target); err != nil {
				if w.tolerant {
					continue
				}
				return err
			}
			if fi.IsDir() && w.walking[target] {
				if w.tolerant {
					continue
				}
				return &chartLinkError{name: n, msg: "symbolic link to a directory that holds it: not followed (a loop)"}
			}
		}
		if w.rules != nil && w.rules.Ignore(n, fi) {
			continue
		}
		if fi.IsDir() {
			if err := w.walk(file); err != nil {
				return err
			}
			continue
		}
		if !fi.Mode().IsRegular() {
			if w.tolerant {
				continue
			}
			return fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", file)
		}
		if err := w.visit(file, n, fi); err != nil {
			return err
		}
	}
	return nil
}

// loadChartDir is Helm's loader.LoadDir over chartWalk: the walk reads
// the files and hands them to Helm (loader.LoadFiles), so Helm never
// opens a path. Everything else is as LoadDir does it: .helmignore and
// Helm's default rules, irregular files refused, the size limit, a
// byte-order mark dropped.
func loadChartDir(dir, root string) (*chart.Chart, error) {
	w, err := newChartWalk(dir, root)
	if err != nil {
		return nil, err
	}
	rules, err := readHelmIgnore(w.top, w.realTop)
	if err != nil {
		return nil, err
	}
	rules.AddDefaults()
	w.rules = rules
	var files []*chartloader.BufferedFile
	w.visit = func(file, n string, fi fs.FileInfo) error {
		if fi.Size() > chartloader.MaxDecompressedFileSize {
			return fmt.Errorf("chart file %q is larger than the maximum file size %d", fi.Name(), chartloader.MaxDecompressedFileSize)
		}
		data, err := input.ReadFile(file, nil) // charged with the chart (chartSize)
		if err != nil {
			return fmt.Errorf("error reading %s: %w", n, err)
		}
		files = append(files, &chartloader.BufferedFile{Name: n, Data: bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))})
		return nil
	}
	if err := w.walk(w.top); err != nil {
		return &chart.Chart{}, err
	}
	return chartloader.LoadFiles(files)
}

// renderValues is the part of helm template that follows reading values:
// dependencies, the kubeVersion check, the render values and the engine.
// unchecked names the schemas (values.schema.json) that could not be
// checked exactly, and why.
func renderValues(ch *chart.Chart, vals map[string]any, ho Settings) (*helmrender.Result, error) {
	kv := ho.KubeVersion
	if kv == "" {
		kv = defaultKubeVersion
	}
	v, err := helmrender.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("kube version: %w", err)
	}
	rel := helmrender.Release{Name: ho.ReleaseName, Namespace: ho.Namespace}
	if rel.Name == "" {
		rel.Name = "release-name"
	}
	if rel.Namespace == "" {
		rel.Namespace = "default"
	}
	return helmrender.Render(ch, vals, helmrender.Options{Release: rel, Capabilities: helmrender.NewCapabilities(*v, ho.APIVersions)})
}

// checkHelmManifests reads every document of a rendered template as helm
// template does (releaseutil.SortManifests), which fails on one it cannot
// read.
func checkHelmManifests(key, out string) error {
	return helmrender.CheckManifests(key, out)
}

// mergeValues merges src over dst as helm merges values files: maps
// recursively, anything else replaced.
func mergeValues(dst, src map[string]any) map[string]any {
	out := maps.Clone(dst)
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(dm, sm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// helmTemplate is one template file of a chart.
type helmTemplate struct {
	name    string // as named in positions
	data    []byte
	helpers []*helmTemplate // the partials of the same chart
}

// chartTemplates maps the engine's template names (mychart/templates/x,
// mychart/charts/sub/templates/y) to the templates, named under name.
func chartTemplates(ch *chart.Chart, name string) map[string]*helmTemplate {
	out := map[string]*helmTemplate{}
	var visit func(c *chart.Chart, full, dir string)
	visit = func(c *chart.Chart, full, dir string) {
		var helpers []*helmTemplate
		var all []*helmTemplate
		for _, f := range c.Templates {
			t := &helmTemplate{name: path.Join(dir, f.Name), data: f.Data}
			out[path.Join(full, f.Name)] = t
			all = append(all, t)
			if strings.HasPrefix(path.Base(f.Name), "_") {
				helpers = append(helpers, t)
			}
		}
		for _, t := range all {
			t.helpers = helpers
		}
		for _, d := range c.Dependencies() {
			for _, as := range renderedNames(c, d) {
				visit(d, path.Join(full, "charts", as), subchartDir(c, d, dir))
			}
		}
	}
	visit(ch, ch.Name(), name)
	return out
}

// renderedNames are the names a loaded subchart d of c renders under: the
// alias of each requirement naming it (helm renders one copy per alias),
// its own name for a requirement without one or when none names it.
func renderedNames(c, d *chart.Chart) []string {
	var names []string
	for _, req := range c.Metadata.Dependencies {
		if req == nil || req.Name != d.Name() {
			continue
		}
		as := req.Name
		if req.Alias != "" {
			as = req.Alias
		}
		if !slices.Contains(names, as) {
			names = append(names, as)
		}
	}
	if len(names) == 0 {
		names = []string{d.Name()}
	}
	return names
}

// subchartDir is where a dependency's files are named: its directory
// under charts/ when it is one, else the archive it came from.
func subchartDir(parent, dep *chart.Chart, dir string) string {
	d := path.Join(dir, "charts", dep.Name())
	if fi, err := os.Stat(filepath.FromSlash(d)); err == nil && fi.IsDir() {
		return d
	}
	for _, f := range parent.Raw {
		if strings.HasPrefix(f.Name, "charts/"+dep.Name()) && IsChartArchive(f.Name) {
			return path.Join(dir, f.Name)
		}
	}
	return d
}

// chartValuesSources lists the values.yaml of a chart and its
// dependencies, a chart before its subcharts (its values win over
// theirs), each at the path its values stand at in the rendered values:
// prefix, then the subchart's name or alias.
func chartValuesSources(c *chart.Chart, dir string, prefix []string) []*valuesSource {
	var out []*valuesSource
	for _, f := range c.Raw {
		if f.Name == "values.yaml" || f.Name == "values.yml" {
			out = append(out, &valuesSource{valuesDoc: valuesDoc{name: path.Join(dir, f.Name), data: f.Data}, prefix: prefix})
		}
	}
	for _, d := range c.Dependencies() {
		for _, as := range renderedNames(c, d) {
			out = append(out, chartValuesSources(d, subchartDir(c, d, dir), append(slices.Clip(prefix), as))...)
		}
	}
	return out
}

// helmErrRE finds the template and position Helm's errors name:
// "template: c/templates/x.yaml:12:3: executing ..." or
// "execution error at (c/templates/x.yaml:5:12): ..." or
// "parse error at (c/templates/x.yaml:7): ...".
var helmErrRE = regexp.MustCompile(`([^\s():]+/templates/[^\s():]+):(\d+)(?::(\d+))?`)

// helmErrorPos is the position of the template a render error names, or at.
func helmErrorPos(err error, ch *chart.Chart, name string, at Position) Position {
	var m []string
	for _, mm := range helmErrRE.FindAllStringSubmatch(err.Error(), -1) {
		m = mm // the innermost (last) named template is the cause
	}
	if m == nil {
		// "YAML parse error on c/templates/x.yaml: ..."
		if i := strings.Index(err.Error(), "/templates/"); i >= 0 {
			s := err.Error()
			start := strings.LastIndexAny(s[:i], " \t(") + 1
			end := strings.IndexAny(s[i:], ": \t)")
			if end > 0 {
				if t := chartTemplates(ch, name)[s[start:i+end]]; t != nil {
					return Position{File: t.name, Line: 1, Column: 1}
				}
			}
		}
		return at
	}
	t := chartTemplates(ch, name)[m[1]]
	if t == nil {
		return at
	}
	line, _ := strconv.Atoi(m[2])
	col := 1
	if m[3] != "" {
		col, _ = strconv.Atoi(m[3])
	}
	return Position{File: t.name, Line: max(line, 1), Column: max(col, 1)}
}

// dependencyPos is the line of the requirement named dep in the chart's
// Chart.yaml (requirements.yaml for an apiVersion v1 chart), or at when
// the chart is an archive or the entry cannot be found.
func dependencyPos(ch *chart.Chart, dep string, at Position) Position {
	if path.Base(at.File) != "Chart.yaml" {
		return at // an archive: its files have no place on the disk
	}
	for _, f := range ch.Raw {
		if f.Name != "Chart.yaml" && f.Name != "requirements.yaml" {
			continue
		}
		var doc yaml.Node
		if yamltree.Unmarshal(f.Data, &doc) != nil {
			continue
		}
		root := yamltree.Deref(&doc)
		if root == nil || root.Kind != yaml.MappingNode {
			continue
		}
		_, deps := yamltree.Lookup(root, "dependencies", 0)
		if deps = yamltree.Deref(deps); deps == nil || deps.Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range deps.Content {
			if e = yamltree.Deref(e); e == nil || e.Kind != yaml.MappingNode {
				continue
			}
			if k, v := yamltree.Lookup(e, "name", 0); k != nil && v.Kind == yaml.ScalarNode && v.Value == dep {
				return Position{File: path.Join(path.Dir(at.File), f.Name), Line: k.Line, Column: k.Column}
			}
		}
	}
	return at
}
