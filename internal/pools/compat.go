package pools

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/textdist"
)

// WellKnownLabels are the label keys a pool may leave open: its nodes
// carry them with some value (a zone, an architecture) that a pod may
// choose. Karpenter's core list (pkg/apis/v1/labels.go WellKnownLabels);
// Karpenter's AWS provider adds every karpenter.k8s.aws/ key.
var wellKnownLabels = []string{
	LabelKarpenterNodePool,
	v1.LabelTopologyZone,
	v1.LabelTopologyRegion,
	v1.LabelInstanceTypeStable,
	v1.LabelArchStable,
	v1.LabelOSStable,
	"karpenter.sh/capacity-type",
	v1.LabelWindowsBuild,
}

// IsWellKnownLabel reports whether a pool that does not constrain key
// still admits any value of it.
func IsWellKnownLabel(key string, format Format) bool {
	for _, k := range wellKnownLabels {
		if k == key {
			return true
		}
	}
	return format == Karpenter && strings.HasPrefix(key, "karpenter.k8s.aws/")
}

// normalizedLabels are the deprecated keys Karpenter reads as their
// stable ones in pod requirements (pkg/apis/v1/labels.go NormalizedLabels).
var normalizedLabels = map[string]string{
	v1.LabelFailureDomainBetaZone:   v1.LabelTopologyZone,
	"beta.kubernetes.io/arch":       v1.LabelArchStable,
	"beta.kubernetes.io/os":         v1.LabelOSStable,
	v1.LabelInstanceType:            v1.LabelInstanceTypeStable,
	v1.LabelFailureDomainBetaRegion: v1.LabelTopologyRegion,
}

// valueSet is the set of values a requirement allows: the listed values,
// or (complement) every value but them, within optional numeric bounds.
type valueSet struct {
	complement bool
	values     map[string]bool
	gt, lt     *int64
}

func newValueSet(op v1.NodeSelectorOperator, values []string) valueSet {
	s := valueSet{values: map[string]bool{}}
	switch op {
	case v1.NodeSelectorOpIn:
		for _, v := range values {
			s.values[v] = true
		}
	case v1.NodeSelectorOpNotIn:
		s.complement = true
		for _, v := range values {
			s.values[v] = true
		}
	case v1.NodeSelectorOpExists:
		s.complement = true
	case v1.NodeSelectorOpDoesNotExist:
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		s.complement = true
		if len(values) == 1 {
			if n, err := strconv.ParseInt(values[0], 10, 64); err == nil {
				if op == v1.NodeSelectorOpGt {
					s.gt = &n
				} else {
					s.lt = &n
				}
			}
		}
	}
	return s
}

func (s valueSet) allows(v string) bool {
	if s.gt != nil || s.lt != nil {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || s.gt != nil && n <= *s.gt || s.lt != nil && n >= *s.lt {
			return false
		}
	}
	return s.values[v] != s.complement
}

// intersect is the values both sets allow.
func (s valueSet) intersect(o valueSet) valueSet {
	out := valueSet{values: map[string]bool{}, gt: s.gt, lt: s.lt}
	if o.gt != nil && (out.gt == nil || *o.gt > *out.gt) {
		out.gt = o.gt
	}
	if o.lt != nil && (out.lt == nil || *o.lt < *out.lt) {
		out.lt = o.lt
	}
	switch {
	case s.complement && o.complement:
		out.complement = true
		for v := range s.values {
			out.values[v] = true
		}
		for v := range o.values {
			out.values[v] = true
		}
	case s.complement:
		for v := range o.values {
			if out.allowsBounds(v) && !s.values[v] {
				out.values[v] = true
			}
		}
	case o.complement:
		for v := range s.values {
			if out.allowsBounds(v) && !o.values[v] {
				out.values[v] = true
			}
		}
	default:
		for v := range s.values {
			if o.values[v] && out.allowsBounds(v) {
				out.values[v] = true
			}
		}
	}
	return out
}

func (s valueSet) allowsBounds(v string) bool {
	if s.gt == nil && s.lt == nil {
		return true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return err == nil && (s.gt == nil || n > *s.gt) && (s.lt == nil || n < *s.lt)
}

// empty reports whether no value is allowed.
func (s valueSet) empty() bool {
	if s.complement {
		return s.gt != nil && s.lt != nil && *s.lt-*s.gt <= 1
	}
	return len(s.values) == 0
}

// operator is how Karpenter names the set: In, NotIn, Exists or
// DoesNotExist.
func (s valueSet) operator() v1.NodeSelectorOperator {
	switch {
	case s.complement && len(s.values) > 0:
		return v1.NodeSelectorOpNotIn
	case s.complement:
		return v1.NodeSelectorOpExists
	case len(s.values) > 0:
		return v1.NodeSelectorOpIn
	}
	return v1.NodeSelectorOpDoesNotExist
}

// format is Karpenter's wording of a requirement: "key In [a b]", at most
// five values shown.
func (s valueSet) format(key string) string {
	op := s.operator()
	out := fmt.Sprintf("%s %s", key, op)
	if op == v1.NodeSelectorOpIn || op == v1.NodeSelectorOpNotIn {
		values := make([]string, 0, len(s.values))
		for v := range s.values {
			values = append(values, v)
		}
		sort.Strings(values)
		if n := len(values); n > 5 {
			values = append(values[:5], fmt.Sprintf("and %d others", n-5))
		}
		out += " [" + strings.Join(values, " ") + "]"
	}
	if s.gt != nil {
		out += fmt.Sprintf(" >%d", *s.gt)
	}
	if s.lt != nil {
		out += fmt.Sprintf(" <%d", *s.lt)
	}
	return out
}

// requirements are label constraints by key, in the order keys came.
type requirements struct {
	keys []string
	sets map[string]valueSet
}

func (r *requirements) add(key string, s valueSet) {
	if r.sets == nil {
		r.sets = map[string]valueSet{}
	}
	if old, ok := r.sets[key]; ok {
		s = old.intersect(s)
	} else {
		r.keys = append(r.keys, key)
	}
	r.sets[key] = s
}

// poolRequirements are what the pool's nodes satisfy: its requirements,
// and its labels as In [value].
func (p *Pool) poolRequirements() *requirements {
	r := &requirements{}
	for _, q := range p.Requirements {
		r.add(q.Key, newValueSet(q.Operator, q.Values))
	}
	for _, l := range p.Labels {
		r.add(l.Key, newValueSet(v1.NodeSelectorOpIn, []string{l.Value}))
	}
	return r
}

// Compatible says whether the pool can make a node for a pod with this
// node selector and required node affinity, the way Karpenter decides it
// (pkg/scheduling/requirements.go Compatible with
// AllowUndefinedWellKnownLabels): a label the pod asks for that the pool
// does not define is incompatible, unless it is well known (the pool's
// nodes carry it with a value the pod may pick) or the pod asks for its
// absence (NotIn, DoesNotExist); a label both define must have a value
// both allow. The pod's requirements are its nodeSelector plus one of its
// required terms; the pool is compatible when some term is. The error is
// Karpenter's wording of the first term's reasons.
func (p *Pool) Compatible(selector map[string]string, aff *v1.Affinity) error {
	pool := p.poolRequirements()
	var terms []v1.NodeSelectorTerm
	if aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms = aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	if len(terms) == 0 {
		terms = []v1.NodeSelectorTerm{{}}
	}
	var first error
	for _, term := range terms {
		pod := &requirements{}
		keys := make([]string, 0, len(selector))
		for k := range selector {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			pod.add(normalize(k), newValueSet(v1.NodeSelectorOpIn, []string{selector[k]}))
		}
		for _, e := range term.MatchExpressions {
			pod.add(normalize(e.Key), newValueSet(e.Operator, e.Values))
		}
		err := p.compatible(pool, pod)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

func normalize(key string) string {
	if k, ok := normalizedLabels[key]; ok {
		return k
	}
	return key
}

func (p *Pool) compatible(pool, pod *requirements) error {
	var errs []error
	hints := 0
	for _, key := range pod.keys {
		s := pod.sets[key]
		if _, defined := pool.sets[key]; defined || IsWellKnownLabel(key, p.Format) {
			continue
		}
		if op := s.operator(); op == v1.NodeSelectorOpNotIn || op == v1.NodeSelectorOpDoesNotExist {
			continue
		}
		hint := ""
		if hints < maxHints {
			hints++
			hint = p.labelHint(pool, key)
		}
		errs = append(errs, fmt.Errorf("label %q does not have known values%s", key, hint))
	}
	for _, key := range pod.keys {
		existing, ok := pool.sets[key]
		if !ok {
			continue
		}
		incoming := pod.sets[key]
		if !existing.intersect(incoming).empty() {
			continue
		}
		in, ex := incoming.operator(), existing.operator()
		if (in == v1.NodeSelectorOpNotIn || in == v1.NodeSelectorOpDoesNotExist) && (ex == v1.NodeSelectorOpNotIn || ex == v1.NodeSelectorOpDoesNotExist) {
			continue
		}
		errs = append(errs, fmt.Errorf("key %s, %s not in %s", key, incoming.format(key), existing.format(key)))
	}
	return errors.Join(errs...)
}

// maxHints bounds the keys of one pod that get a "typo of" hint: each
// is a search over the pool's keys, and a pod of 400 unknown keys against
// a pool of 400 (200 KB of valid input) made the hints cost over a minute.
// Past the first few, a typo is not what went wrong.
const maxHints = 8

// labelHint is Karpenter's " (typo of %q?)" when a key is near a well-known
// key or one the pool defines.
func (p *Pool) labelHint(pool *requirements, key string) string {
	candidates := append(append([]string(nil), wellKnownLabels...), pool.keys...)
	if n := textdist.Nearest(key, candidates); n != "" {
		return fmt.Sprintf(" (typo of %q?)", n)
	}
	return ""
}

// ErrorText is Karpenter's one-line wording of a Compatible error:
// "incompatible requirements, label "gpu" does not have known values".
func ErrorText(err error) string {
	return "incompatible requirements, " + strings.ReplaceAll(err.Error(), "\n", "; ")
}
