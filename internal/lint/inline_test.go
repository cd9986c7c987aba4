package lint

import (
	"strings"
	"testing"
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
