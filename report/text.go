package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/taintlint/taintlint/rules"
)

// WriteText writes one line per finding, file:line:col: severity: message
// [rule-id], grouped by file with a blank line between files, related
// locations indented under their finding, then the run's notices and a
// closing summary line. It is meant for people, so control characters in
// messages are escaped and colours are used only when opts.Color says so.
func WriteText(w io.Writer, res *Result, opts Options) error {
	bw := bufio.NewWriter(w)
	writeText(bw, res, opts.ShowSuppressed, opts.Verbose, palette(opts.Color))
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
func writeText(w *bufio.Writer, res *Result, showSuppressed, verbose bool, p palette) {
	findings := withSuppressed(res, showSuppressed)
	// A run with many findings (a repository's first run) renders them
	// on every core, in parts written out in order: megabytes of text
	// would otherwise be made on one core after the run.
	parts := min(runtime.GOMAXPROCS(0), len(findings)/256)
	if parts < 2 {
		writeFindings(w, findings, 0, len(findings), p)
	} else {
		bufs := make([]bytes.Buffer, parts)
		var wg sync.WaitGroup
		for k := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bw := bufio.NewWriter(&bufs[k])
				writeFindings(bw, findings, k*len(findings)/parts, (k+1)*len(findings)/parts, p)
				bw.Flush() // into memory: no error
			}()
		}
		wg.Wait()
		for k := range bufs {
			w.Write(bufs[k].Bytes())
		}
	}
	if len(findings) > 0 {
		w.WriteByte('\n')
	}
	for _, n := range res.Notices {
		fmt.Fprintf(w, "%s: %s\n", p.paint(sgrCyan, "notice"), printable(n))
	}
	w.WriteString(summaryLine(res.Summary, showSuppressed, p))
	w.WriteByte('\n')
	if verbose {
		w.WriteString("checked: objects by kind: " + countList(res.Summary.Kinds) + "; by source: " + countList(res.Summary.Sources) + "\n")
	}
}

// countList is "Deployment 3, Pod 1": the counts of m by name.
func countList(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", printableName(n), m[n])
	}
	return strings.Join(parts, ", ")
}

// writeFindings writes findings[from:to], each after a blank line when
// it is in another file than the one before it.
func writeFindings(w *bufio.Writer, findings []rules.Finding, from, to int, p palette) {
	for i := from; i < to; i++ {
		f := &findings[i]
		if i > 0 && f.Pos.File != findings[i-1].Pos.File {
			w.WriteByte('\n')
		}
		writeFinding(w, f, p)
	}
}

// Widths of the text format: the first line of a finding, which editors
// and grep read, stays within firstLineWidth; the detail under it is
// wrapped at detailWidth.
const (
	firstLineWidth = 160
	detailWidth    = 120
	headlineSlack  = 12
)

// writeFinding writes one finding: file:line:col: severity: headline
// [rule-id] on the first line, then the rest of its message indented by
// four spaces (lines too long wrapped and indented two more), and its
// related locations indented by a tab (as go vet and staticcheck print
// them), so that every line that starts at column 1 is a finding and a
// related location reads as file:line:col too.
func writeFinding(w *bufio.Writer, f *rules.Finding, p palette) {
	lines := strings.Split(printable(f.Message), "\n")
	pos := printableName(f.Pos.String())
	tail := " [" + f.Rule + "]"
	head, rest := headline(lines[0], firstLineWidth-len(pos)-len(": : ")-len(f.Severity.String())-len(tail))
	for _, part := range [...]string{p.paint(sgrBold, pos), ": ", p.severity(f.Severity), ": ", head, " ", p.paint(sgrDim, "["+f.Rule+"]")} {
		w.WriteString(part)
	}
	if f.Suppressed != nil {
		w.WriteString(" " + p.paint(sgrDim, "("+printable(suppressedNote(f.Suppressed))+")"))
	}
	w.WriteByte('\n')
	detail := lines[1:]
	if rest != "" {
		// The API server's own wording, quoted at the end, reads best on
		// a line of its own.
		if i := strings.LastIndex(rest, " (API server: "); i > 0 && strings.HasSuffix(rest, ")") {
			detail = append([]string{rest[:i], rest[i+1:]}, detail...)
		} else {
			detail = append([]string{rest}, detail...)
		}
	}
	for _, l := range detail {
		for i, part := range wrap(l, detailWidth-4) {
			if i > 0 {
				w.WriteString("  ")
			}
			w.WriteString("    ")
			w.WriteString(part)
			w.WriteByte('\n')
		}
	}
	for _, r := range f.Related {
		fmt.Fprintf(w, "\t%s: %s\n", printableName(r.Pos.String()), strings.ReplaceAll(printable(r.Message), "\n", "\n\t    "))
	}
}

// headline splits a message line that does not fit in width (in code
// points, with a little slack so that one word is not left over) at the
// last clause break outside parentheses that does: before a parenthesis,
// after ". ", "; ", ": " or ", ", else at a space; rest is what follows.
func headline(s string, width int) (head, rest string) {
	width = max(width, 40)
	if utf8.RuneCountInString(s) <= width+headlineSlack {
		return s, ""
	}
	cut := byteIndexOfRune(s, width)
	best := -1
	for _, sep := range []string{" (", ". ", "; ", ": ", ", "} {
		if i := lastBalanced(s[:cut], sep); i > best && i >= min(cut/3, 24) {
			best = i
			if sep != " (" {
				best += len(sep) - 1 // keep the punctuation on the first line
			}
		}
	}
	if best < 0 {
		best = strings.LastIndexByte(s[:cut], ' ')
	}
	if best <= 0 {
		return s, ""
	}
	return strings.TrimRight(s[:best], " "), strings.TrimLeft(s[best:], " ")
}

// lastBalanced is the last index of sep in s outside parentheses, or -1:
// a headline that ends inside a parenthesis reads as cut off.
func lastBalanced(s, sep string) int {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], sep)
		if i < 0 || strings.Count(s[:i], "(") <= strings.Count(s[:i], ")") {
			return i
		}
		end = i
	}
}

// wrap breaks s at spaces into lines of at most width code points; a word
// longer than width stays whole.
func wrap(s string, width int) []string {
	var out []string
	for longer(s, width) {
		cut := byteIndexOfRune(s, width+1)
		i := strings.LastIndexByte(s[:cut], ' ')
		if i <= 0 {
			if i = strings.IndexByte(s[cut:], ' '); i < 0 {
				break
			}
			i += cut
		}
		out = append(out, s[:i])
		s = strings.TrimLeft(s[i:], " ")
	}
	return append(out, s)
}

// longer reports whether s has more than width code points, without
// counting past them.
func longer(s string, width int) bool {
	return len(s) > width && byteIndexOfRune(s, width) < len(s)
}

// byteIndexOfRune is the byte offset of the n-th code point of s, or len(s).
func byteIndexOfRune(s string, n int) int {
	// ASCII up to the n-th byte: it is the n-th code point.
	if n < len(s) {
		ascii := true
		for _, b := range []byte(s[:n+1]) {
			if b >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if ascii {
			return n
		}
	}
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// summaryLine is "1 error(s), 2 warning(s), 0 note(s) in 4 file(s),
// 12 object(s), 5 node(s); 1 suppressed", with the counts in bold when
// there are findings.
func summaryLine(s Summary, showSuppressed bool, p palette) string {
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
	if s.Baselined > 0 {
		fmt.Fprintf(&b, "; %d in the baseline", s.Baselined)
	}
	if s.Inventory != nil {
		b.WriteString("; inventory: " + printableName(s.Inventory.String()))
	}
	return b.String()
}
