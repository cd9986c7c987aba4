// Package lint makes a run's report from a check: it runs the checker
// (internal/checker), holds the findings against a baseline, counts what
// was read and found, and says what the run left unchecked. The command
// line (internal/cli) calls it; rule tests use the checker alone.
package lint

import (
	"context"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/report"
	"github.com/taintlint/taintlint/rules"
)

// Options are a check's options and the baseline its findings are held
// against.
type Options struct {
	checker.Options

	// Baseline, when set, holds findings accepted earlier: they are not
	// counted, only summarised. BaselineFile names it in notices.
	Baseline     *Baseline
	BaselineFile string
}

// Result, Summary and BaselineEntry are report's types: the driver
// fills what report renders, and report names no type of this package.
type (
	Result        = report.Result
	Summary       = report.Summary
	BaselineEntry = report.BaselineEntry
)

// Run checks the inputs and makes the report's result. The error is for a
// run that could not happen (a missing path, a rule that broke), never for
// findings.
func Run(ctx context.Context, opts Options) (*Result, error) {
	cr, err := checker.Run(ctx, opts.Options)
	if err != nil {
		return nil, err
	}
	res := &Result{Rules: cr.Rules, Baseline: opts.Baseline != nil, Warnings: cr.Warnings}
	for _, f := range applyBaseline(opts.Baseline, cr.Ran, res, cr.Findings) {
		if f.Suppressed != nil {
			res.Suppressed = append(res.Suppressed, f)
		} else {
			res.Findings = append(res.Findings, f)
		}
	}
	nfiles := len(cr.Checked.Files)
	if cr.Inventory != nil {
		nfiles += len(cr.Inventory.Files)
	}
	res.Summary = Summary{
		Files:      nfiles,
		Objects:    len(cr.Checked.Objects),
		Inventory:  cr.InventorySummary,
		Skipped:    cr.Checked.Skipped,
		Findings:   map[rules.Severity]int{rules.Error: 0, rules.Warning: 0, rules.Note: 0},
		Suppressed: len(res.Suppressed),
		Baselined:  len(res.Baselined),
		Kinds:      map[string]int{},
		Sources:    map[string]int{},
	}
	for _, o := range cr.Checked.Objects {
		res.Summary.Kinds[o.Kind]++
		res.Summary.Sources[o.Source()]++
	}
	if cr.InventorySummary != nil {
		res.Summary.Nodes = cr.InventorySummary.Nodes // pools are counted apart
	}
	for _, f := range res.Findings {
		res.Summary.Findings[f.Severity]++
	}
	res.Notices = notices(cr, res, opts)
	return res, nil
}
