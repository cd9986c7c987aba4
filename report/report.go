package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/rules"
)

// Format is an output format name.
type Format string

const (
	Text   Format = "text"
	JSON   Format = "json"
	SARIF  Format = "sarif"
	GitHub Format = "github"
)

// formatWriter is a format and its writer.
type formatWriter struct {
	format Format
	write  func(io.Writer, *Result, Options) error
}

// writers is every format with its writer, in the order the help text
// gives them: Formats and Write both read it, so a format cannot be
// listed without a writer or written without being listed.
func writers() []formatWriter {
	return []formatWriter{
		{Text, WriteText},
		{JSON, WriteJSON},
		{SARIF, WriteSARIF},
		{GitHub, WriteGitHub},
	}
}

// Formats lists the formats in the order the help text gives them.
func Formats() []Format {
	ws := writers()
	fs := make([]Format, len(ws))
	for i, w := range ws {
		fs[i] = w.format
	}
	return fs
}

// ParseFormat reads a format name; an unknown name is an error, never a
// silent fallback.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats()))
	for i, f := range Formats() {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q%s (want %s)", s, textdist.DidYouMean(s, names), strings.Join(names, ", "))
}

// Options tune rendering.
type Options struct {
	// Color turns on ANSI colours in text output. The cli decides it (a
	// terminal and no NO_COLOR), so that the writers stay pure.
	Color bool
	// ShowSuppressed lists suppressed findings in text, JSON and github
	// output. SARIF always carries them, marked with suppressions.
	ShowSuppressed bool
	// Version is taintlint's version, for SARIF's driver.
	Version string
	// StepSummary, when set, receives a Markdown summary (GitHub's
	// $GITHUB_STEP_SUMMARY) with the github format.
	StepSummary io.Writer
	// Verbose adds to the text summary what was checked: the objects by
	// kind and by source.
	Verbose bool
}

// Write renders res in format f.
func Write(w io.Writer, f Format, res *Result, opts Options) error {
	for _, wr := range writers() {
		if wr.format == f {
			return wr.write(w, res, opts)
		}
	}
	return fmt.Errorf("unknown format %q", f)
}

// withSuppressed is the findings a listing shows: the ones that count and,
// when asked for, the suppressed ones merged into the same total order.
func withSuppressed(res *Result, show bool) []rules.Finding {
	if !show || len(res.Suppressed) == 0 {
		return res.Findings
	}
	all := make([]rules.Finding, 0, len(res.Findings)+len(res.Suppressed))
	all = append(append(all, res.Findings...), res.Suppressed...)
	rules.SortFindings(all)
	return all
}

// counts is the summary's "1 error(s), 2 warning(s), 0 note(s)". The
// wording is the one scripts and tests already match, so it stays.
func counts(s Summary) string {
	return fmt.Sprintf("%d error(s), %d warning(s), %d note(s)",
		s.Findings[rules.Error], s.Findings[rules.Warning], s.Findings[rules.Note])
}

// scope is the summary's "in 4 file(s), 12 object(s), 5 node(s)".
func scope(s Summary) string {
	return fmt.Sprintf("in %d file(s), %d object(s), %d node(s)", s.Files, s.Objects, s.Nodes)
}

// suppressedNote is how text and Markdown mark a suppressed finding:
// "suppressed: <reason>". Whether an annotation or the configuration did it
// is in JSON and SARIF (kind inSource or external).
func suppressedNote(s *rules.Suppression) string {
	if s.Reason == "" {
		return "suppressed"
	}
	return "suppressed: " + s.Reason
}

// printable escapes the characters of s that a terminal or a log viewer
// would act on rather than show: C0 and C1 controls other than tab and
// newline (ANSI escape sequences, carriage returns that overwrite a line),
// and the bidirectional overrides that can make text read differently from
// what it is. Messages quote manifest values, which are untrusted.
func printable(s string) string {
	// Messages are nearly always printable ASCII: bytes first, runes
	// only from the first byte that is not.
	i := 0
	for i < len(s) && (s[i] >= 0x20 && s[i] < 0x7f || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	if i == len(s) {
		return s
	}
	clean := true
	for _, r := range s[i:] {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, n := utf8.DecodeRuneInString(s[i:])
		w = n
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case needsEscape(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// printableName is printable for a file name, which is one line: a newline
// in it is escaped too, so that a name cannot start a line of its own (a
// workflow command in an Actions log, a forged finding).
func printableName(s string) string {
	return strings.ReplaceAll(printable(s), "\n", `\n`)
}

func needsEscape(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}
