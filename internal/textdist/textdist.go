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

// maxWork bounds the cells of distance tables one Nearest fills: a
// suggestion is a courtesy, and hostile input (400 label keys of 250
// bytes against 400 others, about 200 KB) must not make it the run's
// main cost. Candidates past the bound are not looked at; the order of
// candidates decides which, so the answer stays deterministic.
const maxWork = 1 << 20

// Nearest is the candidate nearest to s, ignoring case, when it is close
// enough to be what was meant: at most two edits, or a third of s's length
// for longer words, or s abbreviates it (warn for warning). It is "" when
// none is, or when s is a candidate. Only candidates whose length is
// within that many edits of s's are measured, each with a table cut to
// that band, so the work is linear in the candidates and bounded by
// maxWork.
func Nearest(s string, candidates []string) string {
	for _, c := range candidates {
		if c == s {
			return ""
		}
	}
	ls := lower(s)
	limit := max(2, len(s)/3)
	best, bestD := "", limit+1
	work := 0
	for _, c := range candidates {
		d := limit + 1
		if len(s) >= 3 && len(c) > len(s) && lower(c[:len(s)]) == ls {
			d = 2
		}
		// Only a distance below d, or equal to the best so far (a tie
		// goes to the smaller name), can change the answer.
		if k := min(d-1, bestD); k >= 0 && work < maxWork {
			if e, cells := within(ls, lower(c), k); e <= k {
				d = e
				work += cells
			} else {
				work += cells
			}
		}
		if d < bestD || d == bestD && d <= limit && c < best {
			best, bestD = c, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

// within is the edit distance between a and b when it is at most k, else
// k+1, and the table cells it filled: only the band of cells within k of
// the diagonal can hold a distance of k or less. Strings longer than
// maxLen are taken to be far from everything, as by Levenshtein.
func within(a, b string, k int) (dist, cells int) {
	if len(a) > maxLen || len(b) > maxLen || len(a)-len(b) > k || len(b)-len(a) > k {
		return k + 1, 0
	}
	far := k + 1
	prev := make([]int, len(b)+2)
	cur := make([]int, len(b)+2)
	for j := range prev {
		prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		if lo == 1 {
			cur[0] = min(i, far)
		} else {
			cur[lo-1] = far
		}
		rowMin := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, far)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		cur[hi+1] = far
		cells += hi - lo + 1
		if rowMin >= far {
			return far, cells
		}
		prev, cur = cur, prev
	}
	return prev[len(b)], cells
}

// Within is the edit distance between a and b, in bytes, when it is at
// most k, else k+1: for callers that only ask whether two strings are a
// typo apart, in time linear in their length rather than quadratic.
func Within(a, b string, k int) int {
	d, _ := within(a, b, max(k, 0))
	return d
}

// DidYouMean is " (did you mean X?)" for Nearest, or "".
func DidYouMean(s string, candidates []string) string {
	if n := Nearest(s, candidates); n != "" {
		return " (did you mean " + n + "?)"
	}
	return ""
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
