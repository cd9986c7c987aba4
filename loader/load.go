package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// MaxFileSize is the largest manifest file read; a larger one is an Error.
const MaxFileSize = 64 << 20

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
	out := &Result{}
	noted := map[string]bool{}
	for i, r := range results {
		out.Files = append(out.Files, r.Files...)
		out.Unmarked = append(out.Unmarked, r.Unmarked...)
		out.Objects = append(out.Objects, r.Objects...)
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
		return nil, &PathError{Path: p, Err: describeFSError(err)}
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return nil, &PathError{Path: p, Err: errors.New("not a regular file or directory")}
		}
		return fileUnits(p, opts), nil
	}
	if IsChartDir(p) && !(opts.Kustomize && KustomizationFile(p) != "") {
		return []unit{{name: filepath.ToSlash(p), path: p, kind: chartUnit}}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, &PathError{Path: p, Err: describeFSError(err)}
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
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		name := filepath.ToSlash(path)
		if err != nil {
			if path == root {
				return &PathError{Path: root, Err: describeFSError(err)}
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
			if opts.Kustomize && KustomizationFile(path) != "" {
				kustomizations = append(kustomizations, path)
				if inKust == "" {
					inKust = filepath.Clean(path)
				}
				return nil
			}
			if inKust != "" {
				return nil
			}
			if isChartTemplatesDir(path) {
				return fs.SkipDir
			}
			if IsChartDir(path) {
				units = append(units, unit{name: name, path: path, kind: chartUnit})
				return fs.SkipDir
			}
			return nil
		}
		if inKust != "" {
			return nil
		}
		if !isManifestName(d.Name()) {
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
	roots, orphans := kustRoots(kustomizations)
	for _, d := range roots {
		units = append(units, unit{name: filepath.ToSlash(d), path: d, kind: kustomizeUnit})
	}
	for _, d := range orphans {
		units = append(units, unit{name: filepath.ToSlash(d), path: d, kind: noteUnit, note: orphanNote(d)})
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

func describeFSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or directory")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	return err
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
	case errorUnit:
		if u.note != "" {
			return &Result{Errors: []*Error{{Pos: Position{File: u.name, Line: 1, Column: 1}, Msg: u.note}}}
		}
		fi, err := os.Stat(u.path)
		msg := "cannot read file"
		if err == nil && !fi.Mode().IsRegular() {
			msg = notRegular(fi.Mode()).Error()
		}
		if err != nil {
			msg = "cannot read file: " + describeFSError(err).Error()
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
			data, err = io.ReadAll(io.LimitReader(opts.Stdin, MaxFileSize+1))
			if err == nil {
				err = opts.Budget.charge(len(data))
			}
		}
	} else {
		data, err = readFile(u.path, opts.Budget)
	}
	if errors.Is(err, errBudget) {
		return &Result{fatal: &LimitError{Name: u.name, Msg: opts.Budget.overMsg()}}
	}
	if err != nil {
		return &Result{Files: []string{u.name}, Errors: []*Error{{Pos: Position{File: u.name, Line: 1, Column: 1}, Msg: "cannot read file: " + describeFSError(err).Error()}}}
	}
	if u.kind == fileUnit && isHelmTemplate(data) {
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

func checkSymlink(path string) string {
	target, err := os.Readlink(path)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(path); err != nil {
		if strings.Contains(err.Error(), "too many levels of symbolic links") {
			return fmt.Sprintf("symbolic link loop (-> %s)", target)
		}
		return fmt.Sprintf("dangling symbolic link (-> %s)", target)
	}
	return ""
}

// notRegular says what a file that is not a regular file is.
func notRegular(m fs.FileMode) error {
	what := "special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "named pipe"
	case m&fs.ModeSocket != 0:
		what = "socket"
	case m&fs.ModeDevice != 0:
		what = "device"
	case m.IsDir():
		what = "directory"
	}
	return fmt.Errorf("not a regular file (%s); not read", what)
}

// readFile reads a regular file. It is opened without blocking (openFile),
// and anything but a regular file is refused before a byte is read: a
// named pipe would block the run until a writer came, a device could
// stream without end. This holds whatever the walk saw before, since the
// file may have changed since.
func readFile(path string, b *budget) ([]byte, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("file is larger than %d MiB; not read", MaxFileSize>>20)
	}
	size := int(fi.Size())
	// Charged before a byte is read: a file that would go over is
	// never held.
	if err := b.charge(size); err != nil {
		return nil, err
	}
	// Read into a buffer of the file's size, as os.ReadFile does, rather
	// than one io.ReadAll grew by doubling: the whole file is held while
	// it is parsed (and for the run, when the caller keeps the bytes).
	data := make([]byte, 0, size+1)
	r := io.LimitReader(f, MaxFileSize+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Parse reads a YAML or JSON stream named name into objects. The result is
// that of parsing each document on its own, so one broken document does
// not hide the others (runs of sound documents share a decoder: parseRun).
// The objects keep slices of data, which must not change afterwards.
func Parse(name string, data []byte) *Result {
	return parseStream(name, data, true)
}

// ParseLean is Parse with lean's List items read lean (Options.Lean).
func ParseLean(name string, data []byte, lean *Lean) *Result {
	return parseLean(name, data, true, lean)
}

// parseStream is Parse, reading the documents the fast path is sure of
// with it when fast (fastyaml.go), and every document with yaml.v3 when
// not: the tests hold the two to one result.
func parseStream(name string, data []byte, fast bool) *Result {
	return parseLean(name, data, fast, nil)
}

// parseLean is parseStream with lean's List items read lean (lean.go).
func parseLean(name string, data []byte, fast bool, lean *Lean) *Result {
	r := &Result{}
	if len(data) > MaxFileSize {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: 1, Column: 1}, Msg: fmt.Sprintf("file is larger than %d MiB; not read", MaxFileSize>>20)})
		return r
	}
	if bytes.IndexByte(data, 0) >= 0 {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: 1, Column: 1}, Msg: "binary file (contains NUL bytes); not a manifest"})
		return r
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if strings.EqualFold(filepath.Ext(name), ".json") && jsonStream(r, name, data, fast, lean) {
		return r
	}
	docs := splitDocuments(data)
	if len(docs) < 2*parseChunk || runtime.GOMAXPROCS(0) == 1 {
		parseRun(r, name, docs, 0, fast, lean)
		return r
	}
	// A stream of many documents (kustomize build or helm template
	// output on standard input, an all-in-one manifest) is parsed on
	// every core, in chunks of documents whose results are joined in
	// order.
	chunks := make([]*Result, (len(docs)+parseChunk-1)/parseChunk)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				cr := &Result{}
				parseRun(cr, name, docs[c*parseChunk:min((c+1)*parseChunk, len(docs))], c*parseChunk, fast, lean)
				chunks[c] = cr
			}
		}()
	}
	for c := range chunks {
		next <- c
	}
	close(next)
	wg.Wait()
	for _, cr := range chunks {
		r.Objects = append(r.Objects, cr.Objects...)
		r.Skipped += cr.Skipped
		r.Errors = append(r.Errors, cr.Errors...)
	}
	return r
}

// jsonStream reads data as kubectl's decoder (apimachinery's
// YAMLOrJSONDecoder) reads a stream that starts with { or [: a series of
// JSON values, each a document; after two or more, anything that is not
// JSON is an error (kubectl stops there); after one, the rest is YAML, as
// kubectl switches to YAML, and a document there that is not a Kubernetes
// object is an error (kubectl rejects it: "Object 'Kind' is missing").
// ok is false when data does not start with a JSON value: it is YAML.
func jsonStream(r *Result, name string, data []byte, fast bool, lean *Lean) (ok bool) {
	at := func(off int, msg string) *Error {
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		col := 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off])
		return &Error{Pos: Position{File: name, Line: line, Column: col}, Msg: msg}
	}
	var docs []document
	dec := json.NewDecoder(bytes.NewReader(data))
	end, stop := 0, len(data) // stop: where the stream's JSON ends
	for {
		start := len(data) - len(bytes.TrimLeft(data[end:], " \t\r\n"))
		if start == len(data) {
			break
		}
		var skip struct{}
		err := dec.Decode(&skip)
		var te *json.UnmarshalTypeError
		if err != nil && !errors.As(err, &te) { // a top-level array into struct{} is only a type error
			if len(docs) == 0 {
				return false
			}
			if len(docs) > 1 {
				r.Errors = append(r.Errors, at(start, fmt.Sprintf("invalid JSON after %d JSON objects: kubectl reads a JSON stream and rejects the file", len(docs))))
				stop = start
				break
			}
			// One value, then YAML: kubectl goes on from the line after
			// the value, as YAML.
			rest := end
			if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 && len(bytes.TrimSpace(data[end:end+nl])) == 0 {
				rest = end + nl + 1
			}
			sub := &Result{}
			first := bytes.Count(data[:rest], []byte("\n"))
			yamlDocs := splitDocuments(data[rest:])
			for i := range yamlDocs {
				yamlDocs[i].line += first
				yamlDocs[i].off += rest
			}
			parseRun(sub, name, yamlDocs, 1, fast, lean)
			if sub.Skipped > 0 {
				r.Errors = append(r.Errors, at(start, "a document after the JSON object is not a Kubernetes object (no apiVersion or kind): kubectl rejects the file"))
			}
			docs = docs[:1]
			parseRun(r, name, docs, 0, fast, lean)
			r.Objects = append(r.Objects, sub.Objects...)
			r.Errors = append(r.Errors, sub.Errors...)
			return true
		}
		end = int(dec.InputOffset())
		docs = append(docs, document{line: bytes.Count(data[:start], []byte("\n")), off: start, data: data[start:end]})
	}
	// Each document runs to the next one's start, so that they are
	// slices of one stream, as parseRun expects.
	for i := range docs {
		if i+1 < len(docs) {
			docs[i].data = data[docs[i].off:docs[i+1].off]
		} else {
			docs[i].data = data[docs[i].off:stop]
		}
	}
	parseRun(r, name, docs, 0, fast, lean)
	return true
}

// parseChunk is how many documents of one stream a core parses at a time.
const parseChunk = 32

type document struct {
	line int // 0-based line of the first byte
	off  int // offset of the first byte in the stream
	data []byte
}

// splitDocuments cuts a stream at document markers (--- or ... at the start
// of a line followed by white space or the line's end). YAML forbids those
// inside any content, block scalars included, so the cut is exact.
func splitDocuments(data []byte) []document {
	var docs []document
	start, startLine, line := 0, 0, 0
	for i := 0; i < len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if end >= 0 {
			next = i + end + 1
		}
		l := data[i:next]
		if isMarker(l, "---") {
			if i > start {
				docs = append(docs, document{startLine, start, data[start:i]})
			}
			start, startLine = i, line
		} else if isMarker(l, "...") {
			docs = append(docs, document{startLine, start, data[start:i]})
			start, startLine = next, line+1
		}
		i = next
		line++
	}
	if start < len(data) {
		docs = append(docs, document{startLine, start, data[start:]})
	}
	return docs
}

// badByte is the 1-based line and column of the first byte that is not
// valid UTF-8 or is a control character YAML forbids.
func badByte(data []byte) (line, col int) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 || r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return 1, 1
}

// tabIndent finds the first line at or after from whose indentation holds
// a tab, and the tab's column.
func tabIndent(data []byte, from int) (line, col int) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if i+1 < from {
			continue
		}
		for j, c := range l {
			if c == '\t' {
				return i + 1, j + 1
			}
			if c != ' ' {
				break
			}
		}
	}
	return max(from, 1), 1
}

// lineCount is the number of lines in data, counting a last line without
// a newline.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return max(n, 1)
}

func isMarker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseRun parses docs, consecutive documents of one stream whose first
// is document first: each that the fast path is sure of with it (when
// fast), the runs of the others with decodeRuns.
func parseRun(r *Result, name string, docs []document, first int, fast bool, lean *Lean) {
	parseDocs(r, name, docs, first, fast, listChunk, lean)
}

// parseDocs is parseRun with the items of a List document of at least
// four times chunk bytes read on every core (readList; never when chunk
// is 0), and lean's items read lean (lean.go).
func parseDocs(r *Result, name string, docs []document, first int, fast bool, chunk int, lean *Lean) {
	if !fast {
		decodeRuns(r, name, docs, first)
		return
	}
	longest := 0
	for _, d := range docs {
		longest = max(longest, len(d.data))
	}
	// About a node for every 10 bytes of a realistic manifest (flow
	// collections are dense), and JSON about as long as its YAML.
	fp := fastParser{lean: lean, nodes: make([]fnode, 0, min(longest, 1<<20)/10+16)}
	fp.json.Grow(min(longest, 1<<20))
	slow := 0 // the first document of the run the fast path gave up on
	for i, d := range docs {
		list := readList(name, first+i, d, chunk, false, lean)
		if list == nil && !fp.parse(d.data) {
			continue
		}
		if slow < i {
			decodeRuns(r, name, docs[slow:i], first+slow)
		}
		if list != nil {
			r.Objects = append(r.Objects, list.Objects...)
			r.Skipped += list.Skipped
			r.Errors = append(r.Errors, list.Errors...)
		} else {
			fp.add(r, name, first+i, d)
		}
		slow = i + 1
	}
	if slow < len(docs) {
		decodeRuns(r, name, docs[slow:], first+slow)
	}
}

// decodeRuns parses docs, consecutive documents of one stream whose first
// is document first, with one YAML decoder: a parser made for each
// document costs more than the document (its buffers and stacks grow
// again each time). The result is that of parsing each document on its
// own (parseDocument), which the run falls back to where the two could
// differ: an error anywhere (parsed alone, a broken document hides no
// other), a directive (it belongs to the next document, which the split
// separated it from), an alias (an anchor of another document is not in
// scope alone), or a document the split sees and the decoder does not.
func decodeRuns(r *Result, name string, docs []document, first int) {
	if len(docs) == 0 {
		return
	}
	last := docs[len(docs)-1]
	run := docs[0].data[:last.off-docs[0].off+len(last.data)] // the documents are slices of one stream
	nodes, ok := decodeRun(run, docs)
	if !ok {
		for i, d := range docs {
			parseDocument(r, name, first+i, d)
		}
		return
	}
	for i, d := range docs {
		switch n := nodes[i]; {
		case n == nil:
			// Comments or blank lines only: nothing, as parsed alone.
		case !plainTree(n, 0): // aliases (or merge keys): as parsed alone
			parseDocument(r, name, first+i, d)
		default:
			addDocument(r, name, first+i, d, n, d.line-docs[0].line)
		}
	}
}

// decodeRun decodes the documents of run, the bytes of docs, and returns
// the tree of each document (nil for one the decoder saw no document in),
// or false when the run must be parsed document by document.
func decodeRun(run []byte, docs []document) (nodes []*yaml.Node, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if len(run) > 0 && run[0] == '%' || bytes.Contains(run, []byte("\n%")) {
		return nil, false
	}
	nodes = make([]*yaml.Node, len(docs))
	dec := yaml.NewDecoder(bytes.NewReader(run))
	next := 0 // the first document no node went to yet
	for {
		doc := new(yaml.Node)
		if err := dec.Decode(doc); err == io.EOF {
			break
		} else if err != nil {
			return nil, false
		}
		// The document starts on its --- line, or where its content does;
		// find the split's document holding that line.
		line := docs[0].line + doc.Line - 1
		i := next
		for i < len(docs) && docs[i].line+lineCount(docs[i].data) <= line {
			i++
		}
		if i == len(docs) || line < docs[i].line {
			return nil, false
		}
		for _, d := range docs[next:i] {
			if !blank(d.data) {
				return nil, false
			}
		}
		nodes[i], next = doc, i+1
	}
	for _, d := range docs[next:] {
		if !blank(d.data) {
			return nil, false
		}
	}
	return nodes, true
}

// blank reports whether a document holds only white space and comments.
func blank(data []byte) bool {
	for l := range bytes.Lines(data) {
		l = bytes.TrimLeft(l, " \t\r\n")
		if isMarker(l, "---") {
			l = bytes.TrimLeft(l[3:], " \t\r\n")
		}
		if len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

// parseDocument parses document index of a stream on its own.
func parseDocument(r *Result, name string, index int, d document) {
	var doc yaml.Node
	err := parseYAML(d.data, &doc)
	if err != nil {
		line, msg := 1, err.Error()
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
			// yaml.v3 reports parser errors (as opposed to scanner errors)
			// with a 0-based line: the start of the construct that failed.
			if strings.HasPrefix(msg, "did not find expected") {
				line++
			}
			// An error found at the end of the document belongs to its
			// last line, not to the next document's marker.
			if n := lineCount(d.data); line > n {
				line = n
			}
		} else {
			msg = strings.TrimPrefix(msg, "yaml: ")
		}
		col := 1
		switch {
		case strings.Contains(msg, "UTF-8"), strings.Contains(msg, "control characters"):
			// The reader reports no position: find the bad byte.
			line, col = badByte(d.data)
		case strings.HasPrefix(msg, "found a tab character"):
			// The scanner names the line of the enclosing construct;
			// the tab is on the first indented line after it.
			line, col = tabIndent(d.data, line)
		}
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.line + line, Column: col}, Msg: "invalid YAML: " + msg})
		return
	}
	addDocument(r, name, index, d, &doc, 0)
}

// addDocument adds the objects of doc, the tree of document index, whose
// node lines are shift more than the document's own (a tree decoded with
// the documents before it in one run).
func addDocument(r *Result, name string, index int, d document, doc *yaml.Node, shift int) {
	root := deref(doc)
	if root == nil || root.Kind == 0 || root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return // empty document, or only comments
	}
	if root.Kind != yaml.MappingNode {
		r.Skipped++
		return
	}
	// Every key given twice is an error, as kubectl's strict decoding
	// rejects it; the object is still checked, with the last value as
	// non-strict decoding keeps it, so its other findings are not lost.
	for {
		dup, err := duplicateKey(root, 0)
		if err != nil {
			r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.line + root.Line - shift, Column: root.Column}, Msg: err.Error()})
			return // too deep: not an object to check
		}
		if dup == nil {
			break
		}
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.line + dup.again.Line - shift, Column: dup.again.Column}, Msg: dup.message(name, d.line-shift)})
	}
	apiVersion, okA := scalar(root, "apiVersion")
	kind, okK := scalar(root, "kind")
	if !okA || !okK || apiVersion == "" || kind == "" {
		r.Skipped++
		return
	}
	src := &docSource{raw: d.data}
	if items := listItems(root, kind); items != nil {
		src.keep = len(items) > 1
		for i, orig := range items {
			it := deref(orig)
			if it == nil || it.Kind != yaml.MappingNode {
				r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.line + orig.Line - shift, Column: orig.Column}, Msg: fmt.Sprintf("%s item %d is not an object", kind, i)})
				continue
			}
			iv, _ := scalar(it, "apiVersion")
			ik, _ := scalar(it, "kind")
			if ik == "" && strings.HasSuffix(kind, "List") && kind != "List" {
				ik, iv = strings.TrimSuffix(kind, "List"), apiVersion
			}
			if iv == "" || ik == "" {
				r.Skipped++
				continue
			}
			r.addObject(newObject(name, index, i, d, src, iv, ik, it, shift), it, d.line+it.Line-shift)
		}
		return
	}
	r.addObject(newObject(name, index, -1, d, src, apiVersion, kind, root, shift), root, d.line+root.Line-shift)
}

// parseYAML is yaml.Unmarshal into a node with panics turned into errors:
// the YAML parser is the one component that sees hostile bytes first.
func parseYAML(data []byte, doc *yaml.Node) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("yaml: parser failed: %v", p)
		}
	}()
	return yaml.Unmarshal(data, doc)
}

// listItems returns the items of a List kind (List, NodeList, PodList, …).
func listItems(root *yaml.Node, kind string) []*yaml.Node {
	if !strings.HasSuffix(kind, "List") {
		return nil
	}
	_, v := lookup(root, "items", 0)
	v = deref(v)
	if v == nil {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil
	}
	if len(v.Content) == 0 {
		return []*yaml.Node{}
	}
	return v.Content
}

// newObject makes the Object of node n, read from document d. It keeps
// d's bytes, n's JSON form and the positions of n's fields, not n: the
// tree is parsed again only for an error path, or for a position in a
// document with aliases or merge keys.
func newObject(file string, doc, item int, d document, src *docSource, apiVersion, kind string, n *yaml.Node, shift int) *Object {
	o := &Object{File: file, Doc: doc, Item: item, doc: src, lineBase: d.line}
	o.APIVersion, o.Kind = apiVersion, kind
	_, meta := lookup(n, "metadata", 0)
	meta = deref(meta)
	o.Name, _ = scalar(meta, "name")
	o.Namespace, _ = scalar(meta, "namespace")
	if plainTree(n, 0) {
		hint := len(d.data) // JSON is about as long as its YAML
		if item >= 0 {
			hint = 0 // one item of a List document
		}
		// The marks share the JSON's allocation: both live for the run.
		ms, ok := appendMarks(nil, n, shift)
		if !ok {
			ms = nil
		}
		if j, err := toJSON(n, hint+len(ms), ms); err == nil {
			end := len(j) - len(ms)
			o.json = j[:end:end]
			if ms != nil {
				o.marks = j[end:]
			}
		}
	} else if _, err := ToJSON(n); err != nil {
		o.jsonErr = err
	}
	return o
}

// addObject adds o, and an Error at node n when o has no JSON form: kubectl
// could not read it, and the rules that read JSON (every Rego rule) could
// not judge it, whichever field is at fault.
func (r *Result) addObject(o *Object, n *yaml.Node, line int) {
	r.Objects = append(r.Objects, o)
	if o.jsonErr != nil {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: o.File, Line: line, Column: n.Column},
			Msg: fmt.Sprintf("%s %s cannot be read as kubectl reads it: %v", o.Kind, o.Name, o.jsonErr)})
	}
}

// plainTree reports whether n uses neither aliases nor merge keys, so that
// the value at a field path of its JSON form is exactly the JSON form of
// the node walkValue finds there.
func plainTree(n *yaml.Node, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch n.Kind {
	case yaml.AliasNode:
		return false
	case yaml.ScalarNode:
		return n.Tag != "!!merge"
	}
	for _, c := range n.Content {
		if !plainTree(c, depth+1) {
			return false
		}
	}
	return true
}

// dropDuplicateKeys removes the earlier entries of keys given twice.
func dropDuplicateKeys(n *yaml.Node) {
	for i := 0; i < 1000; i++ {
		if dup, err := duplicateKey(n, 0); dup == nil || err != nil {
			return
		}
	}
}

// duplicate is a mapping key given twice.
type duplicate struct {
	first, again *yaml.Node
	path         []step // from the key to the object's root, while found
}

// message says where the key was given first (line shifted by lines)
// and names the field the way field paths do: in the words of yaml.v3
// for YAML, and of kubectl's strict JSON decoding for a .json file.
func (d *duplicate) message(file string, lines int) string {
	path := slices.Clone(d.path)
	slices.Reverse(path)
	field := formatPath(path, make([]bool, len(path)))
	const why = "kubectl rejects the duplicate; the last value is checked"
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return fmt.Sprintf("duplicate field %q (also at line %d; %s)", field, lines+d.first.Line, why)
	}
	return fmt.Sprintf("invalid YAML: mapping key %q already defined at line %d (field %s; %s)", d.again.Value, lines+d.first.Line, field, why)
}

// duplicateKey finds a mapping key given twice, which kubectl's strict
// decoding rejects (yaml: "mapping key already defined", json: "duplicate
// field"), and removes the earlier entry from the tree, which so keeps the
// last value as non-strict decoding does. It returns nil when no key is
// given twice, and an error when the tree nests too deep to look.
func duplicateKey(n *yaml.Node, depth int) (*duplicate, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) > 2 {
			seen := make(map[string]bool, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
					continue
				}
				if seen[k.Value] {
					// Drop the earlier entry: the next call finds the
					// next duplicate, and the tree keeps the last value.
					for j := 0; j < i; j += 2 {
						if e := n.Content[j]; e.Kind == yaml.ScalarNode && e.Tag != "!!merge" && e.Value == k.Value {
							n.Content = append(n.Content[:j:j], n.Content[j+2:]...)
							return &duplicate{first: e, again: k, path: []step{{key: k.Value, index: -1}}}, nil
						}
					}
				}
				seen[k.Value] = true
			}
		}
		for i := 1; i < len(n.Content); i += 2 {
			dup, err := duplicateKey(n.Content[i], depth+1)
			if dup != nil {
				dup.path = append(dup.path, step{key: n.Content[i-1].Value, index: -1})
			}
			if dup != nil || err != nil {
				return dup, err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			dup, err := duplicateKey(c, depth+1)
			if dup != nil {
				dup.path = append(dup.path, step{index: i})
			}
			if dup != nil || err != nil {
				return dup, err
			}
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if dup, err := duplicateKey(c, depth+1); dup != nil || err != nil {
				return dup, err
			}
		}
	}
	return nil, nil
}

// SortErrors orders errors by position.
func SortErrors(errs []*Error) {
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
