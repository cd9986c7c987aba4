package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/rules"
)

// IgnoreDirective starts an inline suppression comment:
//
//	# taintlint:ignore RULE[,RULE] -- reason
//
// A directive at the end of a line covers findings on that line; a
// directive alone on its line covers the next line.
const IgnoreDirective = "taintlint:ignore"

// directive is one inline suppression comment.
type directive struct {
	file         string
	line, column int // of the comment's '#'
	target       int // the line it covers
	rules        []string
	reason       string
	used         map[string]bool
}

// parseDirectives finds the directives in a file's text, a line at a
// time: lines longer than maxDirectiveLine are no directive and are
// skipped without being held, so a huge file costs no memory.
func parseDirectives(file string, r io.Reader) ([]*directive, error) {
	const maxDirectiveLine = 4096
	br := bufio.NewReaderSize(r, maxDirectiveLine)
	var out []*directive
	for n := 1; ; n++ {
		line, isPrefix, err := br.ReadLine()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if isPrefix {
			for isPrefix && err == nil {
				_, isPrefix, err = br.ReadLine()
			}
			continue
		}
		if !bytes.Contains(line, []byte(IgnoreDirective)) {
			continue
		}
		if d := parseDirective(file, n, string(line)); d != nil {
			out = append(out, d)
		}
	}
}

// parseDirective reads one line's directive, or returns nil.
func parseDirective(file string, n int, line string) *directive {
	col, text, alone := yamlComment(line)
	if col < 0 {
		return nil
	}
	text = strings.TrimSpace(text)
	rest, ok := strings.CutPrefix(text, IgnoreDirective)
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return nil
	}
	ids, reason, _ := strings.Cut(rest, "--")
	d := &directive{file: file, line: n, column: col + 1, target: n, reason: strings.TrimSpace(reason), used: map[string]bool{}}
	if alone {
		d.target = n + 1
	}
	d.rules = strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	return d
}

// OpenRegular opens a regular file; anything else (a FIFO or device named
// on the command line, already read to its end) could block or differ, and
// is left alone.
func OpenRegular(name string) (io.ReadCloser, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	return os.Open(name)
}

// yamlComment finds the comment on a YAML line: its byte column (-1 when
// there is none), its text after '#', and whether it stands alone on the
// line. A '#' starts a comment at the line's start or after white space,
// outside quoted scalars.
func yamlComment(line string) (int, string, bool) {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				if quote == '\'' && i+1 < len(line) && line[i+1] == '\'' {
					i++ // '' is a quote inside a single-quoted scalar
				} else {
					quote = 0
				}
			}
		case c == '"' || c == '\'':
			if i == 0 || strings.IndexByte(" \t[{,:-?", line[i-1]) >= 0 {
				quote = c
			}
		case c == '#':
			if i == 0 || line[i-1] == ' ' || line[i-1] == '\t' {
				return i, line[i+1:], strings.TrimSpace(line[:i]) == ""
			}
		}
	}
	return -1, "", false
}

// suppressInline applies the files' taintlint:ignore comments, and warns
// about directives without a reason, naming unknown rules, or suppressing
// nothing (where their rules ran: a rule that needs the inventory says
// nothing without one).
func suppressInline(opts Options, files []string, in *rules.Input, res *Result) step {
	return func(fs []rules.Finding) []rules.Finding {
		open := opts.OpenFile
		if open == nil {
			open = OpenRegular
		}
		byLine := map[string]map[int][]*directive{}
		var all []*directive
		seen := map[string]bool{}
		for _, f := range files {
			if seen[f] {
				continue
			}
			seen[f] = true
			r, err := open(f)
			if err != nil {
				continue
			}
			ds, _ := parseDirectives(f, r)
			r.Close()
			for _, d := range ds {
				all = append(all, d)
				if byLine[f] == nil {
					byLine[f] = map[int][]*directive{}
				}
				byLine[f][d.target] = append(byLine[f][d.target], d)
			}
		}
		if len(all) == 0 {
			return fs
		}
		for i := range fs {
			f := &fs[i]
			for _, d := range byLine[f.Pos.File][f.Pos.Line] {
				if contains(d.rules, f.Rule) {
					d.used[f.Rule] = true
					if f.Suppressed == nil {
						f.Suppressed = &rules.Suppression{Kind: "inSource", Reason: d.reason}
					}
				}
			}
		}
		ran := ranRule(in, res.Rules)
		for _, d := range all {
			where := fmt.Sprintf("%s:%d:%d", d.file, d.line, d.column)
			if len(d.rules) == 0 {
				res.Warnings = append(res.Warnings, where+": "+IgnoreDirective+" names no rule; write # "+IgnoreDirective+" RULE -- reason")
				continue
			}
			if d.reason == "" {
				res.Warnings = append(res.Warnings, where+": "+IgnoreDirective+" has no reason; say why the finding is accepted after --")
			}
			for _, id := range d.rules {
				switch {
				case find(opts.Rules, id) == nil:
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s names no known rule %q%s", where, IgnoreDirective, id, Suggest(id, ruleIDs(opts.Rules))))
				case ran(id) && !d.used[id]:
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s %s suppresses nothing on line %d; remove it", where, IgnoreDirective, id, d.target))
				}
			}
		}
		return fs
	}
}

func ruleIDs(all []*rules.Rule) []string {
	ids := make([]string, len(all))
	for i, r := range all {
		ids[i] = r.ID
	}
	return ids
}

// Suggest is " (did you mean X?)" for the candidate nearest to s, or "".
func Suggest(s string, candidates []string) string { return textdist.DidYouMean(s, candidates) }
