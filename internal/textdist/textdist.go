// Package textdist measures how far apart two short strings are, for the
// "did you mean" suggestions in rule messages.
package textdist

// maxLen bounds the inputs: suggestions are for keys and values, and the
// quadratic cost must stay small on hostile input.
const maxLen = 256

// Levenshtein is the edit distance between a and b, in bytes. Strings
// longer than 256 bytes are taken to be far from everything.
func Levenshtein(a, b string) int {
	if len(a) > maxLen || len(b) > maxLen {
		return 1 << 30
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
