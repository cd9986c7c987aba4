package rego

// SetShortcuts turns the per-run facts cache (and the findings of
// facts-only rules kept with it) and the evaluation of an object's rules
// in one query on or off, and returns the old setting. Tests only: they
// compare runs with and without them.
func SetShortcuts(on bool) bool {
	old := memoizeFacts
	memoizeFacts, combineRules = on, on
	return old
}
