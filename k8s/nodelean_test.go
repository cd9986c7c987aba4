package k8s

import (
	"fmt"
	"strings"

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
