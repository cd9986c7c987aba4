package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/taintlint/taintlint/loader/internal/fastyaml"
	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/stream"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
)

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
	if len(data) > input.MaxFileSize {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: 1, Column: 1}, Msg: fmt.Sprintf("file is larger than %d MiB; not read", input.MaxFileSize>>20)})
		return r
	}
	if bytes.IndexByte(data, 0) >= 0 {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: 1, Column: 1}, Msg: "binary file (contains NUL bytes); not a manifest"})
		return r
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if (strings.EqualFold(filepath.Ext(name), ".json") || jsonFirst(data)) && jsonStream(r, name, data, fast, lean) {
		return r
	}
	from := 0
	if jsonFirst(data) {
		from = yamlAfterJSON(data, 0) // no JSON value read
	}
	docs, issues := stream.Split(data[from:], true)
	if from > 0 {
		first := bytes.Count(data[:from], []byte("\n"))
		for i := range docs {
			docs[i].Line += first
			docs[i].Off += from
		}
		defer addSplitIssues(r, name, issues, first)
	} else {
		defer addSplitIssues(r, name, issues, 0)
	}
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

// jsonFirst reports whether kubectl's decoder (YAMLOrJSONDecoder) reads
// data as a stream of JSON values, whatever the file's name: it does when
// the first of its first 4096 bytes that is not white space is {.
func jsonFirst(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(data[:min(len(data), 4096)], unicode.IsSpace), []byte("{"))
}

// yamlAfterJSON is where kubectl's decoder goes on as YAML when the JSON
// value at end of data fails (end is where the values read so far end):
// past the white space after them, up to the end of its line.
func yamlAfterJSON(data []byte, end int) int {
	rest := end
	for rest < len(data) {
		c := data[rest]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\v' && c != '\f' {
			break
		}
		rest++
		if c == '\n' {
			break
		}
	}
	return rest
}

// cursor counts lines (from 0) and columns (from 1, in code points) up to
// offsets of data that only grow: a stream of many values costs one pass,
// not one from the start for each.
type cursor struct {
	data           []byte
	off, line, col int
}

// to moves the cursor to off and returns its line and column.
func (c *cursor) to(off int) (line, col int) {
	if off < c.off {
		*c = cursor{data: c.data, col: 1} // never the case in jsonStream; counted again rather than wrong
	}
	seg := c.data[c.off:off]
	if nl := bytes.LastIndexByte(seg, '\n'); nl >= 0 {
		c.line += bytes.Count(seg, []byte("\n"))
		c.col = 1 + utf8.RuneCount(seg[nl+1:])
	} else {
		c.col += utf8.RuneCount(seg)
	}
	c.off = off
	return c.line, c.col
}

// jsonStream reads data as kubectl's decoder (apimachinery's
// YAMLOrJSONDecoder) reads a stream that starts with { or [: a series of
// JSON values, each a document; after two or more, anything that is not
// JSON is an error (kubectl stops there); after one, the rest is YAML, as
// kubectl switches to YAML, and a document there that is not a Kubernetes
// object is an error (kubectl rejects it: "Object 'Kind' is missing").
// ok is false when data does not start with a JSON value: it is YAML.
func jsonStream(r *Result, name string, data []byte, fast bool, lean *Lean) (ok bool) {
	cur := cursor{data: data, col: 1}
	at := func(off int, msg string) *Error {
		line, col := cur.to(off)
		return &Error{Pos: Position{File: name, Line: line + 1, Column: col}, Msg: msg}
	}
	var docs []stream.Document
	refused := map[int]bool{} // documents kubectl cannot decode (numberPastFloat)
	// parse reads docs, all but those kubectl refuses, which keep their
	// place so that the documents stay slices of one stream.
	parse := func(r *Result, docs []stream.Document) {
		parseRun(r, name, docs, 0, fast, lean)
		if len(refused) > 0 {
			r.Objects = slices.DeleteFunc(r.Objects, func(o *Object) bool { return refused[o.Doc] })
		}
	}
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
			// One value, then YAML.
			rest := yamlAfterJSON(data, end)
			sub := &Result{}
			first := bytes.Count(data[:rest], []byte("\n"))
			yamlDocs, issues := stream.Split(data[rest:], true)
			for i := range yamlDocs {
				yamlDocs[i].Line += first
				yamlDocs[i].Off += rest
			}
			addSplitIssues(sub, name, issues, first)
			parseRun(sub, name, yamlDocs, 1, fast, lean)
			if sub.Skipped > 0 {
				r.Errors = append(r.Errors, at(start, "a document after the JSON object is not a Kubernetes object (no apiVersion or kind): kubectl rejects the file"))
			}
			docs = docs[:1]
			parse(r, docs)
			r.Objects = append(r.Objects, sub.Objects...)
			r.Errors = append(r.Errors, sub.Errors...)
			return true
		}
		end = int(dec.InputOffset())
		if n := numberPastFloat(data[start:end]); n != "" {
			r.Errors = append(r.Errors, at(start, fmt.Sprintf("number %.40s is past float64's range: kubectl cannot read this JSON object and stops reading the file here", n)))
			refused[len(docs)] = true
		}
		line, _ := cur.to(start)
		docs = append(docs, stream.Document{Line: line, Off: start, Data: data[start:end]})
	}
	// Each document runs to the next one's start, so that they are
	// slices of one stream, as parseRun expects.
	for i := range docs {
		if i+1 < len(docs) {
			docs[i].Data = data[docs[i].Off:docs[i+1].Off]
		} else {
			docs[i].Data = data[docs[i].Off:stop]
		}
	}
	parse(r, docs)
	return true
}

// addSplitIssues adds an Error for each of issues, lines of a stream
// whose first line is line first+1 of file name.
func addSplitIssues(r *Result, name string, issues []stream.Issue, first int) {
	for _, is := range issues {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: first + is.Line, Column: 1}, Msg: is.Msg})
	}
}

// parseChunk is how many documents of one stream a core parses at a time.
const parseChunk = 32

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

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseRun parses docs, consecutive documents of one stream whose first
// is document first: each that the fast path is sure of with it (when
// fast), the runs of the others with decodeRuns.
func parseRun(r *Result, name string, docs []stream.Document, first int, fast bool, lean *Lean) {
	parseDocs(r, name, docs, first, fast, fastyaml.ListChunk, lean)
}

// parseDocs is parseRun with the items of a List document of at least
// four times chunk bytes read on every core (readList; never when chunk
// is 0), and lean's items read lean (lean.go).
func parseDocs(r *Result, name string, docs []stream.Document, first int, fast bool, chunk int, lean *Lean) {
	if !fast {
		decodeRuns(r, name, docs, first)
		return
	}
	longest := 0
	for _, d := range docs {
		longest = max(longest, len(d.Data))
	}
	fl := (*fastyaml.Lean)(lean)
	fp := fastyaml.NewParser(fl, false, longest)
	slow := 0 // the first document of the run the fast path gave up on
	for i, d := range docs {
		list := fastyaml.ReadList(d, chunk, false, fl)
		if list == nil && !fp.Parse(d.Data) {
			continue
		}
		if slow < i {
			decodeRuns(r, name, docs[slow:i], first+slow)
		}
		if list == nil {
			list = fp.Read(d)
		}
		addFast(r, name, first+i, d, list)
		slow = i + 1
	}
	if slow < len(docs) {
		decodeRuns(r, name, docs[slow:], first+slow)
	}
}

// addFast adds the objects and errors the fast path read of d, document
// index of a stream: its objects made as newObject makes them from
// yaml.v3's tree, or lean.
func addFast(r *Result, name string, index int, d stream.Document, fd *fastyaml.Doc) {
	r.Skipped += fd.Skipped
	for _, e := range fd.Errors {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: e.Line, Column: e.Column}, Msg: e.Msg})
	}
	if len(fd.Objects) == 0 {
		return
	}
	src := &docSource{raw: d.Data, keep: fd.Keep}
	for i := range fd.Objects {
		fo := &fd.Objects[i]
		var o *Object
		if fo.Lean != nil {
			o = &Object{src: &leanBacking{docBacking: docBacking{doc: src, line: d.Line}, item: fo.Lean}}
		} else {
			var b *docBacking
			o, b = newDocObject(src, d.Line)
			b.json, b.marks = fo.JSON, fo.Marks
		}
		o.File, o.Doc, o.Item = name, index, fo.Item
		o.Ref = Ref{APIVersion: fo.APIVersion, Kind: fo.Kind, Namespace: fo.Namespace, Name: fo.Name}
		r.Objects = append(r.Objects, o)
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
func decodeRuns(r *Result, name string, docs []stream.Document, first int) {
	if len(docs) == 0 {
		return
	}
	for i := 1; i < len(docs); i++ {
		if docs[i].Cut { // a ---# line between: not one stream to YAML
			decodeRuns(r, name, docs[:i], first)
			decodeRuns(r, name, docs[i:], first+i)
			return
		}
	}
	last := docs[len(docs)-1]
	run := docs[0].Data[:last.Off-docs[0].Off+len(last.Data)] // the documents are slices of one stream
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
		case !yamltree.Plain(n, 0): // aliases (or merge keys): as parsed alone
			parseDocument(r, name, first+i, d)
		default:
			addDocument(r, name, first+i, d, n, d.Line-docs[0].Line)
		}
	}
}

// decodeRun decodes the documents of run, the bytes of docs, and returns
// the tree of each document (nil for one the decoder saw no document in),
// or false when the run must be parsed document by document.
func decodeRun(run []byte, docs []stream.Document) (nodes []*yaml.Node, ok bool) {
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
		line := docs[0].Line + doc.Line - 1
		i := next
		for i < len(docs) && docs[i].Line+lineCount(docs[i].Data) <= line {
			i++
		}
		if i == len(docs) || line < docs[i].Line {
			return nil, false
		}
		for _, d := range docs[next:i] {
			if !blank(d.Data) {
				return nil, false
			}
		}
		nodes[i], next = doc, i+1
	}
	for _, d := range docs[next:] {
		if !blank(d.Data) {
			return nil, false
		}
	}
	return nodes, true
}

// blank reports whether a document holds only white space and comments.
func blank(data []byte) bool {
	for l := range bytes.Lines(data) {
		l = bytes.TrimLeft(l, " \t\r\n")
		if stream.IsMarker(l, "---") {
			l = bytes.TrimLeft(l[3:], " \t\r\n")
		}
		if len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

// parseDocument parses document index of a stream on its own.
func parseDocument(r *Result, name string, index int, d stream.Document) {
	var doc yaml.Node
	err := yamltree.Unmarshal(d.Data, &doc)
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
			if n := lineCount(d.Data); line > n {
				line = n
			}
		} else {
			msg = strings.TrimPrefix(msg, "yaml: ")
		}
		col := 1
		switch {
		case strings.Contains(msg, "UTF-8"), strings.Contains(msg, "control characters"):
			// The reader reports no position: find the bad byte.
			line, col = badByte(d.Data)
		case strings.HasPrefix(msg, "found a tab character"):
			// The scanner names the line of the enclosing construct;
			// the tab is on the first indented line after it.
			line, col = tabIndent(d.Data, line)
		}
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + line, Column: col}, Msg: "invalid YAML: " + msg})
		return
	}
	addDocument(r, name, index, d, &doc, 0)
}

// addDocument adds the objects of doc, the tree of document index, whose
// node lines are shift more than the document's own (a tree decoded with
// the documents before it in one run).
func addDocument(r *Result, name string, index int, d stream.Document, doc *yaml.Node, shift int) {
	root := yamltree.Deref(doc)
	if root == nil || root.Kind == 0 || root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return // empty document, or only comments
	}
	if root.Kind != yaml.MappingNode {
		r.Skipped++
		refusedOther(r, name, d, root, shift)
		return
	}
	// A document writeJSON cannot write as kubectl reads it gets its JSON
	// from kubectl's YAML, all its objects alike (kubectl refuses all of a
	// List it cannot read). Decided before keys given twice are dropped:
	// yes and "yes" are one key to yaml.v3, two to kubectl.
	var ref *kubectlReading
	if !yamltree.Plain(root, 0) || !yamltree.AsWritten(root, 0) || bareTag(d.Data) {
		ref = &kubectlReading{data: d.Data}
	}
	// Every key given twice is an error, as kubectl's strict decoding
	// rejects it; the object is still checked, with the last value as
	// non-strict decoding keeps it, so its other findings are not lost.
	for {
		dup, err := duplicateKey(root, 0)
		if err != nil {
			r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + root.Line - shift, Column: root.Column}, Msg: err.Error()})
			return // too deep: not an object to check
		}
		if dup == nil {
			break
		}
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + dup.again.Line - shift, Column: dup.again.Column}, Msg: dup.message(name, d.Line-shift)})
	}
	apiVersion, kind := kubectlString(root, "apiVersion"), kubectlString(root, "kind")
	if apiVersion == "" || kind == "" {
		r.Skipped++
		if ref != nil {
			refusedOther(r, name, d, root, shift)
		}
		return
	}
	if _, v := yamltree.Lookup(root, "items", 0); notItems(v) {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + v.Line - shift, Column: v.Column}, Msg: kind + ": " + yamltree.NotItemsMsg})
		return
	}
	src := &docSource{raw: d.Data}
	if items := listItems(root); items != nil {
		if len(items) == 0 {
			refusedOther(r, name, d, root, shift) // no object to carry kubectl's error
		}
		src.keep = len(items) > 1
		for i, orig := range items {
			it := yamltree.Deref(orig)
			if isNull(it) && yamltree.ItemKind(kind) != "" {
				// unstructured's decodeToList reads a null item as an
				// object with no fields, which then takes its List's kind.
				it = &yaml.Node{Kind: yaml.MappingNode, Line: orig.Line, Column: orig.Column}
			}
			if isNull(it) {
				r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + orig.Line - shift, Column: orig.Column}, Msg: yamltree.ItemWithoutKind(kind, i)})
				continue
			}
			if it.Kind != yaml.MappingNode {
				r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + orig.Line - shift, Column: orig.Column}, Msg: fmt.Sprintf("%s item %d is not an object", kind, i)})
				continue
			}
			// As kubectl's unstructured decoding: an item with neither
			// takes them from its List's kind.
			iv, ik := kubectlString(it, "apiVersion"), kubectlString(it, "kind")
			if ik == "" && iv == "" {
				ik, iv = yamltree.ItemKind(kind), apiVersion
			}
			if iv == "" || ik == "" {
				r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + it.Line - shift, Column: it.Column}, Msg: yamltree.ItemWithoutKind(kind, i)})
				continue
			}
			r.addObject(newObject(name, index, i, d, src, iv, ik, it, shift, ref), it, d.Line+it.Line-shift)
		}
		return
	}
	r.addObject(newObject(name, index, -1, d, src, apiVersion, kind, root, shift, ref), root, d.Line+root.Line-shift)
}

// isNull reports whether n is a null item: none (an alias of nothing) or
// a null scalar.
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// refusedOther adds an Error when kubectl's YAML cannot read document d,
// which holds no object, root its tree: kubectl stops reading the file
// there, so that what follows is not applied. Only a tree writeJSON
// cannot write can be such (an alias of itself, a null key).
func refusedOther(r *Result, name string, d stream.Document, root *yaml.Node, shift int) {
	if yamltree.Plain(root, 0) && yamltree.AsWritten(root, 0) {
		return
	}
	if _, err := kubectlYAMLToJSON(d.Data); err != nil {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: name, Line: d.Line + root.Line - shift, Column: root.Column},
			Msg: fmt.Sprintf("kubectl cannot read this document (%v) and stops reading the file here", err)})
	}
}

// listItems returns the items of an object that has items: none for items
// null, as kubectl reads it; nil when there is no items. Whatever its kind
// (List, NodeList, PodList, or a ConfigMap given items), unstructured's
// decoding reads such an object as a list, and kubectl applies its items,
// never the object itself.
func listItems(root *yaml.Node) []*yaml.Node {
	k, v := yamltree.Lookup(root, "items", 0)
	if k == nil {
		return nil
	}
	if v = yamltree.Deref(v); v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return []*yaml.Node{} // null (anything else is notItems)
	}
	return v.Content
}

// newObject makes the Object of node n, read from document d. It keeps
// d's bytes, n's JSON form and the positions of n's fields, not n: the
// tree is parsed again only for an error path, or for a position in a
// document whose JSON is ref's (kubectl's reading; nil when writeJSON
// writes the document as kubectl reads it).
func newObject(file string, doc, item int, d stream.Document, src *docSource, apiVersion, kind string, n *yaml.Node, shift int, ref *kubectlReading) *Object {
	o, b := newDocObject(src, d.Line)
	o.File, o.Doc, o.Item = file, doc, item
	o.APIVersion, o.Kind = apiVersion, kind
	meta := yamltree.Deref(yamltree.ValueOf(n, "metadata"))
	o.Name, _ = yamltree.Scalar(meta, "name")
	o.Namespace, _ = yamltree.Scalar(meta, "namespace")
	if ref == nil {
		hint := len(d.Data) // JSON is about as long as its YAML
		if item >= 0 {
			hint = 0 // one item of a List document
		}
		// The marks share the JSON's allocation: both live for the run.
		ms, ok := yamltree.AppendMarks(nil, n, shift)
		if !ok {
			ms = nil
		}
		if j, err := yamltree.JSON(n, hint+len(ms), ms); err == nil {
			end := len(j) - len(ms)
			b.json = j[:end:end]
			if ms != nil {
				b.marks = j[end:]
			}
		}
	} else if j, err := ref.object(item); err != nil {
		b.err = err
	} else {
		b.json = j
	}
	return o
}

// addObject adds o, and an Error at node n when o has no JSON form: kubectl
// could not read it, and the rules that read JSON (every Rego rule) could
// not judge it, whichever field is at fault.
func (r *Result) addObject(o *Object, n *yaml.Node, line int) {
	r.Objects = append(r.Objects, o)
	if err := o.src.jsonErr(); err != nil {
		r.Errors = append(r.Errors, &Error{Pos: Position{File: o.File, Line: line, Column: n.Column},
			Msg: fmt.Sprintf("%s %s cannot be read as kubectl reads it: %v", o.Kind, o.Name, err)})
	}
}
