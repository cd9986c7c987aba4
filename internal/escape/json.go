package escape

import (
	"fmt"
	"unicode/utf8"
)

// JSON rewrites an encoded JSON document so that it holds no character a
// terminal acts on: encoding/json writes C0 controls as \u escapes but
// DEL, the C1 controls (U+009B is CSI to some terminals) and the
// bidirectional controls as they are. Those can only stand inside strings,
// where \uNNNN means the same character, so the document decodes to the
// same value. So does the "[" of "##[" (the runner reads the older
// command syntax anywhere in a line, and a report printed to a CI log is
// read line by line): '#' stands only inside strings. Bytes that are not
// UTF-8 (encoding/json never writes them) are left as they are.
func JSON(p []byte) []byte {
	i := 0
	for i < len(p) && p[i] < utf8.RuneSelf && p[i] != 0x7f && !(p[i] == '[' && i >= 2 && p[i-1] == '#' && p[i-2] == '#') {
		i++
	}
	if i == len(p) {
		return p
	}
	out := make([]byte, 0, len(p)+16)
	out = append(out, p[:i]...)
	for i < len(p) {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == '[' && i >= 2 && p[i-1] == '#' && p[i-2] == '#':
			out = append(out, `\u005b`...)
		case r != utf8.RuneError && r >= 0x20 && NeedsEscape(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, p[i:i+n]...)
		}
		i += n
	}
	return out
}
