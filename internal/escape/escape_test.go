package escape

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ name, in, text, line string }{
		{"plain", "deploy/app.yaml", "deploy/app.yaml", "deploy/app.yaml"},
		{"colon inside", "key: value; a::b", "key: value; a::b", "key: value; a::b"},
		{"command at start", "::error title=x::pwned", `\x3a:error title=x::pwned`, `\x3a:error title=x::pwned`},
		{"add-mask after spaces", "  \t::add-mask::s3cret", "  \t\\x3a:add-mask::s3cret", "  \t\\x3a:add-mask::s3cret"},
		{"command on a later line", "fine\n::warning::x", "fine\n\\x3a:warning::x", `fine\n::warning::x`},
		{"after a space in the line", "wrapped at a space ::error::x", `wrapped at a space \x3a:error::x`, `wrapped at a space \x3a:error::x`},
		{"after no-break space", "\u00a0::error::x", "\u00a0\\x3a:error::x", "\u00a0\\x3a:error::x"},
		{"after ideographic space", "\u3000::error::x", "\u3000\\x3a:error::x", "\u3000\\x3a:error::x"},
		{"next line C1", "\u0085::error::x", `\x85::error::x`, `\x85::error::x`},
		{"old syntax", "a ##[error]x", `a ##\x5berror]x`, `a ##\x5berror]x`},
		{"old syntax hashes", "###[add-mask]x", `###\x5badd-mask]x`, `###\x5badd-mask]x`},
		{"one hash", "#[x]", "#[x]", "#[x]"},
		{"lone colon", ":", ":", ":"},
		{"colon at end after space", "a :", "a :", "a :"},
		{"triple colon", ":::x", `\x3a::x`, `\x3a::x`},
		{"OSC title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"CSI clear", "\x1b[2J", `\x1b[2J`, `\x1b[2J`},
		{"C1 CSI", "\u009b2J", `\x9b2J`, `\x9b2J`},
		{"carriage return", "ok\rpwned", `ok\rpwned`, `ok\rpwned`},
		{"bidi override", "a\u202eb\u2066c", `a\u202eb\u2066c`, `a\u202eb\u2066c`},
		{"line separator", "a\u2028::x", `a\u2028::x`, `a\u2028::x`},
		{"invalid UTF-8", "a\xffb\xe2\x82", `a\xffb\xe2\x82`, `a\xffb\xe2\x82`},
		{"tab kept", "a\tb", "a\tb", "a\tb"},
		{"non-ASCII kept", "ノード “gpu”", "ノード “gpu”", "ノード “gpu”"},
		{"file name with newline", "x.yaml\n::error file=a::b", "x.yaml\n\\x3a:error file=a::b", `x.yaml\n::error file=a::b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			var b bytes.Buffer
			w := NewWriter(&b)
			for i := 0; i < len(tc.in); i++ { // byte by byte: state carries over
				w.Write([]byte{tc.in[i]})
			}
			w.Close()
			if b.String() != tc.text {
				t.Errorf("Writer(%q) = %q, want %q", tc.in, b.String(), tc.text)
			}
		})
	}
}

// checkSafe fails when out could steer a terminal or a GitHub runner.
func checkSafe(t *testing.T, in, out string, oneLine bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("escape(%q) = %q: not UTF-8", in, out)
	}
	for _, r := range out {
		if NeedsEscape(r) {
			t.Fatalf("escape(%q) = %q holds %U", in, out, r)
		}
	}
	if oneLine && strings.Contains(out, "\n") {
		t.Fatalf("Line(%q) = %q holds a newline", in, out)
	}
	for _, l := range strings.Split(out, "\n") {
		// What the runner reads: the line after leading white space, and
		// the same line cut at any space (a caller may wrap there), or
		// indented (a caller may indent it).
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
			t.Fatalf("escape(%q) = %q: line %q is a workflow command", in, out, l)
		}
		for i, r := range l {
			if unicode.IsSpace(r) && strings.HasPrefix(strings.TrimLeftFunc(l[i:], unicode.IsSpace), "::") {
				t.Fatalf("escape(%q) = %q: line %q cut at a space is a workflow command", in, out, l)
			}
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"::error::x", " \t::add-mask::y", "a\n::x", "##[error]", "\x1b]8;;http://x\x07", "\u009b", "a\u202e", "\xff", "x\u00a0::y", ":", "#"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, split int) {
		text, line := Text(s), Line(s)
		checkSafe(t, s, text, false)
		checkSafe(t, s, line, true)
		if Text(text) != text && strings.Count(Text(text), `\`) < strings.Count(text, `\`) {
			t.Fatalf("Text(Text(%q)) lost escapes", s)
		}
		// The streaming Writer, fed in two pieces anywhere, writes what Text does.
		if split < 0 {
			split = -split
		}
		k := 0
		if len(s) > 0 {
			k = split % (len(s) + 1)
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write([]byte(s[:k]))
		w.Write([]byte(s[k:]))
		w.Close()
		if b.String() != text {
			t.Fatalf("Writer(%q split at %d) = %q, Text = %q", s, k, b.String(), text)
		}
		// JSON of s, escaped, decodes to s and holds nothing to escape.
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		j := JSON(enc)
		var back string
		if err := json.Unmarshal(j, &back); err != nil || back != strings.ToValidUTF8(s, "\ufffd") && utf8.ValidString(s) {
			t.Fatalf("JSON(%q) = %s decodes to %q, %v", enc, j, back, err)
		}
		for _, r := range string(j) {
			if r >= 0x20 && NeedsEscape(r) && r != utf8.RuneError {
				t.Fatalf("JSON(%q) = %s holds %U", enc, j, r)
			}
		}
		if bytes.Contains(j, []byte("##[")) {
			t.Fatalf("JSON(%q) = %s holds ##[", enc, j)
		}
	})
}

func TestJSON(t *testing.T) {
	in := []byte("{\"m\":\"a\u009bb\u202ec\x7fd\u2028 ##[error]\"}")
	got := JSON(in)
	want := `{"m":"a\u009bb\u202ec\u007fd\u2028 ##\u005berror]"}`
	if string(got) != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	var v, w map[string]string
	if err := json.Unmarshal(in, &v); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &w); err != nil || v["m"] != w["m"] {
		t.Errorf("JSON changed the value: %q vs %q (%v)", v["m"], w["m"], err)
	}
}

func TestLineWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewLineWriter(&b, "kustomize: ")
	for _, p := range []string{"Warning: ", "'bases' is deprecated\n::error title=x::y\n  ::add-", "mask::s3cret\r\n\x1b]0;t\x07", strings.Repeat("a", MaxLine+3)} {
		w.Write([]byte(p))
	}
	w.Close()
	want := "kustomize: Warning: 'bases' is deprecated\n" +
		"kustomize: \\x3a:error title=x::y\n" +
		"kustomize:   \\x3a:add-mask::s3cret\\r\n" +
		"kustomize: \\x1b]0;t\\x07" + strings.Repeat("a", MaxLine-6) + "\n" +
		"kustomize: aaaaaaaaa\n"
	if b.String() != want {
		t.Errorf("LineWriter wrote\n%q\nwant\n%q", b.String(), want)
	}
}
