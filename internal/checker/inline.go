package checker

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/taintlint/taintlint/internal/safeio"
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

// readDirectives reads the directives of each file, on every core (open
// is called from several goroutines at once). Most files have none: a
// file whose bytes do not hold IgnoreDirective is read in large chunks
// and left (no line of it can hold a directive); only a file that does
// is opened again and read a line at a time (parseDirectives). A file
// that cannot be opened or read has none, or those before the error.
func readDirectives(open func(string) (io.ReadCloser, error), files []string) [][]*directive {
	out := make([][]*directive, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				out[i] = fileDirectives(open, files[i], buf)
			}
		}()
	}
	wg.Wait()
	return out
}

// fileDirectives is the directives of one file; buf is scratch space.
func fileDirectives(open func(string) (io.ReadCloser, error), file string, buf []byte) []*directive {
	r, err := open(file)
	if err != nil {
		return nil
	}
	found := mentions(r, []byte(IgnoreDirective), buf)
	r.Close()
	if !found {
		return nil
	}
	if r, err = open(file); err != nil {
		return nil
	}
	defer r.Close()
	ds, _ := parseDirectives(file, r)
	return ds
}

// mentions reports whether the bytes r gives before its end or first
// error hold s, read a buffer (buf, longer than s) at a time, keeping the
// last len(s)-1 bytes of each read before the next.
func mentions(r io.Reader, s, buf []byte) bool {
	kept := 0
	for {
		n, err := r.Read(buf[kept:])
		end := kept + n
		if bytes.Contains(buf[:end], s) {
			return true
		}
		if err != nil {
			return false
		}
		kept = min(len(s)-1, end)
		copy(buf, buf[end-kept:end])
	}
}

// OpenRegular opens a regular file; anything else (a FIFO or device named
// on the command line, already read to its end) could block or differ, and
// is left alone.
func OpenRegular(name string) (io.ReadCloser, error) {
	return safeio.Open(name)
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
		var names []string
		seen := map[string]bool{}
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				names = append(names, f)
			}
		}
		for i, ds := range readDirectives(open, names) {
			f := names[i]
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
		ran := res.Ran
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
