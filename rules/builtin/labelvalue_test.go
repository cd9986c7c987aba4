package builtin

import (
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
