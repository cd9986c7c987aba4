package pools

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/taintlint/taintlint/internal/textdist"
)

// Karpenter's own requirement operators for NodePools (v1.10+,
// pkg/apis/v1/nodeclaim.go NodeSelectorOpGte, NodeSelectorOpLte): inclusive
// bounds. Pods cannot use them (the API server allows only Gt and Lt).
const (
	OpGte v1.NodeSelectorOperator = "Gte"
	OpLte v1.NodeSelectorOperator = "Lte"
)

// karpenterWellKnown are the keys a Karpenter pool may leave open: its
// nodes carry them with a value the pod may pick (sigs.k8s.io/karpenter
// v1.14.1 pkg/apis/v1/labels.go WellKnownLabels).
var karpenterWellKnown = []string{
	LabelKarpenterNodePool,
	v1.LabelTopologyZone,
	v1.LabelTopologyRegion,
	v1.LabelInstanceTypeStable,
	v1.LabelArchStable,
	v1.LabelOSStable,
	LabelKarpenterCapacityType,
	v1.LabelWindowsBuild,
}

// awsWellKnown are the keys the AWS provider adds to WellKnownLabels
// (aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/labels.go init). Not
// karpenter.k8s.aws/ec2nodeclass: that is a template label with the
// nodeClassRef's name.
var awsWellKnown = []string{
	"karpenter.k8s.aws/capacity-reservation-id",
	"karpenter.k8s.aws/capacity-reservation-type",
	"karpenter.k8s.aws/capacity-reservation-interruptible",
	"karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-encryption-in-transit-supported",
	"karpenter.k8s.aws/instance-category",
	"karpenter.k8s.aws/instance-capability-flex",
	"karpenter.k8s.aws/instance-family",
	"karpenter.k8s.aws/instance-generation",
	"karpenter.k8s.aws/instance-size",
	"karpenter.k8s.aws/instance-local-nvme",
	"karpenter.k8s.aws/instance-cpu",
	"karpenter.k8s.aws/instance-cpu-manufacturer",
	"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
	"karpenter.k8s.aws/instance-memory",
	"karpenter.k8s.aws/instance-ebs-bandwidth",
	"karpenter.k8s.aws/instance-network-bandwidth",
	"karpenter.k8s.aws/instance-gpu-name",
	"karpenter.k8s.aws/instance-gpu-manufacturer",
	"karpenter.k8s.aws/instance-gpu-count",
	"karpenter.k8s.aws/instance-gpu-memory",
	"karpenter.k8s.aws/instance-accelerator-name",
	"karpenter.k8s.aws/instance-accelerator-manufacturer",
	"karpenter.k8s.aws/instance-accelerator-count",
	"topology.k8s.aws/zone-id",
	"karpenter.k8s.aws/instance-tenancy",
	"karpenter.k8s.aws/placement-group-id",
	"karpenter.k8s.aws/placement-group-partition",
}

// nodeWellKnown are the keys every node of a pool of another format
// carries with a value the pool does not fix: the kubelet's architecture
// and operating system, the cloud provider's instance type, zone and
// region (k8s.io/api core/v1 well_known_labels.go).
var nodeWellKnown = []string{
	v1.LabelTopologyZone,
	v1.LabelTopologyRegion,
	v1.LabelInstanceTypeStable,
	v1.LabelArchStable,
	v1.LabelOSStable,
}

// wellKnown are the keys a pool may leave open.
func (p *Pool) wellKnown() []string {
	switch {
	case p.AutoMode:
		return eksWellKnown()
	case p.Format != Karpenter:
		return nodeWellKnown
	case p.AWS:
		return append(karpenterWellKnown[:len(karpenterWellKnown):len(karpenterWellKnown)], awsWellKnown...)
	}
	return karpenterWellKnown
}

// IsWellKnownLabel reports whether the pool, leaving key unconstrained,
// still admits any value of it.
func (p *Pool) IsWellKnownLabel(key string) bool {
	for _, k := range p.wellKnown() {
		if k == key {
			return true
		}
	}
	return false
}

// normalizedLabels are the deprecated keys Karpenter reads as their
// stable ones, in pod requirements and in the pool's own
// (pkg/apis/v1/labels.go NormalizedLabels, applied by
// pkg/scheduling/requirement.go NewRequirementWithFlexibility).
var normalizedLabels = map[string]string{
	v1.LabelFailureDomainBetaZone:   v1.LabelTopologyZone,
	"beta.kubernetes.io/arch":       v1.LabelArchStable,
	"beta.kubernetes.io/os":         v1.LabelOSStable,
	v1.LabelInstanceType:            v1.LabelInstanceTypeStable,
	v1.LabelFailureDomainBetaRegion: v1.LabelTopologyRegion,
}

func normalize(key string) string {
	if k, ok := normalizedLabels[key]; ok {
		return k
	}
	return key
}

// valueSet mirrors Karpenter's scheduling.Requirement: the listed values,
// or (complement) every value but them, within optional inclusive integer
// bounds (Gt N is kept as >= N+1, Lt N as <= N-1).
type valueSet struct {
	complement bool
	values     map[string]bool
	gte, lte   *int
}

// newValueSet is NewRequirementWithFlexibility's reading of an operator.
// A bound that is not an integer reads as 0, as Karpenter's prevalidated
// strconv.Atoi does; an unknown operator reads as Exists.
func newValueSet(op v1.NodeSelectorOperator, values []string) valueSet {
	s := valueSet{values: map[string]bool{}}
	if op == v1.NodeSelectorOpIn {
		for _, v := range values {
			s.values[v] = true
		}
		return s
	}
	s.complement = op != v1.NodeSelectorOpDoesNotExist
	bound := func() int {
		if len(values) == 0 {
			return 0
		}
		n, _ := strconv.Atoi(values[0])
		return n
	}
	switch op {
	case v1.NodeSelectorOpNotIn:
		for _, v := range values {
			s.values[v] = true
		}
	case v1.NodeSelectorOpGt:
		n := bound()
		if n == math.MaxInt { // Gt MaxInt matches nothing
			return valueSet{values: map[string]bool{}}
		}
		n++
		s.gte = &n
	case v1.NodeSelectorOpLt:
		n := bound() - 1
		s.lte = &n
	case OpGte:
		n := bound()
		s.gte = &n
	case OpLte:
		n := bound()
		s.lte = &n
	}
	return s
}

func maxBound(a, b *int) *int {
	if a == nil || b != nil && *b > *a {
		return b
	}
	return a
}

func minBound(a, b *int) *int {
	if a == nil || b != nil && *b < *a {
		return b
	}
	return a
}

func withinBounds(v string, gte, lte *int) bool {
	if gte == nil && lte == nil {
		return true
	}
	n, err := strconv.Atoi(v)
	return err == nil && (gte == nil || n >= *gte) && (lte == nil || n <= *lte)
}

// intersect is Requirement.Intersection: the values both sets allow.
func (s valueSet) intersect(o valueSet) valueSet {
	gte, lte := maxBound(s.gte, o.gte), minBound(s.lte, o.lte)
	if gte != nil && lte != nil && *gte > *lte {
		return valueSet{values: map[string]bool{}}
	}
	out := valueSet{complement: s.complement && o.complement, values: map[string]bool{}}
	add := func(from map[string]bool, keep func(string) bool) {
		for v := range from {
			if keep(v) && withinBounds(v, gte, lte) {
				out.values[v] = true
			}
		}
	}
	switch {
	case s.complement && o.complement:
		add(s.values, func(string) bool { return true })
		add(o.values, func(string) bool { return true })
	case s.complement:
		add(o.values, func(v string) bool { return !s.values[v] })
	case o.complement:
		add(s.values, func(v string) bool { return !o.values[v] })
	default:
		add(s.values, func(v string) bool { return o.values[v] })
	}
	if out.complement {
		out.gte, out.lte = gte, lte
	}
	return out
}

// hasIntersection is Requirement.HasIntersection: some value both allow.
func (s valueSet) hasIntersection(o valueSet) bool {
	gte, lte := maxBound(s.gte, o.gte), minBound(s.lte, o.lte)
	if gte != nil && lte != nil && *gte > *lte {
		return false
	}
	some := func(from map[string]bool, keep func(string) bool) bool {
		for v := range from {
			if keep(v) && withinBounds(v, gte, lte) {
				return true
			}
		}
		return false
	}
	switch {
	case s.complement && o.complement:
		return true
	case s.complement:
		return some(o.values, func(v string) bool { return !s.values[v] })
	case o.complement:
		return some(s.values, func(v string) bool { return !o.values[v] })
	}
	return some(s.values, func(v string) bool { return o.values[v] })
}

// operator is Requirement.Operator: In, NotIn, Exists or DoesNotExist
// (bounds read as Exists or NotIn with bounds).
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

// format is Requirement.String: "key In [a b]", at most five values
// shown, bounds as ">=N" and "<=N".
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
	if s.gte != nil {
		out += fmt.Sprintf(" >=%d", *s.gte)
	}
	if s.lte != nil {
		out += fmt.Sprintf(" <=%d", *s.lte)
	}
	return out
}

// requirements are label constraints by key, in the order keys came.
type requirements struct {
	keys []string
	sets map[string]valueSet
}

// add is Requirements.Add: a second requirement of a key narrows the first.
func (r *requirements) add(key string, s valueSet) {
	key = normalize(key)
	if r.sets == nil {
		r.sets = map[string]valueSet{}
	}
	if old, ok := r.sets[key]; ok {
		s = s.intersect(old)
	} else {
		r.keys = append(r.keys, key)
	}
	r.sets[key] = s
}

// poolRequirements are what the pool's nodes satisfy: its requirements,
// then its labels as In [value] (NodeClaimTemplate's order).
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

// terms are the pod's requirement sets Karpenter tries in turn: its
// nodeSelector plus one required term each (or alone, without terms).
func terms(selector map[string]string, aff *v1.Affinity) []*requirements {
	var ts []v1.NodeSelectorTerm
	if aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ts = aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	if len(ts) == 0 {
		ts = []v1.NodeSelectorTerm{{}}
	}
	keys := make([]string, 0, len(selector))
	for k := range selector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*requirements, 0, len(ts))
	for _, term := range ts {
		pod := &requirements{}
		for _, k := range keys {
			pod.add(k, newValueSet(v1.NodeSelectorOpIn, []string{selector[k]}))
		}
		for _, e := range term.MatchExpressions {
			pod.add(e.Key, newValueSet(e.Operator, e.Values))
		}
		out = append(out, pod)
	}
	return out
}

// Compatible says whether the pool makes a node for a pod with this node
// selector and required node affinity, the way its provisioner decides.
// A Karpenter pool first refuses a pod its provisioner does not provision
// for (Refuses). Then, as Karpenter's pkg/scheduling/requirements.go
// Compatible with AllowUndefinedWellKnownLabels: a label the pod asks for
// that the pool does not define is incompatible, unless it is well known
// (the pool's nodes carry it with a value the pod may pick) or the pod
// asks for its absence (NotIn, DoesNotExist); a label both define must
// have a value both allow. The pool is compatible when some required term
// is (Karpenter relaxes the terms in turn). The error is Karpenter's
// wording of the first term's reasons.
func (p *Pool) Compatible(selector map[string]string, aff *v1.Affinity) error {
	if err := p.Refuses(selector, aff); err != nil {
		return err
	}
	return p.DaemonCompatible(selector, aff)
}

// DaemonCompatible is Compatible without the provisioner's refusal: a
// DaemonSet's pods are not provisioned for, they go to the nodes that
// exist, and Karpenter checks them against the template as they are
// (pkg/controllers/provisioning/scheduling/scheduler.go, daemon overhead).
func (p *Pool) DaemonCompatible(selector map[string]string, aff *v1.Affinity) error {
	pool := p.poolRequirements()
	var first error
	for _, pod := range terms(selector, aff) {
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

func (p *Pool) compatible(pool, pod *requirements) error {
	for _, key := range pod.keys {
		if p.IsWellKnownLabel(key) || p.Unknown.opens(key) {
			continue
		}
		if _, defined := pool.sets[key]; defined {
			continue
		}
		if op := pod.sets[key].operator(); op == v1.NodeSelectorOpNotIn || op == v1.NodeSelectorOpDoesNotExist {
			continue
		}
		return fmt.Errorf("label %q does not have known values%s", key, p.labelHint(pool, key))
	}
	var errs []error
	for _, key := range pod.keys {
		existing, ok := pool.sets[key]
		if !ok {
			continue
		}
		incoming := pod.sets[key]
		if existing.hasIntersection(incoming) {
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
	candidates := append(append([]string(nil), p.wellKnown()...), pool.keys...)
	if n := textdist.Nearest(key, candidates); n != "" {
		return fmt.Sprintf(" (typo of %q?)", n)
	}
	return ""
}

// restrictedDomains are the label domains Karpenter keeps for itself
// (pkg/apis/v1/labels.go RestrictedLabelDomains; the AWS provider adds
// karpenter.k8s.aws), and restrictedLabels the single keys
// (RestrictedLabels).
var (
	restrictedDomains    = []string{"karpenter.sh"}
	awsRestrictedDomains = []string{"karpenter.sh", "karpenter.k8s.aws"}
	restrictedLabels     = []string{v1.LabelHostname}
)

// wellKnownValues are the keys whose In values Karpenter checks against a
// known set (pkg/apis/v1/labels.go WellKnownValuesForRequirements; the
// AWS provider adds instance-tenancy).
func (p *Pool) wellKnownValues(key string) []string {
	switch {
	case key == LabelKarpenterCapacityType:
		return []string{"on-demand", "spot", "reserved"}
	case key == "karpenter.k8s.aws/instance-tenancy" && p.AWS:
		return []string{"dedicated", "default"}
	}
	return nil
}

// restricted is IsRestrictedLabel: an error for a key Karpenter refuses.
func (p *Pool) restricted(key string) error {
	if p.IsWellKnownLabel(key) {
		return nil
	}
	domains := restrictedDomains
	if p.AWS {
		domains = awsRestrictedDomains
	}
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		domain = ""
	}
	for _, d := range domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return fmt.Errorf("using label %s is not allowed as it might interfere with the internal provisioning logic", key)
		}
	}
	for _, k := range restrictedLabels {
		if k == key {
			return fmt.Errorf("using label %s is not allowed as it might interfere with the internal provisioning logic", key)
		}
	}
	return nil
}

// validRequirement is ValidateRequirement (pkg/apis/v1/nodeclaim_validation.go)
// on one pod requirement: the first reason Karpenter refuses it.
func (p *Pool) validRequirement(key string, op v1.NodeSelectorOperator, values []string) error {
	key = normalize(key)
	switch op {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt, OpGte, OpLte:
	default:
		return fmt.Errorf("key %s has an unsupported operator %s", key, op)
	}
	if err := p.restricted(key); err != nil {
		return err
	}
	if known := p.wellKnownValues(key); known != nil && op == v1.NodeSelectorOpIn && p.IsWellKnownLabel(key) {
		found := false
		for _, v := range values {
			for _, k := range known {
				found = found || v == k
			}
		}
		if !found {
			return fmt.Errorf("no valid values found in %v for %s, expected one of: %v", values, key, known)
		}
	}
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return fmt.Errorf("key %s is not a qualified name, %s", key, errs[0])
	}
	for _, v := range values {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("invalid value %s for key %s, %s", v, key, errs[0])
		}
	}
	if op == v1.NodeSelectorOpIn && len(values) == 0 {
		return fmt.Errorf("key %s with operator %s must have a value defined", key, op)
	}
	if op == v1.NodeSelectorOpGt || op == v1.NodeSelectorOpLt || op == OpGte || op == OpLte {
		if len(values) != 1 {
			return fmt.Errorf("key %s with operator %s must have a single positive integer value", key, op)
		}
		if n, err := strconv.Atoi(values[0]); err != nil || n < 0 {
			return fmt.Errorf("key %s with operator %s must have a single positive integer value", key, op)
		}
	}
	return nil
}

// Refuses says why a Karpenter pool's provisioner would not provision for
// a pod at all (pkg/controllers/provisioning/provisioner.go Validate): it
// asks for karpenter.sh/nodepool DoesNotExist, or a requirement of its
// nodeSelector or of any required term is invalid to Karpenter (a
// restricted key such as kubernetes.io/hostname or karpenter.sh/…, a
// capacity type Karpenter does not know, a bound that is not a
// non-negative integer). Other formats refuse nothing.
func (p *Pool) Refuses(selector map[string]string, aff *v1.Affinity) error {
	if p.Format != Karpenter {
		return nil
	}
	// validateKarpenterManagedLabelCanExist reads NewPodRequirements: the
	// nodeSelector, the heaviest preferred term and the first required one.
	pod := terms(selector, aff)[0]
	if aff != nil && aff.NodeAffinity != nil {
		var heaviest *v1.PreferredSchedulingTerm
		for i, t := range aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if heaviest == nil || t.Weight > heaviest.Weight {
				heaviest = &aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i]
			}
		}
		if heaviest != nil {
			for _, e := range heaviest.Preference.MatchExpressions {
				pod.add(e.Key, newValueSet(e.Operator, e.Values))
			}
		}
	}
	if s, ok := pod.sets[LabelKarpenterNodePool]; ok && s.operator() == v1.NodeSelectorOpDoesNotExist {
		return errors.New("configured to not run on a Karpenter provisioned node (karpenter.sh/nodepool DoesNotExist)")
	}
	keys := make([]string, 0, len(selector))
	for k := range selector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := p.validRequirement(k, v1.NodeSelectorOpIn, []string{selector[k]}); err != nil {
			return err
		}
	}
	if aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			if len(term.MatchFields) > 0 {
				return errors.New("node selector term with matchFields is not supported")
			}
			for _, e := range term.MatchExpressions {
				if err := p.validRequirement(e.Key, e.Operator, e.Values); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ErrorText is Karpenter's one-line wording of a Compatible error:
// "incompatible requirements, label "gpu" does not have known values".
func ErrorText(err error) string {
	return "incompatible requirements, " + strings.ReplaceAll(err.Error(), "\n", "; ")
}
