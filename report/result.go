package report

import (
	"fmt"
	"strings"

	"github.com/taintlint/taintlint/rules"
)

// Summary counts what a run saw and found.
type Summary struct {
	Files   int `json:"files"`
	Objects int `json:"objects"`
	Nodes   int `json:"nodes"`
	// Inventory is where the node inventory came from, nil without one.
	Inventory  *InventorySummary      `json:"inventory,omitempty"`
	Skipped    int                    `json:"skipped"`
	Findings   map[rules.Severity]int `json:"-"`
	Suppressed int                    `json:"suppressed"`
	// Baselined counts findings the baseline accepted.
	Baselined int `json:"baselined"`
	// Kinds counts the checked objects by kind, and Sources by where they
	// came from (file, kustomize, helm): what was checked, at a glance.
	Kinds   map[string]int `json:"-"`
	Sources map[string]int `json:"-"`
}

// Result is a finished run, as the driver (internal/lint) returns it
// and the writers here render it.
type Result struct {
	// Findings are the findings that count, in a total order (file, line,
	// column, rule, message).
	Findings []rules.Finding
	// Suppressed are the findings that annotations or the configuration
	// suppressed, in the same order.
	Suppressed []rules.Finding
	// Baselined are the findings the baseline accepted, in the same order;
	// BaselineAbsent are the baseline's entries that no longer occur.
	// Baseline is whether a baseline was in use.
	Baselined      []rules.Finding
	BaselineAbsent []BaselineEntry
	Baseline       bool
	// Rules are the rules that ran, sorted by id.
	Rules   []*rules.Rule
	Summary Summary
	// Warnings are problems with the run's own inputs that are not
	// findings, such as an annotation that names no rule.
	Warnings []string
	// Notices say what the run could not do, such as scheduling rules that
	// had no node inventory.
	Notices []string
}

// ExitCode is 1 when a finding is at or above threshold, else 0. A zero
// threshold never fails.
func (r *Result) ExitCode(threshold rules.Severity) int {
	if threshold == 0 {
		return 0
	}
	for _, f := range r.Findings {
		if f.Severity >= threshold {
			return 1
		}
	}
	return 0
}

// BaselineEntry is one accepted finding, readable in review. Message is the
// first line of the finding's message as it was written; it is compared
// normalized (NormalizeMessage).
type BaselineEntry struct {
	Rule    string `json:"rule"`
	File    string `json:"file"`
	Object  string `json:"object,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String names the entry in a notice: rule file object path.
func (e BaselineEntry) String() string {
	s := e.Rule + " " + e.File
	if e.Object != "" {
		s += " " + e.Object
	}
	if e.Path != "" {
		s += " " + e.Path
	}
	return s
}

// InventorySummary is what the node inventory held and where it came from.
type InventorySummary struct {
	// Sources are the files that gave nodes or pools, in inventory order.
	Sources []InventorySource `json:"sources"`
	Nodes   int               `json:"nodes"`
	Pools   int               `json:"pools"`
	// Groups are the node groups placement judges (nodes the scheduler
	// cannot tell apart, and one per pool).
	Groups int `json:"groups"`
}

// InventorySource is one file of the inventory.
type InventorySource struct {
	File  string `json:"file"`
	Nodes int    `json:"nodes"`
	Pools int    `json:"pools"`
}

// String is "6 node(s), 2 pool(s) in 5 group(s) from nodes.yaml (6),
// pools.yaml (2)".
func (s *InventorySummary) String() string {
	var parts []string
	for i, src := range s.Sources {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more file(s)", len(s.Sources)-i))
			break
		}
		part := src.File
		if len(s.Sources) > 1 {
			part = fmt.Sprintf("%s (%d)", src.File, src.Nodes+src.Pools)
		}
		parts = append(parts, part)
	}
	what := fmt.Sprintf("%d node(s)", s.Nodes)
	if s.Pools > 0 {
		what += fmt.Sprintf(", %d pool(s)", s.Pools)
	}
	return fmt.Sprintf("%s in %d group(s) from %s", what, s.Groups, strings.Join(parts, ", "))
}
