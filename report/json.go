package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rules"
)

// jsonReport is the contract's JSON shape. The keys beyond the contract are
// summary.suppressed, so that a script sees that findings were hidden, and
// the suppressed list, present only with --show-suppressed.
type jsonReport struct {
	Version    string           `json:"version"`
	Findings   []rules.Finding  `json:"findings"`
	Suppressed *[]rules.Finding `json:"suppressed,omitempty"`
	Summary    jsonSummary      `json:"summary"`
}

type jsonSummary struct {
	Files      int        `json:"files"`
	Objects    int        `json:"objects"`
	Nodes      int        `json:"nodes"`
	Findings   jsonCounts `json:"findings"`
	Suppressed int        `json:"suppressed"`
}

type jsonCounts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Note    int `json:"note"`
}

// jsonVersion is the version of the JSON shape; it changes only when a
// key changes meaning or goes away.
const jsonVersion = "1"

// WriteJSON writes the contract's JSON shape, indented, with findings as an
// empty list (never null) on a clean run.
func WriteJSON(w io.Writer, res *lint.Result, opts Options) error {
	s := res.Summary
	out := jsonReport{
		Version:  jsonVersion,
		Findings: res.Findings,
		Summary: jsonSummary{
			Files:   s.Files,
			Objects: s.Objects,
			Nodes:   s.Nodes,
			Findings: jsonCounts{
				Error:   s.Findings[rules.Error],
				Warning: s.Findings[rules.Warning],
				Note:    s.Findings[rules.Note],
			},
			Suppressed: s.Suppressed,
		},
	}
	if out.Findings == nil {
		out.Findings = []rules.Finding{}
	}
	if opts.ShowSuppressed {
		sup := res.Suppressed
		if sup == nil {
			sup = []rules.Finding{}
		}
		out.Suppressed = &sup
	}
	if err := encodeJSON(w, out); err != nil {
		return fmt.Errorf("json output: %w", err)
	}
	return nil
}

// encodeJSON writes v indented by two spaces, without HTML escaping (the
// output is never embedded in HTML, and "<" reads better than "\u003c").
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
