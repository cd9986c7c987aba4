package rego

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/taintlint/taintlint/loader"
)

// TestJSONValueMatchesToJSON holds what a policy sees of an object
// (jsonValue on the loader's JSON) to kubectl's reading of it, for
// yamlCases and every object under testdata: a policy must see a manifest
// exactly as kubectl (and taintlint's Go rules) read it. The loader's JSON
// is kubectl's reading (the loader's FuzzStreamAsKubectl holds it to
// kubectl's decoder, and to sigs.k8s.io/yaml itself where the loader does
// not write it: loader.ToJSON, its own conversion of a tree, is no longer
// the reference), so jsonValue is held to OPA's reader of it.
func TestJSONValueMatchesToJSON(t *testing.T) {
	check := func(t *testing.T, name string, data []byte) {
		for _, obj := range loader.Parse(name, data).Objects {
			js, err := obj.JSON()
			if err != nil {
				continue
			}
			treeJSON := js
			want, err := ast.ValueFromReader(bytes.NewReader(treeJSON))
			if err != nil {
				t.Fatalf("%s: ToJSON gave invalid JSON %s: %v", obj.Ref, treeJSON, err)
			}
			got, err := jsonValue(js)
			if err != nil {
				t.Fatalf("%s: %v on %s", obj.Ref, err, js)
			}
			if got.Compare(want) != 0 {
				t.Errorf("%s:\n got  %v\n want %v", obj.Ref, got, want)
			}
			if std, err := ast.ValueFromReader(bytes.NewReader(js)); err != nil || std.Compare(got) != 0 {
				t.Errorf("%s: ast.ValueFromReader gives %v, %v", obj.Ref, std, err)
			}
		}
	}
	for _, c := range yamlCases {
		check(t, c.name, []byte("apiVersion: v1\nkind: X\nmetadata: {name: x}\nv:\n  "+strings.ReplaceAll(c.doc, "\n", "\n  ")+"\n"))
	}
	check(t, "escapes", []byte("apiVersion: v1\nkind: X\nmetadata: {name: \"a<b>&\\\"c\\\\d\\u2028\\t\"}\nn: [-1, 1.5e-7, 0, {}, [], \"\", null]\n"))
	err := filepath.WalkDir("../testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			check(t, p, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestJSONValueRejectsMalformed(t *testing.T) {
	for _, s := range []string{"", "{", "[1,", `{"a"}`, `{"a":1,}`, "tru", `"x`, "1 2", "{}x", "-"} {
		if v, err := jsonValue([]byte(s)); err == nil {
			t.Errorf("jsonValue(%q) = %v, want an error", s, v)
		}
	}
}

// TestJSONConvertibleAgreesWithJSONValue: jsonConvertible says yes exactly
// when jsonValue converts, around the depth limit: containers, scalars,
// strings and keys at the deepest allowed level and one below, with
// brackets inside strings that must not count.
func TestJSONConvertibleAgreesWithJSONValue(t *testing.T) {
	nest := func(levels int, inner string) string {
		return strings.Repeat("[", levels) + inner + strings.Repeat("]", levels)
	}
	var cases []string
	for _, levels := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, inner := range []string{"", "1", `"a"`, "true", "null", "[]", "{}", `{"k":1}`, `"[[[{"`, `{"[":"]"}`} {
			cases = append(cases, nest(levels, inner))
			cases = append(cases, `{"a":`+nest(levels, inner)+`,"b":[1,2]}`)
		}
	}
	// Many brackets side by side, none deep.
	cases = append(cases, "["+strings.Repeat("[],", 3*maxDepth)+"[]]", `["`+strings.Repeat("{", 3*maxDepth)+`"]`)
	for _, c := range cases {
		_, err := jsonValue([]byte(c))
		if got, want := jsonConvertible([]byte(c)), err == nil; got != want {
			t.Errorf("jsonConvertible(%.40q... %d bytes) = %v, jsonValue error %v", c, len(c), got, err)
		}
	}
}
