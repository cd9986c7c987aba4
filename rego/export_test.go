package rego

// SetMemoizeFacts turns the per-run facts cache (and the findings of
// facts-only rules kept with it) on or off, and returns the old setting.
// Tests only: they compare memoized runs with computing everything for
// every object.
func SetMemoizeFacts(on bool) bool {
	old := memoizeFacts
	memoizeFacts = on
	return old
}
