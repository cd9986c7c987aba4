package report

import (
	"testing"
	"unicode/utf8"
)

// FuzzWrapCounts holds the ASCII shortcuts of longer and byteIndexOfRune to
// their definitions in code points.
func FuzzWrapCounts(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add("abc", 2)
	f.Add("ab\xffcd", 2)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 300 {
			return
		}
		if got, want := longer(s, n), utf8.RuneCountInString(s) > n; got != want {
			t.Fatalf("longer(%q,%d)=%v", s, n, got)
		}
		want := len(s)
		k := n
		for i := range s {
			if k == 0 {
				want = i
				break
			}
			k--
		}
		if got := byteIndexOfRune(s, n); got != want {
			t.Fatalf("byteIndexOfRune(%q,%d)=%d want %d", s, n, got, want)
		}
	})
}
