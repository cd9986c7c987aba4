package scheduling

import (
	"strings"
	"testing"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

func workload(t *testing.T, kind, spec string) *k8s.Workload {
	t.Helper()
	src := "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n" + indent(spec, "      ")
	if kind == "Pod" {
		src = "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n" + indent(spec, "  ")
	}
	r := loader.Parse("w.yaml", []byte(src))
	if len(r.Objects) != 1 {
		t.Fatalf("parse: %v", r.Errors)
	}
	w, issue := k8s.NewWorkload(r.Objects[0])
	if issue != nil {
		t.Fatalf("decode: %s: %s", issue[0].Path, issue[0].Msg)
	}
	return w
}

func indent(s, by string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l != "" {
			b.WriteString(by + l)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
