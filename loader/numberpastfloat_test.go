package loader

import (
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// TestNumberPastFloat holds numberPastFloat to kubectl's own decoding of
// the value: a number it cannot read is found, and nothing else is.
func TestNumberPastFloat(t *testing.T) {
	for _, v := range []string{
		`{"a": 1e700}`, `{"a": 1E400}`, `{"a": -0.1e+400}`, `{"a": 1e-700}`, `{"a": 1e308}`,
		`{"a": "1e999", "b": "x\"1e999"}`, `{"a": [1, 2.5, -3e2, 12345678901234567890123]}`,
		`{"a": ` + strings.Repeat("9", 310) + `}`, `{"a": ` + strings.Repeat("9", 300) + `}`,
		`{"image": "x@sha256:1e3f00", "n": true, "f": false, "z": null}`,
	} {
		var m map[string]any
		kubectlRefuses := kjson.UnmarshalCaseSensitivePreserveInts([]byte(v), &m) != nil
		if got := numberPastFloat([]byte(v)); (got != "") != kubectlRefuses {
			t.Errorf("numberPastFloat(%.60s) = %q, kubectl refuses it: %v", v, got, kubectlRefuses)
		}
	}
}
