package report

import (
	"encoding/json"
	"io"

	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rules"
)

// WriteJSON writes the contract's JSON shape.
func WriteJSON(w io.Writer, res *lint.Result, opts Options) error {
	type counts struct {
		Error   int `json:"error"`
		Warning int `json:"warning"`
		Note    int `json:"note"`
	}
	type summary struct {
		Files      int    `json:"files"`
		Objects    int    `json:"objects"`
		Nodes      int    `json:"nodes"`
		Findings   counts `json:"findings"`
		Suppressed int    `json:"suppressed"`
	}
	out := struct {
		Version    string          `json:"version"`
		Findings   []rules.Finding `json:"findings"`
		Suppressed []rules.Finding `json:"suppressed,omitempty"`
		Summary    summary         `json:"summary"`
	}{
		Version:  "1",
		Findings: res.Findings,
		Summary: summary{
			Files:   res.Summary.Files,
			Objects: res.Summary.Objects,
			Nodes:   res.Summary.Nodes,
			Findings: counts{
				Error:   res.Summary.Findings[rules.Error],
				Warning: res.Summary.Findings[rules.Warning],
				Note:    res.Summary.Findings[rules.Note],
			},
			Suppressed: res.Summary.Suppressed,
		},
	}
	if out.Findings == nil {
		out.Findings = []rules.Finding{}
	}
	if opts.ShowSuppressed {
		out.Suppressed = res.Suppressed
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
