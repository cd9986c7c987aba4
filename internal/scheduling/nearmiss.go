package scheduling

import (
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/textdist"
)

// Near misses: a toleration key, label value or node name that is not
// what the inventory has but so close to it that a typo is likely. Every
// suggestion taintlint makes (pod-unschedulable's and daemonset-no-nodes'
// fixes, toleration-unmatched's nearest taint, "did you mean") is judged
// by similar, so that two rules never suggest different fixes for one
// toleration.

// similar: the same but for case, or one edit apart when both have three
// bytes or more, or two when both have five or more (short strings are
// too easily near one another).
func similar(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	// At most two edits count: the band of the table within two of its
	// diagonal is enough, so a long key against thousands of others
	// stays linear in their length.
	n, d := min(len(a), len(b)), textdist.Within(strings.ToLower(a), strings.ToLower(b), 2)
	return n >= 3 && d <= 1 || n >= 5 && d <= 2
}

// nearest returns the first of candidates similar to s, or "".
func nearest(s string, candidates []string) string {
	for _, c := range candidates {
		if c != s && similar(s, c) {
			return c
		}
	}
	return ""
}

// NearestTaint is the inventory taint a toleration that tolerates none
// most likely meant: among the taints whose key is the toleration's or
// similar to it, the smallest edit distance over the key, then over the
// value, then the same effect; nil when none is similar. A node-condition
// taint is suggested to a DaemonSet only (never advise other workloads to
// tolerate a node's condition).
func (inv *Inventory) NearestTaint(t *v1.Toleration, daemonSet bool) *v1.Taint {
	n := inv.nearest.get(keyOf(nearestKey{t.Key, t.Value, string(t.Effect)}), 1, nil, func(int, *classes, []*v1.Taint) *v1.Taint { return nearestTaint(t, inv.Taints) }).vs[0]
	if n == nil || !daemonSet && IsConditionTaintKey(n.Key) {
		return nil
	}
	out := *n
	return &out
}

type nearestKey [3]string

func nearestTaint(t *v1.Toleration, taints []TaintCount) *v1.Taint {
	var best *v1.Taint
	bestScore := -1
	for i := range taints {
		c := &taints[i].Taint
		if t.Key != c.Key && !similar(t.Key, c.Key) {
			continue
		}
		score := textdist.Levenshtein(t.Key, c.Key)*10000 + textdist.Levenshtein(t.Value, c.Value)*10
		if t.Effect != "" && t.Effect != c.Effect {
			score++
		}
		if best == nil || score < bestScore {
			best, bestScore = c, score
		}
	}
	if best == nil {
		return nil
	}
	out := *best
	return &out
}
