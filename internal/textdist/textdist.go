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

// Nearest is the candidate nearest to s, ignoring case, when it is close
// enough to be what was meant: at most two edits, or a third of s's length
// for longer words, or s abbreviates it (warn for warning). It is "" when
// none is, or when s is a candidate.
func Nearest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if c == s {
			return ""
		}
		d := Levenshtein(lower(s), lower(c))
		if len(s) >= 3 && len(c) > len(s) && lower(c[:len(s)]) == lower(s) {
			d = min(d, 2)
		}
		if d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if bestD > max(2, len(s)/3) {
		return ""
	}
	return best
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
