package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/taintlint/taintlint/internal/safeio"
	"github.com/taintlint/taintlint/rules"
)

// Baseline is a recorded set of accepted findings (taintlint check
// --write-baseline). A finding is in the baseline when an entry has its
// fingerprint: rule, file, object, field path and normalized first message
// line, never the line or column, so moving lines or editing other objects
// keeps it matched.
type Baseline struct {
	Version  string          `json:"version"`
	Findings []BaselineEntry `json:"findings"`
}

// baselineVersion is the version of the baseline file's shape.
const baselineVersion = "1"

// NewBaseline records findings (suppressed ones are not recorded: their
// suppression already accepts them), sorted so the file diffs well.
func NewBaseline(fs []rules.Finding) *Baseline {
	b := &Baseline{Version: baselineVersion, Findings: []BaselineEntry{}}
	for i := range fs {
		if fs[i].Suppressed == nil {
			b.Findings = append(b.Findings, entryOf(&fs[i]))
		}
	}
	sort.Slice(b.Findings, func(i, j int) bool {
		x, y := b.Findings[i], b.Findings[j]
		return fmt.Sprint(x.File, "\x00", x.Object, "\x00", x.Rule, "\x00", x.Path, "\x00", x.Message) <
			fmt.Sprint(y.File, "\x00", y.Object, "\x00", y.Rule, "\x00", y.Path, "\x00", y.Message)
	})
	return b
}

func entryOf(f *rules.Finding) BaselineEntry {
	e := BaselineEntry{Rule: f.Rule, File: cleanFile(f.Pos.File), Path: f.Path, Message: firstLine(f.Message)}
	if f.Object != nil {
		e.Object = f.Object.String()
	}
	return e
}

// entryKey is the entry's fingerprint.
func entryKey(e BaselineEntry) string {
	return strings.Join([]string{e.Rule, cleanFile(e.File), e.Object, e.Path, NormalizeMessage(e.Message)}, "\x00")
}

// FindingKey is a finding's baseline fingerprint.
func FindingKey(f *rules.Finding) string { return entryKey(entryOf(f)) }

func cleanFile(f string) string { return path.Clean(filepath.ToSlash(f)) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// NormalizeMessage is the part of a message line that identifies a
// finding: every run of digits becomes "#", so counts that change with
// unrelated edits ("0/6 nodes are available: 3 node(s)...", quantities,
// line numbers of other objects) do not make an old finding new; a list
// of names in parentheses, which messages give of the nodes and pools
// concerned ("(cp-1, gpu-a-1, gpu-a-2)", "(gpu-1 … gpu-9)", "(a, b and 3
// more)"), becomes "(…)", and "nodes" after a count "node", so a node
// that joins a pool does not either; and runs of white space become one
// space.
func NormalizeMessage(s string) string {
	s = nameListRE.ReplaceAllString(normalizeDigits(s), " (…)")
	return pluralRE.ReplaceAllString(s, "# $1")
}

// pluralRE is a count of nodes or pools in the plural, which a count of
// one would give in the singular.
var pluralRE = regexp.MustCompile(`# (node pool|node|pool)s\b`)

// nameListRE is a parenthesized list of names (no white space, comma or
// parenthesis in a name), as messages list nodes and pools, after
// normalizeDigits.
var nameListRE = regexp.MustCompile(` \([^\s(),…]+(?:(?:, | … )[^\s(),…]+)*(?: and # more)?\)`)

// normalizeDigits is NormalizeMessage's first step: the first line, with
// digit runs "#" and white space runs one space.
func normalizeDigits(s string) string {
	var b strings.Builder
	digits, space := false, false
	for _, r := range firstLine(s) {
		switch {
		case r >= '0' && r <= '9':
			if !digits {
				b.WriteByte('#')
			}
			digits, space = true, false
			continue
		case r == ' ' || r == '\t':
			if !space {
				b.WriteByte(' ')
			}
			digits, space = false, true
			continue
		}
		digits, space = false, false
		b.WriteRune(r)
	}
	return b.String()
}

// maxBaseline is the largest baseline file read.
const maxBaseline = 64 << 20

// ReadBaseline reads a baseline file, charged to the run's input budget
// budget (a device, pipe or socket is refused: see safeio).
func ReadBaseline(file string, budget safeio.Budget) (*Baseline, error) {
	data, err := safeio.ReadFile(file, budget, maxBaseline)
	if err != nil {
		return nil, err
	}
	var b Baseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline %s: %w (write it again with --write-baseline)", file, err)
	}
	if b.Version != baselineVersion {
		return nil, fmt.Errorf("baseline %s: version %q, want %q (write it again with --write-baseline)", file, b.Version, baselineVersion)
	}
	return &b, nil
}

// WriteBaseline writes b to file through a temporary file in the same
// directory and a rename, so an interrupted run never leaves half a
// baseline.
func WriteBaseline(file string, b *Baseline) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(file), ".taintlint-baseline-*")
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), file)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("baseline: %w", werr)
	}
	return nil
}

// applyBaseline moves findings the baseline accepts out of the counted
// ones into res.Baselined, matching each entry at most once, and records
// the entries that no longer occur, of the rules that ran (an entry of a
// rule that was off, or needs the inventory the run did not have, may
// still occur). Suppressed findings are left alone.
func applyBaseline(b *Baseline, ran func(rule string) bool, res *Result, fs []rules.Finding) []rules.Finding {
	if b == nil {
		return fs
	}
	left := map[string][]BaselineEntry{}
	for _, e := range b.Findings {
		k := entryKey(e)
		left[k] = append(left[k], e)
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Suppressed == nil {
			k := FindingKey(&f)
			if es := left[k]; len(es) > 0 {
				left[k] = es[1:]
				res.Baselined = append(res.Baselined, f)
				continue
			}
		}
		out = append(out, f)
	}
	for _, e := range b.Findings {
		k := entryKey(e)
		if es := left[k]; len(es) > 0 && ran(e.Rule) {
			res.BaselineAbsent = append(res.BaselineAbsent, es[0])
			left[k] = es[1:]
		}
	}
	rules.SortFindings(res.Baselined)
	return out
}
