package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/taintlint/taintlint/rules"
)

// WriteGitHub writes GitHub Actions workflow commands, one annotation per
// finding (::error, ::warning or ::notice, titled with the rule id), then
// the whole text report without colours: GitHub shows only the first ten
// annotations of each kind per step and hides the command lines from the
// log, so the plain lines are what guarantees every finding is seen.
// Suppressed findings are never annotated; with ShowSuppressed they appear
// in the plain report. When opts.StepSummary is set, a Markdown summary
// goes there too.
//
// The plain report quotes manifest values, which in a pull request come
// from whoever opened it, and the runner reads any line that starts with
// :: (after spaces) as a command. So the report is wrapped in
// ::stop-commands::, with a token derived from the report's own bytes: as
// unguessable as a random one, since a value would have to contain the hash
// of a text that contains it, yet the output stays deterministic.
func WriteGitHub(w io.Writer, res *Result, opts Options) error {
	var plain bytes.Buffer
	pw := bufio.NewWriter(&plain)
	writeText(pw, res, opts.ShowSuppressed, opts.Verbose, palette(false))
	if err := pw.Flush(); err != nil {
		return fmt.Errorf("github output: %w", err)
	}
	sum := sha256.Sum256(plain.Bytes())
	token := "taintlint-" + hex.EncodeToString(sum[:16])

	bw := bufio.NewWriter(w)
	for _, f := range res.Findings {
		writeAnnotation(bw, &f)
	}
	for _, m := range res.Warnings {
		fmt.Fprintf(bw, "::warning title=taintlint::%s\n", escapeData(printable(m)))
	}
	for _, m := range res.Notices {
		fmt.Fprintf(bw, "::notice title=taintlint::%s\n", escapeData(printable(m)))
	}
	fmt.Fprintf(bw, "::stop-commands::%s\n", token)
	bw.Write(plain.Bytes())
	fmt.Fprintf(bw, "::%s::\n", token)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("github output: %w", err)
	}
	if opts.StepSummary != nil {
		if err := WriteMarkdownSummary(opts.StepSummary, res, opts); err != nil {
			return err
		}
	}
	return nil
}

// writeAnnotation writes ::error file=F,line=L,col=C,title=RULE::MESSAGE.
func writeAnnotation(w *bufio.Writer, f *rules.Finding) {
	cmd := "notice"
	switch f.Severity {
	case rules.Error:
		cmd = "error"
	case rules.Warning:
		cmd = "warning"
	}
	props := []string{"file=" + escapeProperty(printableName(f.Pos.File))}
	if f.Pos.Line > 0 {
		props = append(props, "line="+strconv.Itoa(f.Pos.Line))
		if f.Pos.Column > 0 {
			props = append(props, "col="+strconv.Itoa(f.Pos.Column))
		}
	}
	props = append(props, "title="+escapeProperty(f.Rule))
	fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(printable(f.Message)))
}

// escapeData escapes a workflow command's message the way the
// @actions/core toolkit does (escapeData in command.ts): %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command property the way the
// @actions/core toolkit does (escapeProperty in command.ts): escapeData's
// characters and also the separators : and ,.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// maxSummaryRows caps the findings table of the step summary: GitHub
// rejects a step summary over 1 MiB, and a table that long helps no one.
// The log still has every finding.
const maxSummaryRows = 500

// WriteMarkdownSummary writes the Markdown for $GITHUB_STEP_SUMMARY: the
// counts, then a table of findings (and of suppressed findings with
// ShowSuppressed).
func WriteMarkdownSummary(w io.Writer, res *Result, opts Options) error {
	bw := bufio.NewWriter(w)
	s := res.Summary
	bw.WriteString("## taintlint\n\n")
	if s.Findings[rules.Error]+s.Findings[rules.Warning]+s.Findings[rules.Note] == 0 {
		fmt.Fprintf(bw, "No findings %s", scope(s))
	} else {
		fmt.Fprintf(bw, "**%s** %s", counts(s), scope(s))
	}
	if s.Suppressed > 0 {
		fmt.Fprintf(bw, "; %d suppressed", s.Suppressed)
	}
	if s.Baselined > 0 {
		fmt.Fprintf(bw, "; %d in the baseline", s.Baselined)
	}
	bw.WriteString(".\n")
	for _, n := range res.Notices {
		fmt.Fprintf(bw, "\n> [!NOTE]\n> %s\n", markdownCell(n))
	}
	docs := make(map[string]string, len(res.Rules))
	for _, r := range res.Rules {
		docs[r.ID] = r.URL
	}
	if len(res.Findings) > 0 {
		bw.WriteString("\n| Severity | Location | Rule | Object | Message |\n| --- | --- | --- | --- | --- |\n")
		writeRows(bw, res.Findings, docs, func(f *rules.Finding) string { return markdownCell(f.Message) })
	}
	if opts.ShowSuppressed && len(res.Suppressed) > 0 {
		bw.WriteString("\n### Suppressed\n\n| Severity | Location | Rule | Object | Message | Reason |\n| --- | --- | --- | --- | --- | --- |\n")
		writeRows(bw, res.Suppressed, docs, func(f *rules.Finding) string {
			return markdownCell(f.Message) + " | " + markdownCell(suppressedNote(f.Suppressed))
		})
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	return nil
}

// writeRows writes one table row per finding, at most maxSummaryRows, with
// each rule id linked to its documentation (docs maps id to URL).
func writeRows(w *bufio.Writer, fs []rules.Finding, docs map[string]string, last func(*rules.Finding) string) {
	for i, f := range fs {
		if i == maxSummaryRows {
			fmt.Fprintf(w, "\nAnd %d more in the log.\n", len(fs)-i)
			return
		}
		rule := markdownCell(f.Rule)
		if u := docs[f.Rule]; u != "" && !strings.ContainsAny(u, " ()<>") {
			rule = "[" + rule + "](" + u + ")"
		}
		obj := ""
		if f.Object != nil {
			obj = markdownCell(f.Object.String())
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", f.Severity, markdownCell(f.Pos.String()), rule, obj, last(&f))
	}
}

// markdownCell makes s safe inside a GitHub table cell: | would end the
// cell (even inside a code span, hence the backslash), a newline would end
// the row, and the other escaped characters would start links, emphasis,
// code or HTML. Control characters are escaped as in the text report.
func markdownCell(s string) string {
	var b strings.Builder
	for _, r := range printable(s) {
		switch r {
		case '\n':
			b.WriteString("<br>")
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
