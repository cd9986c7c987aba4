// Package report renders a finished lint.Result in one of taintlint's
// output formats. It decides nothing: every function takes the result and a
// writer and returns the writer's error.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/taintlint/taintlint/internal/lint"
)

// Format is an output format name.
type Format string

const (
	Text   Format = "text"
	JSON   Format = "json"
	SARIF  Format = "sarif"
	GitHub Format = "github"
)

// Formats lists the formats in the order the help text gives them.
func Formats() []Format { return []Format{Text, JSON, SARIF, GitHub} }

// ParseFormat reads a format name; an unknown name is an error, never a
// silent fallback.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats()))
	for i, f := range Formats() {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Options tune rendering.
type Options struct {
	// Color turns on ANSI colours in text output.
	Color bool
	// ShowSuppressed lists suppressed findings in text and JSON output.
	ShowSuppressed bool
	// Version is taintlint's version, for SARIF's driver.
	Version string
	// StepSummary, when set, receives a Markdown summary (GitHub's
	// $GITHUB_STEP_SUMMARY) with the github format.
	StepSummary io.Writer
}

// Write renders res in format f.
func Write(w io.Writer, f Format, res *lint.Result, opts Options) error {
	switch f {
	case Text:
		return WriteText(w, res, opts)
	case JSON:
		return WriteJSON(w, res, opts)
	}
	return fmt.Errorf("format %q is not implemented", f)
}
