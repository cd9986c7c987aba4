package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// This file holds taintlint's reading of a whole stream to kubectl's.
// What `kubectl apply -f` reads (cli-runtime's FileVisitor and
// StreamVisitor: a UTF-8 byte order mark dropped, apimachinery's
// YAMLOrJSONDecoder, a document that is empty or null skipped, each
// other decoded by unstructured.UnstructuredJSONScheme, a list's items
// sent one by one) is the reference. Both of taintlint's readings, the
// fast path and yaml.v3's, must give the objects kubectl sends with the
// same JSON, document by document, and an error in each document kubectl
// refuses (kubectl stops reading the file there; taintlint reads on, so
// that one broken document hides nothing after it).

// kubectlDoc is one document of a stream as kubectl reads it.
type kubectlDoc struct {
	first, last pos   // where it lies, the separator that ends it included
	objects     []any // what kubectl sends, decoded: the object, or a List's items
	err         error // kubectl refuses the document and stops reading the file
	// ambiguous: two keys of one mapping become one JSON key, and which
	// value kubectl keeps depends on Go's map order (sigs.k8s.io/yaml
	// converts a map[interface{}]interface{}): not compared.
	ambiguous bool
	// trailing: the document holds text after its first YAML document
	// (after a flow collection closes, "{a: 1} b: 2"): sigs.k8s.io/yaml
	// reads the first and ignores the rest, yaml.v3 refuses the whole.
	// taintlint's parse error there is allowed and the objects are not
	// compared (left open, the report of issue 26).
	trailing bool
	// json: a JSON value of a JSON stream, not a YAML document; taintlint
	// places the objects of a value that starts inside a line at its
	// line's start, so only lines tell where it lies.
	json     bool
	badSep   bool // span.badSep
	short    bool // span.short
	hashOpen bool // span.hashOpen
	// twice: goyaml.v2's strict reading finds a key given twice (as
	// kubectl reads keys: yes and "yes" are two), the one case where
	// taintlint's duplicate-key error is allowed in a YAML document.
	twice bool
}

// pos is a line and a column (in code points), both 1-based.
type pos struct{ line, col int }

func (p pos) before(q pos) bool { return p.line < q.line || p.line == q.line && p.col < q.col }

// span is where one Decode call of kubectl's decoder reads: YAML
// documents are whole lines, JSON values need not be.
type span struct {
	first, last pos
	badSep      bool // a line kubectl refuses as a separator ends it
	// short: the decoder's last error, from fewer than four bytes left
	// where it looks past a failed JSON value (consumeWhitespace reads
	// four at a time): a quirk of the decoder on a stream's last three
	// bytes ("{0}"), which taintlint reads as YAML; not compared.
	short bool
	// hashOpen: the document's first line is "---#...": kubectl's
	// YAMLReader keeps it as YAML text (a plain scalar, which a mapping
	// after it makes an error), taintlint cuts it as Helm does (Parse
	// also reads rendered Helm templates, where "---" followed by
	// "{{- end }}" is such a line); not compared, left open.
	hashOpen bool
	yaml     []byte // the document YAMLReader hands to sigs.k8s.io/yaml; nil for a JSON value
}

// kubectlRead reads data as kubectl apply -f does. Each document's
// content is the decoder's; where it lies comes from kubectlSpans, which
// follows the decoder's rules and is held to it: the two must count the
// same documents.
func kubectlRead(t testing.TB, data []byte) []kubectlDoc {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	spans, sticky := kubectlSpans(data)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var docs []kubectlDoc
	for i := 0; ; i++ {
		var ext runtime.RawExtension
		err := dec.Decode(&ext)
		if err == io.EOF {
			break
		}
		if i >= len(spans) {
			t.Fatalf("harness: kubectl's decoder reads more than the %d documents of %q the spans find (%v)", len(spans), data, err)
		}
		d := kubectlDoc{first: spans[i].first, last: spans[i].last, json: spans[i].yaml == nil, badSep: spans[i].badSep, short: spans[i].short, hashOpen: spans[i].hashOpen}
		if err != nil {
			d.err = err
			docs = append(docs, d)
			if i == sticky {
				return docs // a JSON stream's error is the decoder's last word
			}
			continue
		}
		if spans[i].yaml != nil {
			d.ambiguous = ambiguousKeys(spans[i].yaml)
			d.trailing = trailingText(spans[i].yaml)
			_, err := sigsyaml.YAMLToJSONStrict(spans[i].yaml)
			d.twice = err != nil && strings.Contains(err.Error(), "already set in map")
		}
		raw := bytes.TrimSpace(ext.Raw)
		if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
			d.objects, d.err = sentObjects(raw)
		}
		docs = append(docs, d)
	}
	if len(docs) != len(spans) {
		t.Fatalf("harness: kubectl's decoder reads %d documents of %q, the spans find %d", len(docs), data, len(spans))
	}
	return docs
}

// sentObjects is what kubectl sends of a document's JSON: the object, or
// the items of a list, each with a kind and an apiVersion (an object
// without them is refused, and is not a manifest to taintlint: neither
// reading has it). An error is unstructured decoding's.
func sentObjects(raw []byte) (objs []any, err error) {
	if raw[0] != '{' {
		return nil, nil // a scalar or a sequence: no manifest
	}
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
		return nil, err // a number past float64
	}
	k, _ := m["kind"].(string)
	if v, _ := m["apiVersion"].(string); k == "" || v == "" {
		// No manifest to taintlint, whatever else unstructured decoding
		// says of it (items: 0 is an error before the kind is looked at).
		return nil, nil
	}
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if runtime.IsMissingKind(err) || runtime.IsMissingVersion(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sent := func(u *unstructured.Unstructured) {
		if u.GetKind() != "" && u.GetAPIVersion() != "" {
			objs = append(objs, u.Object)
		}
	}
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		sent(o)
	case *unstructured.UnstructuredList:
		for i := range o.Items {
			// An item left without kind or apiVersion (null, or an
			// untyped List's item that names neither) stops kubectl:
			// FlattenListVisitor's infoForObject says "Object 'Kind' is
			// missing" and the apply ends there.
			if it := &o.Items[i]; it.GetKind() == "" || it.GetAPIVersion() == "" {
				return nil, fmt.Errorf("list item %d: Object 'Kind' is missing", i)
			}
			sent(&o.Items[i])
		}
	}
	return objs, nil
}

// kubectlSpans finds the documents of data as YAMLOrJSONDecoder reads
// them. A stream whose first byte after white space is { is read as JSON
// values; when one fails, the decoder goes on as YAML from where the
// values ended (from the start when none was read), unless two were read:
// then the error ends the stream (sticky is its index; -1 for none).
func kubectlSpans(data []byte) (spans []span, sticky int) {
	if !utilyaml.IsJSONBuffer(data[:min(len(data), 4096)]) {
		return yamlSpans(data, 0), -1
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	end := 0
	for {
		start := end + len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r\n"))
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			return spans, -1
		}
		if err == nil {
			end = int(dec.InputOffset())
			spans = append(spans, span{first: posAt(data, start), last: posAt(data, end-1)})
			continue
		}
		if len(spans) > 1 {
			return append(spans, span{first: posAt(data, start), last: posAt(data, len(data))}), len(spans)
		}
		// consumeWhitespace: white space up to the end of the line, read
		// four bytes at a time: fewer than four left, or a byte that is
		// no UTF-8, and the decoder has no YAML reader; its error is final.
		rest := end
		for {
			r, size := utf8.DecodeRune(data[rest:min(rest+4, len(data))])
			if len(data)-rest < 4 || r == utf8.RuneError {
				return append(spans, span{first: posAt(data, rest), last: posAt(data, len(data)), short: len(data)-rest < 4}), len(spans)
			}
			if !unicode.IsSpace(r) {
				break
			}
			rest += size
			if r == '\n' {
				break
			}
		}
		return append(spans[:len(spans):len(spans)], yamlSpans(data, rest)...), -1
	}
}

// yamlSpans cuts data from offset from into documents as apimachinery's
// YAMLReader does: by lines (bufio's ReadLine: \n or \r\n), a line
// starting with --- and holding nothing after it but white space and a
// comment ends a document that has content, and is the first line of one
// that has none yet; a line starting with --- and holding anything else
// is an error that takes the document read so far with it.
func yamlSpans(data []byte, from int) []span {
	var spans []span
	var buf []byte
	hashOpen := false
	start := posAt(data, from)
	for off := from; off < len(data); {
		end := len(data)
		if nl := bytes.IndexByte(data[off:], '\n'); nl >= 0 {
			end = off + nl
		}
		line := bytes.TrimSuffix(data[off:end], []byte("\r"))
		here := posAt(data, off)
		lineEnd := pos{here.line, here.col + utf8.RuneCount(data[off:end])}
		switch rest := strings.TrimSpace(string(line[min(3, len(line)):])); {
		case bytes.HasPrefix(line, []byte("---")) && rest != "" && rest[0] != '#':
			spans = append(spans, span{first: start, last: lineEnd, yaml: []byte{}, badSep: true})
			buf, hashOpen = nil, false
			start = pos{here.line + 1, 1}
		case bytes.HasPrefix(line, []byte("---")) && len(buf) == 0 && len(line) > 3 && line[3] == '#':
			hashOpen = true
			buf = append(append(buf, line...), '\n')
		case bytes.HasPrefix(line, []byte("---")) && len(buf) > 0:
			spans = append(spans, span{first: start, last: lineEnd, yaml: buf, hashOpen: hashOpen})
			buf, hashOpen = nil, false
			start = pos{here.line + 1, 1}
		default:
			buf = append(append(buf, line...), '\n')
		}
		off = end + 1
	}
	if len(buf) > 0 {
		spans = append(spans, span{first: start, last: posAt(data, len(data)), yaml: buf, hashOpen: hashOpen})
	}
	return spans
}

// posAt is the position of byte off of data.
func posAt(data []byte, off int) pos {
	off = min(off, len(data))
	nl := bytes.LastIndexByte(data[:off], '\n')
	return pos{1 + bytes.Count(data[:off], []byte("\n")), 1 + utf8.RuneCount(data[nl+1:off])}
}

// ambiguousKeys reports whether a mapping of the YAML document doc has two
// keys that sigs.k8s.io/yaml turns into one JSON key (1 and "1", true and
// "true"): which value it keeps then depends on Go's map order.
func ambiguousKeys(doc []byte) bool {
	var v any
	if yamlv2.Unmarshal(doc, &v) != nil {
		return false
	}
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		if depth > 100 {
			return true
		}
		switch v := v.(type) {
		case map[any]any:
			seen := make(map[string]bool, len(v))
			for k, e := range v {
				s := jsonKey(k)
				if seen[s] || walk(e, depth+1) {
					return true
				}
				seen[s] = true
			}
		case []any:
			for _, e := range v {
				if walk(e, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(v, 0)
}

// trailingText reports whether goyaml.v2 finds anything after the first
// document of doc, which sigs.k8s.io/yaml's Unmarshal never looks at.
func trailingText(doc []byte) bool {
	dec := yamlv2.NewDecoder(bytes.NewReader(doc))
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	return dec.Decode(&v) != io.EOF
}

// jsonKey is the JSON key sigs.k8s.io/yaml makes of a goyaml.v2 map key.
func jsonKey(k any) string {
	switch k := k.(type) {
	case string:
		return k
	case int:
		return strconv.Itoa(k)
	case int64:
		return strconv.FormatInt(k, 10)
	case float64:
		switch {
		case math.IsInf(k, 1):
			return ".inf"
		case math.IsInf(k, -1):
			return "-.inf"
		case math.IsNaN(k):
			return ".nan"
		}
		return strconv.FormatFloat(k, 'g', -1, 32)
	case bool:
		return strconv.FormatBool(k)
	}
	return fmt.Sprintf("%T %v", k, k) // refused by sigs.k8s.io/yaml: an error, not a collision
}

// diffStream says how r, taintlint's reading of data, differs from
// kubectl's, docs; "" when it does not.
func diffStream(data []byte, r *Result, docs []kubectlDoc) string {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	// yaml.v3 counts a lone \r as a line break, kubectl's reader does not:
	// positions past the last line kubectl sees are in its last document.
	loneCR := bytes.Count(data, []byte("\r")) > bytes.Count(data, []byte("\r\n")) && len(docs) > 0
	holds := func(d kubectlDoc, p pos) bool {
		if d.json || p.line == d.first.line && d.first.col > 1 {
			// A JSON value, or YAML after one on its line: taintlint
			// counts columns from the line's start.
			return d.first.line <= p.line && p.line <= d.last.line
		}
		return !p.before(d.first) && !d.last.before(p)
	}
	got := make([][]any, len(docs))
	// Objects go to the first document holding their position from the
	// one the last went to, and past a JSON value that has all its
	// objects: values may share a line.
	at := 0
	for _, o := range r.Objects {
		p, _ := o.Locate("")
		op := pos{p.Line, p.Column}
		i := at
		for i < len(docs) && (!holds(docs[i], op) || docs[i].json && len(got[i]) >= len(docs[i].objects) && i+1 < len(docs) && holds(docs[i+1], op)) {
			i++
		}
		if i == len(docs) && loneCR {
			i = len(docs) - 1
		}
		if i == len(docs) {
			return fmt.Sprintf("object %s at %d:%d is in no document kubectl reads", o.Ref, p.Line, p.Column)
		}
		j, err := o.JSON()
		if err != nil {
			got[i] = append(got[i], fmt.Sprintf("no JSON: %v", err))
		} else {
			var v any
			if err := kjson.UnmarshalCaseSensitivePreserveInts(j, &v); err != nil {
				return fmt.Sprintf("object %s: invalid JSON %s: %v", o.Ref, j, err)
			}
			if m, ok := v.(map[string]any); ok && o.Item >= 0 {
				m["apiVersion"], m["kind"] = o.APIVersion, o.Kind // a List item: kubectl fills them in as taintlint does
			}
			got[i] = append(got[i], v)
		}
		at = i
	}
	// Each error belongs to every document holding it, and one on a line
	// that ends a document and is followed by the next (a separator) to
	// the next as well.
	reported := make([]bool, len(docs))
	unread := make([]bool, len(docs)) // a JSON value yaml.v3 cannot read (looseNumbers), or trailing text
	for _, e := range r.Errors {
		ep := pos{e.Pos.Line, e.Pos.Column}
		var mine []int
		for i, d := range docs {
			if holds(d, ep) || i > 0 && docs[i-1].last.line == e.Pos.Line && d.first.line == e.Pos.Line+1 && !docs[i-1].json {
				mine = append(mine, i)
			}
		}
		if mine == nil && loneCR {
			mine = []int{len(docs) - 1}
		}
		if mine == nil {
			return fmt.Sprintf("error in no document kubectl reads: %v", e)
		}
		refused := false
		for _, j := range mine {
			reported[j] = true
			refused = refused || docs[j].err != nil || afterSeparator(docs, j)
		}
		// JSON values share lines: an error yaml.v3 gives on the line
		// leaves unread every JSON value there (invalid UTF-8, which
		// kubectl's JSON decoder reads as U+FFFD, in the second of two).
		jsonOpen := false
		for _, j := range mine {
			if strings.HasPrefix(e.Msg, "invalid YAML") && (docs[j].json || docs[j].trailing) {
				unread[j], jsonOpen = true, true
			}
		}
		// Allowed besides: keys given twice where goyaml.v2's strict
		// reading finds them (kubectl keeps the last, and strict
		// validation refuses them), text kubectl
		// ignores, and a document without kind after a JSON value
		// (kubectl reports each such document as an error).
		// A document that opens with "---#..." is cut as Helm cuts it
		// (hashOpen): what taintlint reads after the line, and so its
		// errors there, are its own, left open with the objects.
		twice, hashOpen := false, false
		for _, j := range mine {
			twice = twice || docs[j].twice || docs[j].json
			hashOpen = hashOpen || docs[j].hashOpen
		}
		allowed := jsonOpen || hashOpen || twice && (strings.Contains(e.Msg, "already defined at line") || strings.Contains(e.Msg, "duplicate field")) ||
			strings.Contains(e.Msg, "kubectl ignores it") || strings.Contains(e.Msg, "after the JSON object is not a Kubernetes object")
		if !refused && !allowed {
			return fmt.Sprintf("document %d: kubectl reads it, taintlint reports %v", mine[0], e)
		}
	}
	for i, d := range docs {
		where := fmt.Sprintf("document %d (%d:%d-%d:%d)", i, d.first.line, d.first.col, d.last.line, d.last.col)
		if d.err != nil {
			if !reported[i] && !d.short && !d.hashOpen && !(d.json && strings.Contains(d.err.Error(), "cannot unmarshal number")) {
				return fmt.Sprintf("%s: kubectl refuses it (%v), taintlint reports no error and reads %d objects", where, d.err, len(got[i]))
			}
			continue
		}
		if d.ambiguous || unread[i] || d.trailing || d.hashOpen {
			continue
		}
		if afterSeparator(docs, i) {
			continue
		}
		if len(got[i]) != len(d.objects) {
			return fmt.Sprintf("%s: kubectl sends %d objects, taintlint reads %d\nkubectl: %s\ntaintlint: %s", where, len(d.objects), len(got[i]), jsonText(d.objects), jsonText(got[i]))
		}
		for k := range got[i] {
			if !reflect.DeepEqual(got[i][k], d.objects[k]) && !(d.json && reflect.DeepEqual(looseNumbers(got[i][k]), looseNumbers(d.objects[k]))) {
				return fmt.Sprintf("%s: object %d differs\nkubectl:   %s\ntaintlint: %s", where, k, jsonText(d.objects[k]), jsonText(got[i][k]))
			}
		}
	}
	return ""
}

// afterSeparator reports whether document i follows a separator kubectl
// refuses ("--- x"): YAML, and taintlint with an error at the separator,
// reads x as the start of the document, kubectl would read on after the
// line if it did not stop there; the two are not compared.
func afterSeparator(docs []kubectlDoc, i int) bool {
	return i > 0 && docs[i-1].badSep
}

// looseNumbers is v with every number a float64. JSON values are read by
// taintlint as YAML: 1.0 is the integer 1, where kubectl sends the JSON
// as written (a float, which an integer field refuses), and a number past
// float64 is a string, where kubectl refuses the value; and the JSON
// yaml.v3 cannot read (the escape \/) is an error where kubectl reads it.
// The three are left open (the report of issue 26), and the comparison
// of JSON values allows them.
func looseNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = looseNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = looseNumbers(e)
		}
		return out
	case int64:
		return float64(v)
	}
	return v
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// checkAsKubectl holds both of taintlint's readings of data (named name)
// to kubectl's.
func checkAsKubectl(t *testing.T, name string, data []byte) {
	t.Helper()
	if len(data) > 1<<20 || bytes.IndexByte(data, 0) >= 0 {
		return // refused whole by the loader (binary, or a UTF-16 file kubectl would decode)
	}
	docs := kubectlRead(t, data)
	var diffs []string
	for _, fast := range []bool{true, false} {
		if diff := diffStream(data, parseStream(name, data, fast), docs); diff != "" {
			path := "yaml.v3 fallback"
			if fast {
				path = "fast path"
			}
			diffs = append(diffs, path+": "+diff)
		}
	}
	if diffs != nil {
		t.Fatalf("%s %q is read unlike kubectl reads it:\n%s", name, data, strings.Join(diffs, "\n"))
	}
}

// kubectlStreams are streams that exercise each way kubectl's reading
// can differ from a YAML parser's: document splitting, YAML 1.1 scalars
// in keys and values, tags, anchors and merge keys, flow and block
// styles, JSON streams, duplicate keys and multi-line strings.
var kubectlStreams = map[string]string{
	"separator comment":        "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n--- # next\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"separator tab":            "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\t\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"separator spaces":         "---   \napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"separator hash":           "# notes\n---#\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---# x\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"separator content":        "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n--- {apiVersion: v1, kind: Pod, metadata: {name: b}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n",
	"separator block scalar":   "--- |\n  text\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n",
	"separator dashes":         "----\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"separators only":          "---\n---\n--- # c\n",
	"document end":             "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n...\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"document end then text":   "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n...\napiVersion: v1\nkind: Pod\nmetadata: {name: hidden}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"document end first":       "...\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"bom":                      "\xef\xbb\xbfapiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"crlf":                     "apiVersion: v1\r\nkind: Pod\r\nmetadata:\r\n  name: a\r\n---\r\napiVersion: v1\r\nkind: Pod\r\nmetadata: {name: b}\r\ndata: |\r\n  x\r\n  y\r\n",
	"directive":                "%YAML 1.1\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"yaml11 values":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  a: yes\n  b: no\n  c: on\n  d: off\n  e: y\n  f: n\n  g: 0755\n  h: 0x1F\n  i: 1:20\n  j: .inf\n",
	"yaml11 values 2":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  a: Y\n  b: NO\n  c: ~\n  d: 2001-12-14\n  e: 2001-12-14T21:59:43.10-05:00\n  f: !!binary aGk=\n  g: 0o17\n  h: 1_000\n  i: 0b101\n  j: -.5\n  k: 1e3\n  l: +12\n  m: 9223372036854775808\n  n: 18446744073709551616\n",
	"nan":                      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: .nan}\n",
	"yaml11 keys":              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  yes: a\n  off: b\n  0x10: c\n  0755: d\n  1.5: e\n  1e3: f\n  1:20: g\n  2001-12-14: h\n  y: i\n",
	"null key":                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  ~: a\n",
	"big key":                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  18446744073709551615: a\n",
	"sequence key":             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  ? [a]\n  : b\n",
	"tags":                     "apiVersion: v1\nkind: Pod\nmetadata: {name: !!str a}\nspec:\n  a: !!str 3\n  b: !!int \"3\"\n  c: !foo bar\n  d: ! x\n  e: !!float 1\n  f: !!null ''\n  g: !!bool yes\n  h: !!timestamp 2001-01-01\n",
	"bad tag":                  "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {a: !!int x}\n",
	"anchors":                  "apiVersion: v1\nkind: Pod\nmetadata: &m {name: a}\nspec:\n  x: *m\n  tolerations:\n  - &t {key: a, operator: Exists}\n  - *t\n",
	"merge after":              "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  tolerations:\n  - key: dedicated\n    operator: Equal\n    <<: {key: \"\", operator: Exists}\n",
	"merge of itself":          "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nx: &a0\n  <<: {effect: a}\n  <<: [*a0, *a0]\n  <<: [*a0, *a0]\n<<: [*a0, *a0]\n",
	"merge nested":             "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nbase: &b {x: 1, y: {z: 2}}\nmid: &m\n  <<: *b\n  x: 3\nspec:\n  <<: [*m, *b]\n  y: 4\n",
	"merge scalar":             "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {<<: 3}\n",
	"flow and block":           "{apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {tolerations: [{key: a}, {operator: Exists}]}}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\nspec:\n  tolerations:\n    - key: a\n    -\n      operator: Exists\n",
	"json":                     "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}, \"x\": 1.0}\n",
	"json two":                 "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"b\"}}\n",
	"json then yaml":           "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"json two then yaml":       "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}\n{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"b\"}}\nkind: x\n",
	"json duplicate":           "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\", \"name\": \"b\"}}\n",
	"json escapes":             "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\\u00e9\\/\"}, \"n\": 1e2, \"m\": -0, \"f\": 1.5}\n",
	"flow looks like json":     "{apiVersion: v1, kind: Pod, metadata: {name: a}}\n",
	"duplicate keys":           "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\nspec: {x: 1, x: 2}\n",
	"duplicate merged":         "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  x: 1\n  <<: {x: 2}\n  x: 3\n",
	"multi-line strings":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  a: plain\n    continued\n  b: \"double\n    quoted\"\n  c: 'single\n\n    quoted'\n  d: |-\n    lit\n     eral\n  e: >\n    fol\n    ded\n\n    x\n  f: |2+\n     keep\n\n",
	"list":                     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n- {apiVersion: v1, kind: Pod, metadata: {name: b}}\n",
	"typed list":               "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n- apiVersion: v2\n  metadata: {name: b}\n",
	"list items null":          "apiVersion: v1\nkind: PodList\nitems:\n",
	"typed list null item":     "apiVersion: v1\nkind: PodList\nitems:\n- null\n- ~\n-\n- {metadata: {name: a}}\n",
	"list null item":           "apiVersion: v1\nkind: List\nitems:\n- null\n",
	"object with items":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {tolerations: [{operator: Exists}]}}\n- {metadata: {name: q}}\n",
	"object with no items":     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nitems: []\n",
	"object with items null":   "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nitems:\n",
	"yes and quoted yes":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  yes: a\n  \"yes\": b\n  on: c\n  'on': d\n",
	"json number past float":   "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}, \"spec\": {\"x\": 1e700, \"y\": \"1e999\"}}\n{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"b\"}, \"spec\": {\"x\": 1e-700}}\n",
	"key twice":                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  yes: a\n  yes: b\n",
	"typed list null flow":     "{\"apiVersion\": \"v1\", \"kind\": \"PodList\", \"items\": [null, {}]}\n",
	"list items mapping":       "apiVersion: v1\nkind: PodList\nitems: {a: b}\n",
	"kind not a string":        "apiVersion: v1\nkind: 5\nmetadata: {name: a}\n",
	"kind list":                "apiVersion: v1\nkind: [Pod]\nmetadata: {name: a}\n",
	"scalar document":          "just text\n---\n- a\n- b\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"null documents":           "---\n~\n---\nnull\n---\n# c\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"invalid then valid":       "apiVersion: v1\nkind: Pod\nmetadata: {name: a\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"tab indent":               "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: a\n",
	"carriage return":          "apiVersion: v1\rkind: Pod\rmetadata: {name: a}\r",
	"unicode escapes":          "apiVersion: v1\nkind: Pod\nmetadata: {name: \"\\x41\\u00e9\\N\\_\\L\\P\"}\n",
	"alias to other document":  "apiVersion: v1\nkind: Pod\nmetadata: &m {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: *m\n",
	"anchor redefined":         "apiVersion: v1\nkind: Pod\nmetadata: {name: &n a, x: *n, y: &n b, z: *n}\n",
	"indentless sequence":      "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  tolerations:\n  - key: a\n    value: b\n  - key: c\n",
	"explicit document start":  "--- !!map\napiVersion: v1\nkind: Pod\n",
	"comment after value":      "apiVersion: v1 # c\nkind: Pod #c\nmetadata: {name: a} # c\n",
	"empty stream":             "",
	"whitespace stream":        " \n\t\n",
	"json whitespace then obj": "  \n {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}\n",
	"json array":               "[{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}]\n",
	"json invalid":             "{\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n",
	"json then garbage":        "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}} }\n",
	"json number forms":        "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}, \"a\": 1.0, \"b\": 1e400, \"c\": 100000000000000000000}\n",
}

// TestStreamsAsKubectl holds both readings of each of kubectlStreams to
// kubectl's.
func TestStreamsAsKubectl(t *testing.T) {
	for name, s := range kubectlStreams {
		t.Run(name, func(t *testing.T) {
			checkAsKubectl(t, "f.yaml", []byte(s))
		})
	}
}

// FuzzStreamAsKubectl holds both readings of any bytes to kubectl's.
func FuzzStreamAsKubectl(f *testing.F) {
	for _, name := range slices.Sorted(maps.Keys(kubectlStreams)) {
		f.Add([]byte(kubectlStreams[name]))
	}
	seedFromTestdata(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAsKubectl(t, "f.yaml", data)
	})
}

// FuzzGeneratedStreamAsKubectl holds both readings to kubectl's on
// streams built from fragments the fuzzer's bytes choose (genStream):
// byte fuzzing seldom turns a stream into another meaningful one.
func FuzzGeneratedStreamAsKubectl(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x01\x02\x03\x04\x05\x06\x07\x08", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7", "\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05", "\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, choices []byte) {
		checkAsKubectl(t, "f.yaml", genStream(choices))
	})
}

// TestGeneratedStreamsAsKubectl runs genStream on random choices, for the
// plain test run: a thousand streams.
func TestGeneratedStreamsAsKubectl(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	n := 1000
	if testing.Short() {
		n = 200
	}
	for range n {
		choices := make([]byte, 64+r.IntN(192))
		for i := range choices {
			choices[i] = byte(r.Uint32())
		}
		checkAsKubectl(t, "f.yaml", genStream(choices))
	}
}

// streamGen builds a YAML or JSON stream from fragments, each choice a
// byte of its input (0 once the input is used up).
type streamGen struct {
	in      []byte
	at      int
	anchors int // anchors defined so far in the current document
}

// pick is a choice among n.
func (g *streamGen) pick(n int) int {
	if g.at >= len(g.in) {
		return 0
	}
	c := g.in[g.at]
	g.at++
	return int(c) % n
}

func (g *streamGen) one(s []string) string { return s[g.pick(len(s))] }

var (
	genStreamHeads = []string{"", "", "\xef\xbb\xbf", "# head\n", "---\n", "%YAML 1.1\n---\n", "...\n", "---#\n", "\n\n"}
	genStreamSeps  = []string{"---\n", "---\n", "--- # c\n", "---\t\n", "---   \n", "---#\n", "---# c\n", "--- \t# c\n", "...\n---\n", "---\n---\n", "# c\n---\n",
		"--- x\n", "----\n", "...\n", "...\n# gone\n---\n", "--- |\n  text\n---\n", "---\n...\n---\n"}
	genStreamKeys = []string{"a", "b", "key", "value", "operator", "effect", "tolerations", "labels", "yes", "no", "on", "off", "y", "n", "Y", "True",
		"0755", "0x10", "1:20", "1.5", "1e3", "10", "~", "\"quoted\"", "'single'", "2001-12-14", "-k", "k.io/x", "\"yes\"", "null", ".inf", "010", "+1"}
	genStreamScalars = []string{"a", "x y", "yes", "no", "on", "off", "y", "n", "Y", "NO", "True", "0755", "0x1F", "0o17", "1:20", "1_000", ".inf", "-.Inf",
		".nan", "~", "null", "", "2001-12-14", "2001-12-14T21:59:43.10-05:00", "!!binary aGk=", "!!str 3", "!!int \"3\"", "!!float 1", "!foo bar",
		"! x", "\"quoted\"", "'single'", "1e3", "1.0", "-0", "+1", "0b101", "9223372036854775808", "18446744073709551616", "!!int x",
		"!!null ''", "Exists", "Equal", "NoSchedule", "\"\"", "\"a\\tb\"", "'it''s'", "3920m", "10.0.0.1", "6f1c0000-0d1e", "é"}
)

// genStream is the stream choices build: a head, then one to four
// documents (block, flow or JSON objects, Lists, other values) joined by
// separators, sometimes with CRLF line ends.
func genStream(choices []byte) []byte {
	g := &streamGen{in: choices}
	var b strings.Builder
	b.WriteString(g.one(genStreamHeads))
	for i := range 1 + g.pick(4) {
		if i > 0 {
			b.WriteString(g.one(genStreamSeps))
		}
		g.anchors = 0
		b.WriteString(g.document())
	}
	out := b.String()
	if g.pick(8) == 0 {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return []byte(out)
}

// document is one document of the stream.
func (g *streamGen) document() string {
	head := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
	switch g.pick(10) {
	case 0:
		return "{apiVersion: v1, kind: Pod, metadata: {name: f}, spec: " + g.flow(0) + "}\n"
	case 1:
		return "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"j\"}, \"spec\": {\"a\": " + g.one([]string{"1", "1.5", "\"x\"", "true", "null", "[1, {\"b\": 2}]", "{\"a\": 1, \"a\": 2}"}) + "}}" + g.one([]string{"\n", "\n", "", " ", "\n# c\n", "\nkind: x\n"})
	case 2:
		return "apiVersion: v1\nkind: " + g.one([]string{"List", "PodList", "NodeList"}) + "\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(head+g.mapping(0, 1), "\n"), "\n", "\n  ") + "\n- metadata: {name: q}\n"
	case 3:
		return g.one([]string{"just text\n", "- a\n- b\n", "# only a comment\n", "~\n", "null\n", "", "kind: Pod\n", "apiVersion: v1\nkind: 5\n", "apiVersion: v1\nkind: Pod\nitems: {a: b}\n"})
	}
	return head + g.mapping(0, 0)
}

// mapping is a block mapping at indent of one to four entries.
func (g *streamGen) mapping(indent, depth int) string {
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	for range 1 + g.pick(4) {
		b.WriteString(pad)
		if g.anchors > 0 && g.pick(5) == 0 {
			b.WriteString("<<:" + g.merge(depth) + "\n")
			continue
		}
		b.WriteString(g.one(genStreamKeys) + ":" + g.value(indent, depth))
	}
	return b.String()
}

// merge is the value of a merge key, from right after its ':'.
func (g *streamGen) merge(depth int) string {
	a := func() string { return "*a" + strconv.Itoa(g.pick(g.anchors)) }
	switch g.pick(4) {
	case 0:
		return " [" + a() + ", " + a() + "]"
	case 1:
		return " {" + g.one(genStreamKeys) + ": " + g.scalar() + "}"
	}
	return " " + a()
}

// anchor is an anchor for the next node, or nothing.
func (g *streamGen) anchor() string {
	if g.pick(4) != 0 {
		return ""
	}
	g.anchors++
	return "&a" + strconv.Itoa(g.anchors-1) + " "
}

// value is the value of a key at indent, from right after its ':'.
func (g *streamGen) value(indent, depth int) string {
	pad := strings.Repeat(" ", indent+2)
	c := g.pick(10)
	if depth > 3 && c >= 4 {
		c = 0
	}
	switch c {
	case 4:
		return " " + g.anchor() + g.flow(depth) + "\n"
	case 5:
		return " " + strings.TrimSuffix(g.anchor(), " ") + "\n" + g.mapping(indent+2, depth+1)
	case 6:
		return "\n" + g.seq(indent+2*g.pick(2), depth+1)
	case 7:
		return " " + g.one([]string{"|", "|-", ">", ">-", "|+"}) + "\n" + pad + "line one\n" + pad + " more\n\n" + pad + "end\n"
	case 8:
		if g.anchors > 0 {
			return " *a" + strconv.Itoa(g.pick(g.anchors)) + "\n"
		}
	case 9:
		return " " + g.one([]string{"plain", "\"double", "'single"}) + "\n" + pad + g.one([]string{"continued", "continued\"", "continued'"}) + "\n"
	}
	return " " + g.anchor() + g.scalar() + "\n"
}

// seq is a block sequence at indent of one to three items.
func (g *streamGen) seq(indent, depth int) string {
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	for range 1 + g.pick(3) {
		switch g.pick(3) {
		case 0:
			b.WriteString(pad + "- " + g.anchor() + g.scalar() + "\n")
		case 1:
			b.WriteString(pad + "- " + g.flow(depth) + "\n")
		default:
			m := g.mapping(indent+2, depth+1)
			b.WriteString(pad + "- " + strings.TrimPrefix(m, pad+"  "))
		}
	}
	return b.String()
}

// flow is a flow mapping or sequence.
func (g *streamGen) flow(depth int) string {
	var parts []string
	for range g.pick(4) {
		if depth < 3 && g.pick(4) == 0 {
			parts = append(parts, g.flow(depth+1))
			continue
		}
		parts = append(parts, g.flowScalar())
	}
	if g.pick(2) == 0 {
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var kv []string
	for _, p := range parts {
		k := g.one(genStreamKeys)
		if g.anchors > 0 && g.pick(6) == 0 {
			k, p = "<<", "*a"+strconv.Itoa(g.pick(g.anchors))
		}
		kv = append(kv, k+": "+p)
	}
	return "{" + strings.Join(kv, ", ") + "}"
}

// flowScalar is a scalar that can stand in a flow collection.
func (g *streamGen) flowScalar() string {
	s := g.scalar()
	if strings.ContainsAny(s, ",[]{}") {
		return "x"
	}
	return s
}

// scalar is a one-line scalar, or an alias.
func (g *streamGen) scalar() string {
	if g.anchors > 0 && g.pick(8) == 0 {
		return "*a" + strconv.Itoa(g.pick(g.anchors))
	}
	return g.one(genStreamScalars)
}
