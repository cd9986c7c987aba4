package rules

import "sort"

// Less is the total order of findings.
func Less(a, b *Finding) bool {
	if a.Pos.File != b.Pos.File {
		return a.Pos.File < b.Pos.File
	}
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	if a.Pos.Column != b.Pos.Column {
		return a.Pos.Column < b.Pos.Column
	}
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	if a.Message != b.Message {
		return a.Message < b.Message
	}
	ao, bo := "", ""
	if a.Object != nil {
		ao = a.Object.String()
	}
	if b.Object != nil {
		bo = b.Object.String()
	}
	if ao != bo {
		return ao < bo
	}
	return a.Path < b.Path
}

// SortFindings sorts findings in the total order of Less.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return Less(&fs[i], &fs[j]) })
}
