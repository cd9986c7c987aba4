package loader

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/stream"
	v1 "k8s.io/api/core/v1"
)

// seedFromTestdata adds every YAML fixture of the repository as a seed.
func seedFromTestdata(f *testing.F) {
	seedFrom(f, filepath.Join("..", "testdata"))
	f.Add([]byte(sampleStream))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("<<: *x\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [1, {kind: Node}]\n"))
}

// FuzzParse feeds arbitrary bytes to the loader, then resolves and decodes
// every object: nothing may panic, every position must be in the file,
// and positions from the kept marks must be those of the tree.
func FuzzParse(f *testing.F) {
	seedFromTestdata(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Parse("f.yaml", data)
		lines := strings.Count(string(data), "\n") + 1
		for _, e := range r.Errors {
			if e.Pos.Line < 1 || e.Pos.Line > lines+1 {
				t.Fatalf("error at line %d of a %d-line file: %v", e.Pos.Line, lines, e)
			}
		}
		for _, o := range r.Objects {
			for _, p := range []string{"", "metadata.name", "spec.template.spec.tolerations[0].value", "spec.taints[3]", "metadata.labels[a/b]"} {
				pos, _ := o.Locate(p)
				if pos.Line < 1 || pos.Line > lines+1 || pos.Column < 1 {
					t.Fatalf("Locate(%q) = %v in a %d-line file", p, pos, lines)
				}
			}
			checkMarks(t, o, 200)
			var spec v1.PodSpec
			_ = o.Decode("spec", &spec)
			var node v1.Node
			_ = o.Decode("", &node)
		}
	})
}

// FuzzLocate checks the field-path resolver on arbitrary paths.
func FuzzLocate(f *testing.F) {
	for _, p := range []string{"", "spec", "a.b[0].c", "metadata.labels[x.y/z]", "[", "]", "a[", "a[99999999999999999999]", "..", "a[-1]"} {
		f.Add(p)
	}
	r := Parse("s.yaml", []byte(sampleStream))
	f.Fuzz(func(t *testing.T, path string) {
		for _, o := range r.Objects {
			pos, _ := o.Locate(path)
			if pos.Line < 1 || pos.Column < 1 {
				t.Fatalf("Locate(%q) = %v", path, pos)
			}
			var v map[string]any
			_ = o.Decode(path, &v)
		}
	})
}

// parseEach is Parse with every document parsed on its own, as Parse did
// before runs of documents shared a decoder.
func parseEach(name string, data []byte) *Result {
	r := &Result{}
	docs, issues := stream.Split(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), true)
	for i, d := range docs {
		parseDocument(r, name, i, d)
	}
	addSplitIssues(r, name, issues, 0)
	return r
}

// sameResult reports how two parses of one stream differ, if they do.
func sameResult(got, want *Result) string {
	if len(got.Objects) != len(want.Objects) || len(got.Errors) != len(want.Errors) || got.Skipped != want.Skipped {
		return fmt.Sprintf("%d objects, %d errors, %d skipped; want %d, %d, %d", len(got.Objects), len(got.Errors), got.Skipped, len(want.Objects), len(want.Errors), want.Skipped)
	}
	for i, g := range got.Objects {
		w := want.Objects[i]
		gj, gm := g.form() // a lean item's, made now
		wj, wm := w.form()
		if g.Ref != w.Ref || g.Doc != w.Doc || g.Item != w.Item || g.src.docLine() != w.src.docLine() || !bytes.Equal(gj, wj) || !bytes.Equal(gm, wm) {
			return fmt.Sprintf("object %d: %v doc %d item %d line %d json %s marks %v; want %v doc %d item %d line %d json %s marks %v",
				i, g.Ref, g.Doc, g.Item, g.src.docLine(), gj, gm, w.Ref, w.Doc, w.Item, w.src.docLine(), wj, wm)
		}
	}
	for i, g := range got.Errors {
		if *g != *want.Errors[i] {
			return fmt.Sprintf("error %d: %v; want %v", i, g, want.Errors[i])
		}
	}
	return ""
}

// streams are documents whose boundaries a decoder of the whole stream
// and a parser of each document could see differently.
var streams = []string{
	"# license\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	"%YAML 1.1\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n%TAG ! tag:x,2000:\n--- !foo\na: 1\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: a, x: &x 1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, y: *x}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n...\n# after\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n...\n",
	"---\n---\n# only\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  n: |+\n    text\n\n\n--- x\n--- |\n  y\n---\r\napiVersion: v1\r\nkind: Pod\r\nmetadata: {name: c}\r\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: [\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
	"\n\n  # indented comment\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---   # comment\napiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Node, metadata: {name: n}}, 3]\n",
}

// FuzzParseRuns holds Parse, which decodes runs of documents together, to
// parsing each document on its own: the same objects, positions and
// errors.
func FuzzParseRuns(f *testing.F) {
	seedFromTestdata(f)
	for _, s := range streams {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > input.MaxFileSize || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		if diff := sameResult(Parse("f.yaml", data), parseEach("f.yaml", data)); diff != "" {
			t.Fatalf("%q: %s", data, diff)
		}
	})
}

func TestParseRunsMatchEachDocument(t *testing.T) {
	if _, ok := decodeRun([]byte(sampleStream), stream.Documents([]byte(sampleStream))); !ok {
		t.Error("a plain stream is parsed document by document")
	}
	many := strings.Repeat(sampleStream+"---\n", 40) // parsed in chunks on every core
	for _, s := range append(streams, sampleStream, many, strings.Repeat(streams[4], 30)) {
		if diff := sameResult(Parse("f.yaml", []byte(s)), parseEach("f.yaml", []byte(s))); diff != "" {
			t.Errorf("%q: %s", s, diff)
		}
	}
}
