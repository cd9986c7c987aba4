package builtin

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// FuzzPlainLabelValue holds plainLabelValue to validation.IsValidLabelValue.
func FuzzPlainLabelValue(f *testing.F) {
	for _, s := range []string{"", "a", "-", "a-", "-a", "a.b_c-d", "ip-10-0-0-0.eu-west-1.compute.internal", "_a", "a_", "é", "a b", "a\x00b",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a\n", "A9", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := plainLabelValue(v), len(validation.IsValidLabelValue(v)) == 0; got != want {
			t.Errorf("plainLabelValue(%q) = %v; IsValidLabelValue finds it valid: %v", v, got, want)
		}
	})
}

// FuzzPlainLabelKey holds plainLabelKey to validation.IsQualifiedName.
func FuzzPlainLabelKey(f *testing.F) {
	for _, s := range []string{"", "a", "/", "a/", "/a", "a/b", "a/b/c", "example.com/gpu", "Example.com/gpu", "ex_ample.com/a", "a..b/c", ".a/b", "a./b", "-a/b", "a-/b", "a.b-c.d/e_f.G", "kubernetes.io/hostname",
		"node-role.kubernetes.io/control-plane", "a/-b", "a/b-", "a/" + strings.Repeat("b", 64), strings.Repeat("a", 254) + "/b", strings.Repeat("a.", 126) + "a/b", "é/a", "a b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if got, want := plainLabelKey(k), len(validation.IsQualifiedName(k)) == 0; got != want {
			t.Errorf("plainLabelKey(%q) = %v; IsQualifiedName finds it valid: %v", k, got, want)
		}
	})
}
