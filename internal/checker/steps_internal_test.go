package checker

import (
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader"
)

// TestMayMark: the pre-check of suppressByAnnotation passes every object
// whose metadata could hold a suppression annotation.
func TestMayMark(t *testing.T) {
	for _, name := range []string{IgnoreAll, IgnoreCheckPrefix} {
		if !strings.Contains(name, annotationMark) {
			t.Fatalf("%s does not hold %q", name, annotationMark)
		}
	}
	tests := []struct {
		doc  string
		want bool
	}{
		{"kind: Pod\nmetadata: {name: a}\n", false},
		{"kind: Pod\n", false},
		{"kind: Pod\nmetadata: {name: a, annotations: {other: x}}\n", false},
		{"kind: Pod\nmetadata: {name: a, annotations: {taintlint.io/ignore-all: why}}\n", true},
		{"kind: Pod\nmetadata: {name: a, annotations: {ignore-check.taintlint.io/x: why}}\n", true},
		{"{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\", \"annotations\": {\"taintlint\\u002eio/ignore-all\": \"why\"}}}\n", true},
		{"kind: Pod\nspec: {x: taintlint.io/}\nmetadata: {name: a}\n", false},
		{"kind: Pod\nmetadata: &m {name: a}\nspec: {x: *m}\n", false}, // JSON from kubectl's YAML
	}
	for _, tt := range tests {
		doc := tt.doc
		if !strings.HasPrefix(doc, "{") {
			doc = "apiVersion: v1\n" + doc
		}
		r := loader.Parse("f.yaml", []byte(doc))
		if len(r.Objects) != 1 {
			t.Fatalf("%q: %d objects, %v", tt.doc, len(r.Objects), r.Errors)
		}
		if got := mayMark(r.Objects[0]); got != tt.want {
			t.Errorf("mayMark(%q) = %v, want %v", tt.doc, got, tt.want)
		}
	}
}
