package pools

import (
	"math"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Unknown is what a pool's definition leaves unknown that placement turns
// on: an unresolved Terraform variable in its taints, its label map, its
// Spot setting. Such a pool still joins the inventory with what is known,
// and a judgement is made only when every way the unknowns could turn out
// gives it (Variant): the checker judges again in each World and
// withholds what differs. Nothing unknown is guessed.
type Unknown struct {
	// Taints, Labels and Exists say why the pool's taints, its labels, or
	// whether it is made at all are not known ("" when they are): any
	// taint or label may be on its nodes.
	Taints, Labels, Exists string
	// MaybeTaints and MaybeLabels are on every node of the pool or on
	// none, as an attribute not known decides (an AKS Spot pool's taint,
	// GKE's Spot label). A maybe-label of value "" has a value not known.
	MaybeTaints []Taint
	MaybeLabels []Label
	// Attributes name the unknown attributes, for notices.
	Attributes []string
}

// opens reports whether a pod's requirement on key may hold on the
// pool's nodes only because of what is not known: any key when the labels
// are not known, a maybe-label's key.
func (u *Unknown) opens(key string) bool {
	if u == nil {
		return false
	}
	return u.Labels != "" || slices.ContainsFunc(u.MaybeLabels, func(l Label) bool { return l.Key == key })
}

// World is one way a pool's unknowns could turn out.
type World int

const (
	// Open: nothing unknown stands in a pod's way (no taint beyond the
	// known ones, any label the pod asks for). The pool as read is this.
	Open World = iota
	// Off: every maybe-taint and maybe-label is absent, an unknown label
	// value is none a pod asks for, unknown taints are one no pod
	// tolerates, and a pool that may not be made is not.
	Off
	// On: as Off, but every maybe-taint and maybe-label is there and the
	// pool is made.
	On
	// Tolerated: as Open, but the maybe-taints are there and, when the
	// taints are not known, one taint that each toleration of the run
	// matches (so that no toleration is judged unmatched for want of a
	// taint that may be there).
	Tolerated
)

// Worlds are the worlds the checker judges in besides Open.
func Worlds() []World { return []World{Off, On, Tolerated} }

// UnknownTaintKey is the key of the taint that stands for taints not
// known, in the worlds where no pod tolerates them.
const UnknownTaintKey = "taintlint.io/unknown-taint"

// unknownValue stands for a label value not known, in the worlds where
// it is none a pod asks for.
const unknownValue = "taintlint-unknown-value"

// Variant is the pool as it is in world w (nil: not made there);
// tolerations are the run's, which world Tolerated matches. A pool with
// nothing unknown is the same in every world.
func (p *Pool) Variant(w World, tolerations []v1.Toleration) *Pool {
	u := p.Unknown
	if u == nil && !p.hasUnknownValue() || w == Open {
		return p
	}
	if u == nil {
		u = &Unknown{}
	}
	q := *p
	q.Labels = slices.Clone(p.Labels)
	q.Taints = slices.Clone(p.Taints)
	q.Requirements = slices.Clone(p.Requirements)
	if w == Tolerated {
		q.Taints = append(q.Taints, u.MaybeTaints...)
		if u.Taints != "" {
			seen := map[v1.Taint]bool{}
			for _, t := range tolerations {
				if t.Key == "" {
					continue // an empty key with Exists matches every taint
				}
				taint := v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
				if t.Operator == v1.TolerationOpGt || t.Operator == v1.TolerationOpLt {
					// A numeric comparison (compareNumericValues): the
					// taint's value one past the toleration's, on its side.
					n, err := strconv.ParseInt(t.Value, 10, 64)
					if err != nil || n == math.MaxInt64 || n == math.MinInt64 {
						continue // no int64 taint value it tolerates
					}
					if t.Operator == v1.TolerationOpGt {
						n++
					} else {
						n--
					}
					taint.Value = strconv.FormatInt(n, 10)
				}
				if taint.Effect == "" {
					taint.Effect = v1.TaintEffectNoSchedule
				}
				if !seen[taint] {
					seen[taint] = true
					q.Taints = append(q.Taints, Taint{Taint: taint})
				}
			}
		}
		return &q
	}
	if u.Exists != "" && w == Off {
		return nil
	}
	q.Unknown = nil
	for i, r := range q.Requirements {
		if r.Unknown {
			q.Requirements[i] = Requirement{Key: r.Key, Operator: v1.NodeSelectorOpIn, Values: []string{unknownValue}, Path: r.Path}
		}
	}
	if u.Taints != "" {
		q.Taints = append(q.Taints, Taint{Taint: v1.Taint{Key: UnknownTaintKey, Effect: v1.TaintEffectNoSchedule}})
	}
	if w == On {
		q.Taints = append(q.Taints, u.MaybeTaints...)
		for _, l := range u.MaybeLabels {
			if l.Value == "" {
				q.Requirements = append(q.Requirements, Requirement{Key: l.Key, Operator: v1.NodeSelectorOpIn, Values: []string{unknownValue}, Path: l.Path})
			} else {
				q.Labels = append(q.Labels, l)
			}
		}
	}
	return &q
}

// hasUnknownValue reports whether a label of the pool has a value not
// known (a requirement Exists that stands for it).
func (p *Pool) hasUnknownValue() bool {
	return slices.ContainsFunc(p.Requirements, func(r Requirement) bool { return r.Unknown })
}

// HasUnknowns reports whether the pool differs between worlds.
func (p *Pool) HasUnknowns() bool { return p.Unknown != nil || p.hasUnknownValue() }

// UnknownSummary names what is not known of the pool, for notices.
func (p *Pool) UnknownSummary() string {
	var parts []string
	if p.Unknown != nil {
		parts = append(parts, p.Unknown.Attributes...)
	}
	for _, r := range p.Requirements {
		if r.Unknown {
			parts = append(parts, "the value of label "+r.Key)
		}
	}
	return strings.Join(parts, ", ")
}
