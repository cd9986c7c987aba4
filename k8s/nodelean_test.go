package k8s

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader"
)

// leanNodeDiffs are nodeViewDiff's differences for every Node of data
// read as the node inventory reads it (NodeLean), and of data made the
// only item of a List (NodeLean reads List items only), with how many
// Nodes were read lean.
func leanNodeDiffs(name string, data []byte) (diffs []string, lean int) {
	var list strings.Builder
	list.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if i == 0 {
			list.WriteString("- " + line + "\n")
		} else {
			list.WriteString("  " + line + "\n")
		}
	}
	l := NodeLean()
	for _, src := range []string{string(data), list.String()} {
		for _, obj := range loader.ParseLean(name, []byte(src), l).Objects {
			if !IsNode(obj) {
				continue
			}
			if _, ok := obj.LeanJSON(l.Schema); ok {
				lean++
			}
			if diff := nodeViewDiff(obj); diff != "" {
				diffs = append(diffs, fmt.Sprintf("read lean: %q: %s: %s", src, obj.Name, diff))
			}
		}
	}
	return diffs, lean
}

// FuzzTaintsOf holds taintsOf to decoding into []v1.Taint, on compact
// JSON (as the loader writes it).
func FuzzTaintsOf(f *testing.F) {
	for _, s := range []string{`[]`, `[{"key":"k","value":"v","effect":"NoSchedule"}]`, `[{"key":null,"value":"v"}]`, `[{"Key":"k"}]`,
		`[{"key":"a","key":"b"}]`, `[{"key":"a","key":null}]`, `[{"ke\u0079":"x"}]`, `[null]`, `[{"timeAdded":"2024-01-01T00:00:00Z"}]`, `[{"x":{"y":[1]},"effect":"NoExecute"}]`,
		`[{"key":"é"}]`, `[{"key":1}]`, `[{"key":"a\"b"}]`, `{}`, `null`, `[{},{"value":""}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if !json.Valid(data) || json.Compact(&compact, data) != nil || !bytes.Equal(compact.Bytes(), data) {
			return
		}
		got, ok := taintsOf(data)
		if !ok {
			return
		}
		var want []v1.Taint
		if err := unmarshal(data, &want); err != nil {
			t.Fatalf("%s: taintsOf read it, decoding fails: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, want %#v", data, got, want)
		}
	})
}
