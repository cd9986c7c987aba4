package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/taintlint/taintlint/internal/escape"
	"github.com/taintlint/taintlint/rules"
)

// jsonReport is the contract's JSON shape. The keys beyond the contract
// are summary.suppressed and summary.baselined, so that a script sees that
// findings were hidden; the suppressed list, present only with
// --show-suppressed; and the run's notices and warnings, which text and
// SARIF carry too.
type jsonReport struct {
	Version    string           `json:"version"`
	Findings   []rules.Finding  `json:"findings"`
	Suppressed *[]rules.Finding `json:"suppressed,omitempty"`
	Summary    jsonSummary      `json:"summary"`
	Notices    []string         `json:"notices"`
	Warnings   []string         `json:"warnings"`
}

type jsonSummary struct {
	Files   int `json:"files"`
	Objects int `json:"objects"`
	Nodes   int `json:"nodes"`
	// Inventory names the node inventory's sources and counts, when the
	// run had one (beyond the contract, added).
	Inventory  *InventorySummary `json:"inventory,omitempty"`
	Findings   jsonCounts        `json:"findings"`
	Suppressed int               `json:"suppressed"`
	Baselined  int               `json:"baselined"`
	// Kinds and Sources count the checked objects by kind and by where
	// they came from: file, kustomize, helm (added).
	Kinds   map[string]int `json:"kinds"`
	Sources map[string]int `json:"sources"`
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
func WriteJSON(w io.Writer, res *Result, opts Options) error {
	s := res.Summary
	out := jsonReport{
		Version:  jsonVersion,
		Findings: res.Findings,
		Summary: jsonSummary{
			Files:     s.Files,
			Objects:   s.Objects,
			Nodes:     s.Nodes,
			Inventory: s.Inventory,
			Findings: jsonCounts{
				Error:   s.Findings[rules.Error],
				Warning: s.Findings[rules.Warning],
				Note:    s.Findings[rules.Note],
			},
			Suppressed: s.Suppressed,
			Baselined:  s.Baselined,
			Kinds:      nonNilCounts(s.Kinds),
			Sources:    nonNilCounts(s.Sources),
		},
		Notices:  nonNil(res.Notices),
		Warnings: nonNil(res.Warnings),
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
// The bytes go through escape.JSON, so that a C1 control or a
// bidirectional override in a manifest value reaches no terminal that
// shows the report.
func encodeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escape.JSON(buf.Bytes()))
	return err
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// nonNilCounts is m, or an empty map: counts are an object, never null.
func nonNilCounts(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}
