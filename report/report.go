package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/taintlint/taintlint/internal/escape"
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

// printable is escape.Text: messages quote manifest values, which are
// untrusted, so no control character, escape sequence, bidirectional
// override or workflow command reaches a terminal or a CI log through
// them (see package escape).
func printable(s string) string { return escape.Text(s) }

// printableName is printable for a file name, which is one line: a newline
// in it is escaped too, so that a name cannot start a line of its own (a
// workflow command in an Actions log, a forged finding).
func printableName(s string) string { return escape.Line(s) }
