// Package escape makes text that came from input (file names, manifest
// keys and values, Kustomize's and Helm's messages) safe to write where a
// terminal or a CI log reads it. One function decides it for every writer
// of the program, so that no format, and no line on standard error, can be
// steered by what a pull request puts in a manifest:
//
//   - control characters (C0 but tab and newline, DEL, C1) are written as
//     \xNN, carriage return as \r: no ESC [ (CSI), ESC ] (OSC), BEL or
//     cursor movement reaches a terminal, and no line is overwritten;
//   - bidirectional controls and the Unicode line and paragraph
//     separators are written as \uNNNN, so text reads as it is;
//   - bytes that are not UTF-8 are written as \xNN;
//   - a line cannot begin a GitHub Actions workflow command: the runner
//     reads a line as one when, after leading white space, it starts with
//     "::", or when "##[" occurs in it (the older syntax). So a "::" at the
//     start of the text or after any white space is written "\x3a:", and
//     the "[" of "##[" as "\x5b". Callers may then indent escaped text,
//     and break it at spaces, and still start no command.
package escape

import (
	"bytes"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// Text escapes s for output, keeping its newlines and tabs.
func Text(s string) string {
	if clean(s) {
		return s
	}
	var b bytes.Buffer
	var st state
	st.atSpace = true
	st.write(&b, []byte(s), false)
	st.flush(&b)
	return b.String()
}

// Line is Text for what must stay on one line (a file name, a message on
// standard error): newlines are written as \n too.
func Line(s string) string {
	if clean(s) && !containsNewline(s) {
		return s
	}
	var b bytes.Buffer
	st := state{atSpace: true, oneLine: true}
	st.write(&b, []byte(s), false)
	st.flush(&b)
	return b.String()
}

// clean reports whether s needs no escape: printable ASCII, tabs and
// newlines, with no ':' or '[' that could take part in a command. Nearly
// every message is; the rest take the slow path.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != ':' && c != '[' || c == '\t' || c == '\n' {
			continue
		}
		return false
	}
	return true
}

func containsNewline(s string) bool {
	return bytes.IndexByte([]byte(s), '\n') >= 0
}

// NeedsEscape reports whether Text writes r as an escape.
func NeedsEscape(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c, r == 0x2028, r == 0x2029:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

// state is the escaper between two pieces of one stream: whether the
// last rune written was white space (or nothing was written), how many
// '#' end the output, and a ':' held back until the next rune says
// whether it starts "::".
type state struct {
	atSpace bool
	hashes  int
	colon   bool
	oneLine bool
	partial []byte // an incomplete UTF-8 sequence at the end of a write
}

// write escapes p into b. more says p may be followed by more bytes of
// the same stream, so an incomplete UTF-8 sequence at its end is held.
func (st *state) write(b *bytes.Buffer, p []byte, more bool) {
	if len(st.partial) > 0 {
		p = append(st.partial, p...)
		st.partial = nil
	}
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n <= 1 && more && !utf8.FullRune(p[i:]) {
			st.partial = append([]byte(nil), p[i:]...)
			return
		}
		st.rune(b, r, n, p[i])
		i += n
	}
}

// rune writes one rune (or the invalid byte c when r is RuneError of width 1).
func (st *state) rune(b *bytes.Buffer, r rune, n int, c byte) {
	if st.colon {
		st.colon = false
		if r == ':' {
			b.WriteString(`\x3a:`)
			st.atSpace, st.hashes = false, 0
			return
		}
		b.WriteByte(':')
		st.atSpace, st.hashes = false, 0
	}
	switch {
	case r == utf8.RuneError && n == 1:
		fmt.Fprintf(b, `\x%02x`, c)
		st.atSpace, st.hashes = false, 0
	case r == '\n' && !st.oneLine:
		b.WriteByte('\n')
		st.atSpace, st.hashes = true, 0
	case r == '\n':
		b.WriteString(`\n`)
		st.atSpace, st.hashes = false, 0
	case r == '\r':
		b.WriteString(`\r`)
		st.atSpace, st.hashes = false, 0
	case NeedsEscape(r) && r < 0x100:
		fmt.Fprintf(b, `\x%02x`, r)
		st.atSpace, st.hashes = false, 0
	case NeedsEscape(r):
		fmt.Fprintf(b, `\u%04x`, r)
		st.atSpace, st.hashes = false, 0
	case r == ':' && st.atSpace:
		st.colon = true
	case r == '[' && st.hashes >= 2:
		b.WriteString(`\x5b`)
		st.atSpace, st.hashes = false, 0
	case r == '#':
		b.WriteByte('#')
		st.atSpace = false
		st.hashes++
	default:
		b.WriteRune(r)
		st.atSpace, st.hashes = unicode.IsSpace(r), 0
	}
}

// flush ends the stream: a held ':' is written as it is, and held bytes
// of an incomplete UTF-8 sequence are escaped.
func (st *state) flush(b *bytes.Buffer) {
	if st.colon {
		st.colon = false
		b.WriteByte(':')
		st.atSpace = false
	}
	for _, c := range st.partial {
		fmt.Fprintf(b, `\x%02x`, c)
		st.atSpace = false
	}
	st.partial = nil
}

// Writer escapes everything written through it, as Text does for one
// string, into an underlying writer: for output made of input from end to
// end (an explanation, Kustomize's log). Close writes what it holds back
// (a ':' or an incomplete UTF-8 sequence) and does not close w.
type Writer struct {
	w   io.Writer
	st  state
	buf bytes.Buffer
}

// NewWriter is a Writer into w, at the start of a line.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, st: state{atSpace: true}}
}

// Write escapes p; it reports len(p) written when w took the escaped bytes.
func (e *Writer) Write(p []byte) (int, error) {
	e.buf.Reset()
	e.st.write(&e.buf, p, true)
	if _, err := e.w.Write(e.buf.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what the Writer holds back.
func (e *Writer) Close() error {
	e.buf.Reset()
	e.st.flush(&e.buf)
	if e.buf.Len() == 0 {
		return nil
	}
	_, err := e.w.Write(e.buf.Bytes())
	return err
}
