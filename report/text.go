package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rules"
)

// WriteText writes one line per finding, file:line:col: severity: message
// [rule-id], grouped by file with a blank line between files, related
// locations indented under their finding, then the run's notices and a
// closing summary line. It is meant for people, so control characters in
// messages are escaped and colours are used only when opts.Color says so.
func WriteText(w io.Writer, res *lint.Result, opts Options) error {
	bw := bufio.NewWriter(w)
	writeText(bw, res, opts.ShowSuppressed, palette(opts.Color))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("text output: %w", err)
	}
	return nil
}

// palette is whether ANSI colours are on; its methods wrap text in them.
type palette bool

// ANSI SGR parameters. Only the basic eight colours, so that every terminal
// theme keeps them readable.
const (
	sgrBold   = "1"
	sgrDim    = "2"
	sgrRed    = "1;31"
	sgrYellow = "33"
	sgrCyan   = "36"
)

func (p palette) paint(sgr, s string) string {
	if !p || s == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

func (p palette) severity(s rules.Severity) string {
	switch s {
	case rules.Error:
		return p.paint(sgrRed, s.String())
	case rules.Warning:
		return p.paint(sgrYellow, s.String())
	case rules.Note:
		return p.paint(sgrCyan, s.String())
	}
	return s.String()
}

// writeText renders the text report into w; w's sticky error reaches the
// caller through Flush.
func writeText(w *bufio.Writer, res *lint.Result, showSuppressed bool, p palette) {
	findings := withSuppressed(res, showSuppressed)
	for i, f := range findings {
		if i > 0 && f.Pos.File != findings[i-1].Pos.File {
			w.WriteByte('\n')
		}
		writeFinding(w, &f, p)
	}
	if len(findings) > 0 {
		w.WriteByte('\n')
	}
	for _, n := range res.Notices {
		fmt.Fprintf(w, "%s: %s\n", p.paint(sgrCyan, "notice"), printable(n))
	}
	w.WriteString(summaryLine(res.Summary, showSuppressed, p))
	w.WriteByte('\n')
}

// writeFinding writes one finding, then its message's further lines
// indented by four spaces and its related locations indented by a tab (as
// go vet and staticcheck print them), so that every line that starts at
// column 1 is a finding and a related location reads as file:line:col too.
func writeFinding(w *bufio.Writer, f *rules.Finding, p palette) {
	lines := strings.Split(printable(f.Message), "\n")
	fmt.Fprintf(w, "%s: %s: %s %s", p.paint(sgrBold, printableName(f.Pos.String())), p.severity(f.Severity), lines[0], p.paint(sgrDim, "["+f.Rule+"]"))
	if f.Suppressed != nil {
		w.WriteString(" " + p.paint(sgrDim, "("+printable(suppressedNote(f.Suppressed))+")"))
	}
	w.WriteByte('\n')
	for _, l := range lines[1:] {
		w.WriteString("    " + l + "\n")
	}
	for _, r := range f.Related {
		fmt.Fprintf(w, "\t%s: %s\n", printableName(r.Pos.String()), strings.ReplaceAll(printable(r.Message), "\n", "\n\t    "))
	}
}

// summaryLine is "1 error(s), 2 warning(s), 0 note(s) in 4 file(s),
// 12 object(s), 5 node(s); 1 suppressed", with the counts in bold when
// there are findings.
func summaryLine(s lint.Summary, showSuppressed bool, p palette) string {
	var b strings.Builder
	if s.Findings[rules.Error]+s.Findings[rules.Warning]+s.Findings[rules.Note] > 0 {
		b.WriteString(p.paint(sgrBold, counts(s)))
	} else {
		b.WriteString(counts(s))
	}
	b.WriteString(" " + scope(s))
	if s.Suppressed > 0 {
		fmt.Fprintf(&b, "; %d suppressed", s.Suppressed)
		if !showSuppressed {
			b.WriteString(" (--show-suppressed lists them)")
		}
	}
	return b.String()
}
