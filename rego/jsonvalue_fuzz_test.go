package rego

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// FuzzJSONValue holds jsonValue to OPA's own conversion
// (ast.ValueFromReader) on any compact JSON: the same value, or an error
// from both. jsonValue reads the JSON the loader writes, which is valid
// UTF-8 with no duplicate keys, so inputs outside that are not judged;
// beyond maxDepth it refuses what OPA would take, as jsonConvertible says.
func FuzzJSONValue(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, `0`, `-1.5e10`, `"a\u00e9\"\\\/\b\f\n\r\t"`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a.b/c":"1"}},"spec":{"tolerations":[{"key":"k","operator":"Exists","tolerationSeconds":300}]}}`,
		`[1,2.0,1e400,-0,12345678901234567890,"x",[{}],{"":null}]`,
		`{"a":{"b":{"c":[[[["deep"]]]]}}}`, `"\ud83d\ude00"`, `"\ud800"`,
		`10000000e70000`, `[1e-40000]`, `{"s":1E40000}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var buf bytes.Buffer
		if !utf8.Valid(data) || json.Compact(&buf, data) != nil || hasDuplicateKey(buf.Bytes()) {
			return
		}
		js := buf.Bytes()
		want, werr := ast.ValueFromReader(bytes.NewReader(js))
		got, err := jsonValue(js)
		switch {
		case werr != nil && err == nil:
			t.Fatalf("jsonValue(%s) = %v; OPA refuses it: %v", js, got, werr)
		case werr != nil:
		case err != nil:
			if jsonConvertible(js) {
				t.Fatalf("jsonValue(%s): %v; OPA reads %v", js, err, want)
			}
		case want.Compare(got) != 0:
			t.Fatalf("jsonValue(%s) = %v; OPA reads %v", js, got, want)
		}
	})
}

// hasDuplicateKey reports whether some object in the valid JSON data
// names a key twice.
func hasDuplicateKey(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []map[string]bool
	expectKey := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = append(expectKey, true)
			case '[':
				stack = append(stack, nil)
				expectKey = append(expectKey, false)
			default:
				stack, expectKey = stack[:len(stack)-1], expectKey[:len(expectKey)-1]
				if n := len(expectKey); n > 0 && stack[n-1] != nil {
					expectKey[n-1] = true
				}
			}
			continue
		case string:
			if n := len(stack); n > 0 && stack[n-1] != nil && expectKey[n-1] {
				if stack[n-1][v] {
					return true
				}
				stack[n-1][v] = true
				expectKey[n-1] = false
				continue
			}
		}
		if n := len(expectKey); n > 0 && stack[n-1] != nil {
			expectKey[n-1] = true
		}
	}
}
