package textdist

import (
	"fmt"
	"strings"
	"testing"
	"time"
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

// nearestFull is Nearest as it was before its work was bounded: the
// oracle for the banded search on ordinary input.
func nearestFull(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if c == s {
			return ""
		}
		d := Levenshtein(lower(s), lower(c))
		if len(s) >= 3 && len(c) > len(s) && lower(c[:len(s)]) == lower(s) {
			d = min(d, 2)
		}
		if d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

func FuzzWithin(f *testing.F) {
	f.Add("kitten", "sitting", 2, "node", "nodes")
	f.Add("NoSchedul", "NoSchedule", 1, "warn", "warning")
	f.Fuzz(func(t *testing.T, a, b string, k int, c, d string) {
		if len(a) > 64 || len(b) > 64 || len(c) > 64 || len(d) > 64 {
			return
		}
		k = max(0, k%70)
		want := min(Levenshtein(a, b), k+1)
		if got, _ := within(a, b, k); got != want {
			t.Fatalf("within(%q, %q, %d) = %d, want %d", a, b, k, got, want)
		}
		cands := []string{b, c, d}
		if got, want := Nearest(a, cands), nearestFull(a, cands); got != want {
			t.Fatalf("Nearest(%q, %q) = %q, want %q", a, cands, got, want)
		}
	})
}

// TestNearestBounded: 400 keys of 250 bytes against 400 others took
// seconds per call when every pair was measured in full; the window and
// the work bound keep it to milliseconds. The bound here is generous (a
// loaded machine); BenchmarkNearestHostile has the real numbers.
func TestNearestBounded(t *testing.T) {
	keys := hostileKeys(400, 250)
	start := time.Now()
	for _, k := range hostileKeys(400, 250) {
		Nearest(k+"x", keys)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("400 hints over 400 candidates of 250 bytes took %v", d)
	}
}

func hostileKeys(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("example.com/%0*d", size-12, i)
	}
	return out
}

func BenchmarkNearestHostile(b *testing.B) {
	keys := hostileKeys(400, 250)
	for b.Loop() {
		Nearest(keys[7]+"x", keys)
	}
}
