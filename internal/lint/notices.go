package lint

import (
	"fmt"
	"strings"

	"github.com/taintlint/taintlint/internal/checker"
)

// notices are the report's words on what the run left unchecked and why:
// hidden files, the loader's notes, the inventory's, rules that needed an
// inventory, and baseline entries that no longer occur.
func notices(cr *checker.Result, res *Result, opts Options) []string {
	var out []string
	checked := cr.Checked
	if n := len(checked.Hidden); n > 0 {
		names := checked.Hidden
		more := ""
		if n > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", n-3)
		}
		out = append(out, fmt.Sprintf("%d hidden file(s) not checked: %s%s (names that start with a dot are left out of directory walks; name a file to check it)", n, strings.Join(names, ", "), more))
	}
	out = append(out, checked.Notes...)
	// Where the inventory came from is in the summary (Summary.Inventory).
	out = append(out, cr.InventoryNotes...)
	if !cr.Input.HasInventory() {
		var needs []string
		for _, r := range cr.Rules {
			if r.NeedsInventory {
				needs = append(needs, r.ID)
			}
		}
		if len(needs) > 0 {
			out = append(out, fmt.Sprintf("no node inventory: %s did not run; give nodes with --nodes PATH (kubectl get nodes -o yaml > nodes.yaml) or nodes: in .taintlint.yaml", strings.Join(needs, ", ")))
		}
	}
	if n := len(res.BaselineAbsent); n > 0 {
		name := opts.BaselineFile
		if name == "" {
			name = "the baseline"
		}
		var gone []string
		for i, e := range res.BaselineAbsent {
			if i == 5 {
				gone = append(gone, fmt.Sprintf("and %d more", n-i))
				break
			}
			gone = append(gone, e.String())
		}
		out = append(out, fmt.Sprintf("%d of %d entries in %s no longer occur (fixed, or the object or field moved); write it again with --write-baseline to drop them: %s", n, len(opts.Baseline.Findings), name, strings.Join(gone, "; ")))
	}
	return out
}
