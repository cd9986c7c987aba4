package report

import "testing"

// The helpers below decide bytes that other programs parse (GitHub's
// workflow commands, URIs, Markdown tables), so each has its own table.

func TestEscapeWorkflowCommand(t *testing.T) {
	for _, tc := range []struct {
		name, in, data, prop string
	}{
		{name: "plain", in: "deploy/app.yaml", data: "deploy/app.yaml", prop: "deploy/app.yaml"},
		{name: "percent first", in: "100%0A", data: "100%250A", prop: "100%250A"},
		{name: "newlines", in: "a\r\nb", data: "a%0D%0Ab", prop: "a%0D%0Ab"},
		{name: "separators", in: "a:b,c", data: "a:b,c", prop: "a%3Ab%2Cc"},
		{name: "double colon", in: "x::error::y", data: "x::error::y", prop: "x%3A%3Aerror%3A%3Ay"},
		{name: "non-ASCII kept", in: "ノード “gpu”", data: "ノード “gpu”", prop: "ノード “gpu”"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := escapeData(tc.in); got != tc.data {
				t.Errorf("escapeData(%q) = %q, want %q", tc.in, got, tc.data)
			}
			if got := escapeProperty(tc.in); got != tc.prop {
				t.Errorf("escapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
			}
		})
	}
}

func TestArtifactURI(t *testing.T) {
	for _, tc := range []struct {
		name, file, uri, base string
	}{
		{name: "relative", file: "deploy/app.yaml", uri: "deploy/app.yaml", base: "%SRCROOT%"},
		{name: "dot slash cleaned", file: "./deploy/../deploy/app.yaml", uri: "deploy/app.yaml", base: "%SRCROOT%"},
		{name: "parent kept", file: "../other/app.yaml", uri: "../other/app.yaml", base: "%SRCROOT%"},
		{name: "escaped", file: "my dir/a#1?.yaml", uri: "my%20dir/a%231%3F.yaml", base: "%SRCROOT%"},
		{name: "non-ASCII", file: "café.yaml", uri: "caf%C3%A9.yaml", base: "%SRCROOT%"},
		{name: "colon in first segment", file: "a:b.yaml", uri: "./a:b.yaml", base: "%SRCROOT%"},
		{name: "stdin", file: "-", uri: "-", base: "%SRCROOT%"},
		{name: "absolute", file: "/srv/x y.yaml", uri: "file:///srv/x%20y.yaml"},
		{name: "windows drive", file: "C:/work/app.yaml", uri: "file:///C:/work/app.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uri, base := artifactURI(tc.file)
			if uri != tc.uri || base != tc.base {
				t.Errorf("artifactURI(%q) = %q, %q; want %q, %q", tc.file, uri, base, tc.uri, tc.base)
			}
		})
	}
}

func TestToolVersion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1.2.3", "1.2.3"},
		{"v1.2.3", "1.2.3"},
		{"v0.0.0-20260101000000-abcdef123456 (commit abcdef123456)", "0.0.0-20260101000000-abcdef123456 (commit abcdef123456)"},
		{"(devel)", "0.0.0-devel"},
		{"(devel) (commit abcdef123456+dirty)", "0.0.0-devel"},
		{"(unknown)", "0.0.0-unknown"},
		{"", "0.0.0-unknown"},
		{"vNext", "0.0.0-vNext"},
		{"(dév)", "0.0.0-unknown"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := toolVersion(tc.in); got != tc.want {
				t.Errorf("toolVersion(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{name: "plain", in: "value \"x\" is bad", want: "value \"x\" is bad"},
		{name: "tab and newline kept", in: "a\tb\nc", want: "a\tb\nc"},
		{name: "ANSI escape", in: "\x1b[31mred", want: `\x1b[31mred`},
		{name: "carriage return", in: "ok\rBAD", want: `ok\rBAD`},
		{name: "C1 control", in: "a\u009bb", want: `a\x9bb`},
		{name: "bidi override", in: "a\u202eb", want: `a\u202eb`},
		{name: "invalid UTF-8", in: "a\xffb", want: `a\xffb`},
		{name: "non-ASCII kept", in: "café ノード “q”", want: "café ノード “q”"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := printable(tc.in); got != tc.want {
				t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMarkdownCell(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{name: "pipe", in: "a|b", want: `a\|b`},
		{name: "newline", in: "a\nb", want: "a<br>b"},
		{name: "link and emphasis", in: "[x](y) *z* _w_", want: `\[x\](y) \*z\* \_w\_`},
		{name: "html", in: "<script>", want: `\<script\>`},
		{name: "backslash first", in: `a\|b`, want: `a\\\|b`},
		{name: "code span", in: "`k`", want: "\\`k\\`"},
		{name: "percent and quotes kept", in: `100% "x"`, want: `100% "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := markdownCell(tc.in); got != tc.want {
				t.Errorf("markdownCell(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"value must be empty", "value must be empty."},
		{"0/3 nodes are available.", "0/3 nodes are available."},
		{"really?", "really?"},
		{"trailing space \n", "trailing space."},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := sentence(tc.in); got != tc.want {
				t.Errorf("sentence(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
