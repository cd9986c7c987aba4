package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rules"
)

// WriteText writes one line per finding, file:line:col: severity: message
// [rule-id], a blank line between files, and a closing summary line.
func WriteText(w io.Writer, res *lint.Result, opts Options) error {
	bw := bufio.NewWriter(w)
	findings := res.Findings
	if opts.ShowSuppressed && len(res.Suppressed) > 0 {
		findings = append(append([]rules.Finding(nil), findings...), res.Suppressed...)
		lint.SortFindings(findings)
	}
	last := ""
	for _, f := range findings {
		if last != "" && f.Pos.File != last {
			bw.WriteByte('\n')
		}
		last = f.Pos.File
		sup := ""
		if f.Suppressed != nil {
			sup = fmt.Sprintf(" (suppressed: %s)", f.Suppressed.Reason)
		}
		fmt.Fprintf(bw, "%s: %s: %s [%s]%s\n", f.Pos, f.Severity, f.Message, f.Rule, sup)
	}
	for _, n := range res.Notices {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	s := res.Summary
	fmt.Fprintf(bw, "%d error(s), %d warning(s), %d note(s) in %d file(s), %d object(s), %d node(s)",
		s.Findings[rules.Error], s.Findings[rules.Warning], s.Findings[rules.Note], s.Files, s.Objects, s.Nodes)
	if s.Suppressed > 0 {
		fmt.Fprintf(bw, "; %d suppressed", s.Suppressed)
	}
	bw.WriteByte('\n')
	return bw.Flush()
}
