package textdist

import (
	"strings"
	"testing"
)

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"NoSchedule", "NoSchedule", 0},
		{"NoSchedul", "NoSchedule", 1},
		{"noschedule", "NoSchedule", 2},
		{"kitten", "sitting", 3},
		{strings.Repeat("a", 257), "a", 1 << 30},
	} {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	ids := []string{"toleration-wildcard", "toleration-unmatched", "nodes", "never"}
	for s, want := range map[string]string{"toleration-wildcrd": "toleration-wildcard", "node": "nodes", "nevr": "never", "zzz": "", "nodes": "", "Nodes": "nodes"} {
		if got := Nearest(s, ids); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", s, got, want)
		}
	}
}
