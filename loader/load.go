package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/taintlint/taintlint/loader/internal/helmchart"
	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/kusttree"
)

// Options control how paths are read.
type Options struct {
	// Kustomize builds directories that hold a kustomization file instead
	// of walking them.
	Kustomize bool
	// KustomizeFileRoots, with Kustomize, checks a named file that lies in
	// a Kustomize tree through its kustomization root (see filearg.go). Off
	// for the node inventory: a file named as nodes is read as it is.
	KustomizeFileRoots bool
	// AllowRemote lets Kustomize fetch remote bases and files: git
	// repositories are cloned with the git program, URLs read over HTTP.
	// Off, every remote reference is an Error and nothing is fetched.
	AllowRemote bool
	// EnableHelm lets Kustomize inflate helmCharts by running the helm
	// program found on PATH, as kustomize build --enable-helm does (helm
	// may pull a chart into the kustomization's chartHome). Off, Helm
	// charts are an Error and helm never runs.
	EnableHelm bool
	// Helm are the settings Helm charts are rendered with.
	Helm HelmOptions
	// Stdin is read for the path "-", and named StdinName in positions
	// ("-" when empty).
	Stdin     io.Reader
	StdinName string
	// Ignore reports whether a file or directory (slash path as it will be
	// named in findings) is left out of a directory walk.
	Ignore func(path string, dir bool) bool
	// Limits bound what the run reads and builds; Budget, when set, is the
	// input budget shared with other Loads of the same run (else Load
	// makes one of Limits.InputBytes).
	Limits Limits
	Budget *Budget
	// Root, when set, is the repository's root: a symbolic link met in a
	// directory walk whose target is outside it (and outside the walked
	// directory) is an Error at the link, never followed (root.go).
	Root string
	// Lean, when set, is a kind of List item read lean (lean.go).
	Lean *Lean
	// Marker, when set, is looked for in the bytes of each file read (and
	// standard input): Result.Unmarked lists those that do not hold it,
	// so a caller that looks for it in the files (the driver's inline
	// directives) need not read them again.
	Marker []byte
	// Terraform: a walk also reads Terraform configuration (.tf),
	// variable definitions (.tfvars) and terraform show -json output
	// into Result.Terraform, for the node inventory's pools.
	Terraform bool
}

// Error is a file or document that could not be read as Kubernetes objects.
type Error struct {
	Pos Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Result is everything read from a set of paths.
type Result struct {
	Files   []string  // every file read, in order
	Objects []*Object // Kubernetes objects, in file and document order
	Skipped int       // documents that are not Kubernetes objects (no apiVersion or kind), and Helm template files
	Errors  []*Error
	// Hidden are the manifest files a directory walk left out because
	// their names start with a dot, as named in positions.
	Hidden []string
	// fatal is a limit the unit went over: it fails the run.
	fatal error
	// Notes say what was left unchecked and why (a Kustomize Component no
	// kustomization includes).
	Notes []string
	// Focus is set when kustomizations were built only because files in
	// their trees were named: findings on their objects count only in
	// those files.
	Focus *Focus
	// Unmarked are the files of Files read whole whose bytes do not hold
	// Options.Marker (none without a marker).
	Unmarked []string
	// Terraform are the Terraform files read (Options.Terraform).
	Terraform []TerraformFile
	// included, for a Kustomize build that succeeded, are the files it
	// read (canonical paths); nil for anything else.
	included map[string]bool
}

// Focus limits the findings of objects built for named files to those
// files: a pre-commit run on one changed base file reports what is wrong
// in that file, through every overlay that includes it, and not the rest
// of the overlays.
type Focus struct {
	Files map[string]bool // the named files, as named in positions
	// Objects are the objects built for them (findings name objects by
	// Ref), less those a path checked as a whole holds too.
	Objects map[Ref]bool
}

// Keeps reports whether a finding at pos on the object ref (nil for
// none) is kept.
func (f *Focus) Keeps(ref *Ref, pos Position) bool {
	return f == nil || ref == nil || !f.Objects[*ref] || f.Files[pos.File]
}

// PathError is a path given on the command line that cannot be read; it
// fails the run.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// Load reads every path: files, directories (walked recursively, hidden
// directories skipped, kustomization directories built when opts.Kustomize),
// or "-" for standard input. A path that does not exist or cannot be read
// is a *PathError; a bad file inside a directory is an Error in the result.
func Load(ctx context.Context, paths []string, opts Options) (*Result, error) {
	units, err := expandPaths(paths, opts)
	if err != nil {
		return nil, err
	}
	if opts.Budget == nil {
		opts.Budget = NewBudget(opts.Limits.InputBytes)
	}
	results := make([]*Result, len(units))
	work := make(chan int)
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(units))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = units[i].load(ctx, opts)
			}
		}()
	}
	for i := range units {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, r := range results {
		if r != nil && r.fatal != nil {
			return nil, r.fatal
		}
	}
	leftovers, err := readLeftovers(ctx, units, results, opts)
	if err != nil {
		return nil, err
	}
	out := &Result{}
	if leftovers != "" {
		out.Notes = append(out.Notes, leftovers)
	}
	noted := map[string]bool{}
	for i, r := range results {
		out.Files = append(out.Files, r.Files...)
		out.Unmarked = append(out.Unmarked, r.Unmarked...)
		out.Objects = append(out.Objects, r.Objects...)
		out.Terraform = append(out.Terraform, r.Terraform...)
		out.Skipped += r.Skipped
		out.Errors = append(out.Errors, r.Errors...)
		out.Hidden = append(out.Hidden, r.Hidden...)
		for _, n := range r.Notes {
			// Overlays that share a base each note its remote references.
			if !noted[n] {
				noted[n] = true
				out.Notes = append(out.Notes, n)
			}
		}
		if u := units[i]; len(u.focus) > 0 {
			if out.Focus == nil {
				out.Focus = &Focus{Files: map[string]bool{}, Objects: map[Ref]bool{}}
			}
			for _, f := range u.focus {
				out.Focus.Files[f] = true
			}
			for _, o := range r.Objects {
				out.Focus.Objects[o.Ref] = true
			}
		}
	}
	if out.Focus != nil {
		for i, r := range results {
			if len(units[i].focus) == 0 {
				for _, o := range r.Objects {
					delete(out.Focus.Objects, o.Ref)
				}
			}
		}
	}
	return out, nil
}

// unit is one thing to read: a file, standard input, or a kustomization.
type unit struct {
	name string // as named in positions
	path string // on disk
	kind unitKind
	// focus, for a kustomization built because files in its tree were
	// named, lists those files (as named in positions): only findings in
	// them are reported.
	focus []string
	note  string // for a noteUnit, or why an errorUnit is not read
	// owner, for a leftoverUnit, is the kustomization directory of the
	// walk it lies under.
	owner string
}

type unitKind int

const (
	fileUnit unitKind = iota
	stdinUnit
	kustomizeUnit
	chartUnit  // a Helm chart directory or archive
	noteUnit   // nothing to read; a note for the report
	errorUnit  // unreadable entry met during a walk
	hiddenUnit // manifest file with a name starting with a dot, left out of a walk
	// leftoverUnit is a manifest file under a kustomization directory of
	// a walk: read as a fileUnit when no build read it (Load).
	leftoverUnit
	// terraformUnit is a Terraform file (Options.Terraform).
	terraformUnit
)

func expand(p string, opts Options) ([]unit, error) {
	if p == "-" {
		name := opts.StdinName
		if name == "" {
			name = "-"
		}
		return []unit{{name: name, kind: stdinUnit}}, nil
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, &PathError{Path: p, Err: input.DescribeFSError(err)}
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return nil, &PathError{Path: p, Err: errors.New("not a regular file or directory")}
		}
		return fileUnits(p, opts), nil
	}
	if helmchart.IsChartDir(p) && !(opts.Kustomize && kusttree.File(p) != "") {
		return []unit{{name: filepath.ToSlash(p), path: p, kind: chartUnit}}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, &PathError{Path: p, Err: input.DescribeFSError(err)}
	}
	f.Close()
	return walkDir(p, opts)
}

func walkDir(root string, opts Options) ([]unit, error) {
	var units []unit
	var kustomizations []string
	// inKust is the kustomization directory the walk is below: its files
	// are its resources and patches, not manifests of their own, and only
	// kustomizations nested in it are looked for.
	inKust := ""
	kustDirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		name := filepath.ToSlash(path)
		if err != nil {
			if path == root {
				return &PathError{Path: root, Err: input.DescribeFSError(err)}
			}
			units = append(units, unit{name: name, path: path, kind: errorUnit})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if inKust != "" && !strings.HasPrefix(path, inKust+string(filepath.Separator)) {
			inKust = ""
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if path != root && opts.Ignore != nil && opts.Ignore(name, true) {
				return fs.SkipDir
			}
			if opts.Kustomize && kusttree.File(path) != "" {
				kustomizations = append(kustomizations, path)
				kustDirs[filepath.Clean(path)] = true
				if inKust == "" {
					inKust = filepath.Clean(path)
				}
				return nil
			}
			if inKust != "" {
				return nil
			}
			if helmchart.IsTemplatesDir(path) {
				return fs.SkipDir
			}
			if helmchart.IsChartDir(path) {
				units = append(units, unit{name: name, path: path, kind: chartUnit})
				return fs.SkipDir
			}
			return nil
		}
		if opts.Terraform && isTerraformName(d.Name()) && inKust == "" && !strings.HasPrefix(d.Name(), ".") && (opts.Ignore == nil || !opts.Ignore(name, false)) {
			if d.Type().IsRegular() {
				units = append(units, unit{name: name, path: path, kind: terraformUnit})
			}
			return nil
		}
		if !isManifestName(d.Name()) {
			return nil
		}
		if inKust != "" {
			// A file of a kustomization tree: checked through the builds
			// that read it, or alone when none does (Load).
			if !strings.HasPrefix(d.Name(), ".") && (opts.Ignore == nil || !opts.Ignore(name, false)) && d.Type().IsRegular() {
				units = append(units, unit{name: name, path: path, kind: leftoverUnit, owner: nearestKustomization(path, inKust, kustDirs)})
			}
			return nil
		}
		if opts.Ignore != nil && opts.Ignore(name, false) {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			units = append(units, unit{name: name, path: path, kind: hiddenUnit})
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if why := linkOutside(opts, root, path); why != "" {
				units = append(units, unit{name: name, path: path, kind: errorUnit, note: why})
				return nil
			}
			// Symlinked files are read; symlinked directories are never
			// followed, so a link loop cannot trap the walk.
			fi, err := os.Stat(path)
			if err != nil || !fi.Mode().IsRegular() {
				units = append(units, unit{name: name, path: path, kind: errorUnit})
				return nil
			}
		} else if !d.Type().IsRegular() {
			// A named pipe, socket or device: reported, never opened.
			units = append(units, unit{name: name, path: path, kind: errorUnit})
			return nil
		}
		units = append(units, unit{name: name, path: path, kind: fileUnit})
		return nil
	})
	if err != nil {
		return nil, err
	}
	roots, orphans := kusttree.Roots(kustomizations, kustHooks(opts))
	for _, d := range roots {
		units = append(units, unit{name: filepath.ToSlash(d), path: d, kind: kustomizeUnit})
	}
	for _, d := range orphans {
		units = append(units, unit{name: filepath.ToSlash(d), path: d, kind: noteUnit, note: kusttree.OrphanNote(d)})
	}
	return units, nil
}

func isManifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func (u unit) load(ctx context.Context, opts Options) *Result {
	switch u.kind {
	case kustomizeUnit:
		return buildKustomization(ctx, u.path, u.name, opts)
	case hiddenUnit:
		return &Result{Hidden: []string{u.name}}
	case chartUnit:
		return renderChart(ctx, u.path, u.name, opts)
	case noteUnit:
		return &Result{Notes: []string{u.note}}
	case leftoverUnit:
		return &Result{} // Load reads it, when no build included it
	case errorUnit:
		if u.note != "" {
			return &Result{Errors: []*Error{{Pos: Position{File: u.name, Line: 1, Column: 1}, Msg: u.note}}}
		}
		fi, err := os.Stat(u.path)
		msg := "cannot read file"
		if err == nil && !fi.Mode().IsRegular() {
			msg = input.NotRegular(fi.Mode()).Error()
		}
		if err != nil {
			msg = "cannot read file: " + input.DescribeFSError(err).Error()
			if lerr := checkSymlink(u.path); lerr != "" {
				msg = lerr
			}
		}
		return &Result{Errors: []*Error{{Pos: Position{File: u.name, Line: 1, Column: 1}, Msg: msg}}}
	}
	var data []byte
	var err error
	if u.kind == stdinUnit {
		if opts.Stdin == nil {
			err = errors.New("no standard input")
		} else {
			data, err = io.ReadAll(io.LimitReader(opts.Stdin, input.MaxFileSize+1))
			if err == nil {
				err = opts.Budget.input().Take(len(data))
			}
		}
	} else {
		data, err = input.ReadFile(u.path, opts.Budget.input())
	}
	if err == nil && (u.kind == terraformUnit || opts.Terraform && isTerraformJSON(data)) {
		return &Result{Files: []string{u.name}, Terraform: []TerraformFile{{Name: u.name, Data: data}}}
	}
	if errors.Is(err, input.ErrOver) {
		return &Result{fatal: &LimitError{Name: u.name, Msg: opts.Budget.input().OverMsg()}}
	}
	if err != nil {
		return &Result{Files: []string{u.name}, Errors: []*Error{{Pos: Position{File: u.name, Line: 1, Column: 1}, Msg: "cannot read file: " + input.DescribeFSError(err).Error()}}}
	}
	if u.kind == fileUnit && helmchart.IsTemplate(data) {
		return &Result{Skipped: 1}
	}
	// The marker is looked for while the bytes are held: in a large file
	// (a long List, which is parsed on every core) while it is parsed.
	var unmarked chan bool
	if len(opts.Marker) > 0 {
		unmarked = make(chan bool, 1)
		search := func() { unmarked <- !bytes.Contains(data, opts.Marker) }
		if len(data) < 1<<20 {
			search()
		} else {
			go search()
		}
	}
	r := parseLean(u.name, data, true, opts.Lean)
	r.Files = []string{u.name}
	if unmarked != nil && <-unmarked {
		r.Unmarked = r.Files
	}
	if u.kind == fileUnit {
		// Trees are parsed again from the file on the rare paths that
		// need them; the file's bytes are not held for the run.
		releaseDocs(r.Objects, u.path, data)
	}
	return r
}

// sortErrors orders errors by position.
func sortErrors(errs []*Error) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].Pos, errs[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// nearestKustomization is the innermost kustomization directory of the
// walk (kusts) that holds path, below or at top: a leftover belongs to
// it, so that a patch of a Component nothing includes is not taken for a
// manifest because a kustomization above the Component was built.
func nearestKustomization(path, top string, kusts map[string]bool) string {
	for dir := filepath.Dir(path); len(dir) > len(top); dir = filepath.Dir(dir) {
		if kusts[dir] {
			return dir
		}
	}
	return top
}

// readLeftovers reads, as plain files, the manifest files under the
// walk's kustomization directories that no Kustomize build read: kubectl
// apply -k would not apply them, but kubectl apply -f of the directory
// would, and a file left out of every kustomization by mistake is the
// case that matters. Only files under a kustomization that some build
// read without error are read so: under one whose builds failed, or a
// Component nothing includes, whether a build would include a file is
// not known. The note says how many and why ("" for none).
func readLeftovers(ctx context.Context, units []unit, results []*Result, opts Options) (string, error) {
	included := map[string]bool{}
	for i, u := range units {
		if r := results[i]; u.kind == kustomizeUnit && r != nil {
			for p := range r.included {
				included[p] = true
			}
		}
	}
	var names []string
	for i, u := range units {
		if u.kind != leftoverUnit || included[canonicalPath(u.path)] || !included[canonicalPath(kusttree.File(u.owner))] {
			continue
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		file := u
		file.kind = fileUnit
		r := file.load(ctx, opts)
		if r.fatal != nil {
			return "", r.fatal
		}
		results[i] = r
		if len(r.Objects) > 0 || len(r.Errors) > 0 {
			names = append(names, u.name)
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	shown, more := names, ""
	if len(names) > 3 {
		shown, more = names[:3], fmt.Sprintf(" and %d more", len(names)-3)
	}
	return fmt.Sprintf("%d file(s) under kustomization directories that no kustomization includes were checked as plain files (kubectl apply -k would not apply them): %s%s", len(names), strings.Join(shown, ", "), more), nil
}

// canonicalPath is p absolute, with symbolic links resolved where it
// exists, so that a build's reads and a walk's files compare.
func canonicalPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}
