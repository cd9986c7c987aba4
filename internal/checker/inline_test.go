package checker

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestYAMLComment(t *testing.T) {
	tests := []struct {
		line  string
		col   int
		alone bool
	}{
		{"# taintlint:ignore x", 0, true},
		{"  - key: a # c", 11, false},
		{`  - key: "a # b" # c`, 17, false},
		{`  - key: 'it''s # b' # c`, 21, false},
		{`  - key: a#b`, -1, false},
		{`  key: it's # c`, 12, false},
		{`  key: "a \" # b"`, -1, false},
	}
	for _, tt := range tests {
		col, _, alone := yamlComment(tt.line)
		if col != tt.col || alone != tt.alone {
			t.Errorf("yamlComment(%q) = %d, %v; want %d, %v", tt.line, col, alone, tt.col, tt.alone)
		}
	}
}

func TestParseDirectives(t *testing.T) {
	long := "x: " + strings.Repeat("y", 10000) + " # taintlint:ignore r9 -- too long a line\n"
	ds, err := parseDirectives("f", strings.NewReader("a: 1\n  # taintlint:ignore r1, r2 -- why -- really\nb: 2 # taintlint:ignore r3\r\n"+long+"c: 3 # taintlint:ignored r4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 {
		t.Fatalf("%d directives", len(ds))
	}
	if d := ds[0]; d.line != 2 || d.column != 3 || d.target != 3 || len(d.rules) != 2 || d.rules[1] != "r2" || d.reason != "why -- really" {
		t.Errorf("first: %+v", d)
	}
	if d := ds[1]; d.line != 3 || d.target != 3 || d.reason != "" || d.rules[0] != "r3" {
		t.Errorf("second: %+v", d)
	}
}

// TestMentions holds the chunked search to bytes.Contains, with the
// directive across every chunk boundary a small buffer makes.
func TestMentions(t *testing.T) {
	s := []byte(IgnoreDirective)
	texts := []string{"", "a: 1\n", IgnoreDirective, "x" + IgnoreDirective[:5], "x # " + IgnoreDirective[:len(IgnoreDirective)-1]}
	for i := range 40 {
		texts = append(texts, strings.Repeat("y", i)+"# "+IgnoreDirective+" r -- why\n", strings.Repeat("z", i)+IgnoreDirective[:7]+"\n"+IgnoreDirective[7:])
	}
	for _, text := range texts {
		for size := len(s); size <= len(s)+20; size++ {
			got := mentions(iotest.OneByteReader(strings.NewReader(text)), s, make([]byte, size))
			got2 := mentions(strings.NewReader(text), s, make([]byte, size))
			if want := strings.Contains(text, IgnoreDirective); got != want || got2 != want {
				t.Errorf("mentions(%q) with a %d-byte buffer = %v, %v; want %v", text, size, got, got2, want)
			}
		}
	}
	if mentions(iotest.TimeoutReader(strings.NewReader(strings.Repeat("a", 100)+IgnoreDirective)), s, make([]byte, 64)) {
		t.Error("mentions found the directive after a read error")
	}
}

// TestReadDirectives holds the files' directives read on every core with
// the pre-check to parseDirectives on each file, in order.
func TestReadDirectives(t *testing.T) {
	texts := map[string]string{
		"a": "a: 1\n  # taintlint:ignore r1, r2 -- why\nb: 2 # taintlint:ignore r3\r\n",
		"b": "a: 1\n",
		"c": "x: " + strings.Repeat("y", 10000) + " # taintlint:ignore r9 -- too long\nz: 1 # taintlint:ignore r8\n",
		"d": "",
	}
	var files []string
	for range 50 {
		files = append(files, "a", "b", "c", "d", "missing")
	}
	open := func(name string) (io.ReadCloser, error) {
		text, ok := texts[name]
		if !ok {
			return nil, errors.New("no such file")
		}
		return io.NopCloser(strings.NewReader(text)), nil
	}
	got := readDirectives(open, files)
	for i, f := range files {
		var want []*directive
		if text, ok := texts[f]; ok {
			want, _ = parseDirectives(f, strings.NewReader(text))
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s: got %+v, want %+v", f, got[i], want)
		}
	}
}
