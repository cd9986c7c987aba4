package fastyaml

import (
	"testing"
	"unicode/utf8"
)

// fastBytesByByte is fastBytes a byte at a time, as it was written first.
func fastBytesByByte(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c >= 0x20 && c < 0x7f || c == '\n' {
			i++
			continue
		}
		if c < 0x80 {
			return false
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 || r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xfffe && r <= 0xffff {
			return false
		}
		i += n
	}
	return true
}

// FuzzFastBytes holds fastBytes, which reads eight bytes at a time, to
// the same test a byte at a time, at every offset of the input.
func FuzzFastBytes(f *testing.F) {
	for _, s := range []string{"", "abcdefgh", "abcdefg\x7f", "abcdefgh\x1f", "a\tb", "é\u2028abcdefghijkl", "\x00\xff\x80\x7e\x20\x1f\x7f\xa0", "abcdefgh\xff\xff\xff\xff\xff\xff\xff\xffabcdefgh", "\u00a0\u00a1 ~~~~~~~~\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range min(len(data), 9) + 1 {
			if got, want := fastBytes(data[i:]), fastBytesByByte(data[i:]); got != want {
				t.Errorf("fastBytes(%q) = %v, want %v", data[i:], got, want)
			}
		}
	})
}
