package scheduling

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// Detail is one line of taintlint's own explanation.
type Detail struct {
	Text string
	// Node and Path locate what the line is about on one node (a taint,
	// the unschedulable flag), when there is such a place.
	Node *k8s.Node
	Path *field.Path
	// Object is the object Path is in, when that is not Node.Object (a
	// pool's taint written in another object).
	Object *loader.Object
	// Toleration is the manifest index of the toleration a hint is about
	// (of a merged pod's list: Workload.TolerationPath), or -1.
	Toleration int
}

// Site is the object Path is in.
func (d *Detail) Site() *loader.Object {
	if d.Object != nil {
		return d.Object
	}
	return d.Node.Object
}

// Details explains a placement that failed: which taints on which nodes,
// which labels were missing, which resources were short, and where a
// toleration nearly matches a taint, the likely fix.
func (p *Placement) Details(gates k8s.FeatureGates) []Detail {
	switch {
	case p.Rejected != "":
		return nil
	case p.Conflict:
		return []Detail{{Text: "the required node affinity's terms each ask for matchFields metadata.name In sets that do not intersect, so no node name can match", Toleration: -1}}
	case p.Mode == NodeName && p.Target == nil:
		text := fmt.Sprintf("spec.nodeName skips the scheduler, so the pod can run on %s only; the inventory has %d node(s) and that is not one of them", quote(p.Workload.Spec.NodeName), p.Total)
		names := make([]string, 0, len(p.inv.Nodes))
		for _, n := range p.inv.Nodes {
			names = append(names, n.Node.Name)
		}
		sort.Strings(names)
		if n := nearest(p.Workload.Spec.NodeName, names); n != "" {
			text += fmt.Sprintf(" (did you mean %s?)", n)
		}
		return []Detail{{Text: text, Toleration: -1}}
	}
	failed := p.failed()
	var out []Detail
	if p.Mode == Daemon {
		out = append(out, Detail{Text: fmt.Sprintf("the DaemonSet controller creates a daemon pod for %d of %d node(s); the pods for %s would stay Pending", p.Picked, p.Total, summarize(failed).String()), Toleration: -1})
	}
	if p.Mode == NodeName {
		out = append(out, Detail{Text: fmt.Sprintf("spec.nodeName skips the scheduler; the kubelet on %s admits the pod only if it fits its resources, node selector and affinity, and tolerates its NoExecute taints", p.Target.Node.Name), Toleration: -1})
	}
	s := p.podSubject()
	out = append(out, unschedulableDetails(failed)...)
	out = append(out, taintDetails(p, s, failed, gates)...)
	out = append(out, affinityDetails(p, s, failed)...)
	out = append(out, resourceDetails(failed)...)
	out = append(out, absentDetails(p, failed)...)
	return out
}

// failed are the results of the nodes a filter rejected (pointers into
// p.Results: a result per node group is 152 bytes, copies of several
// hundred were most of a detail's allocation).
func (p *Placement) failed() []*Result {
	failed := make([]*Result, 0, len(p.Results))
	for i := range p.Results {
		if r := &p.Results[i]; r.Filter != "" && r.Filter != DaemonSetController {
			failed = append(failed, r)
		}
	}
	return failed
}

// taintDetails are the lines of Details about untolerated taints, the
// only ones that name a toleration (ExplainedTolerations).
func (p *Placement) taintDetails(gates k8s.FeatureGates) []Detail {
	if p.Rejected != "" || p.Conflict || p.Mode == NodeName && p.Target == nil {
		return nil
	}
	return taintDetails(p, p.podSubject(), p.failed(), gates)
}

// subject is what details explain a rejection against: the tolerations,
// node selector and affinity of the pod the scheduler (or kubelet) sees,
// or of the template the DaemonSet controller judges nodes with.
type subject struct {
	tols     []k8s.Toleration
	selector map[string]string
	affinity *v1.Affinity
	// terms: explain the required affinity's terms (the scheduler of a
	// daemon pod sees them replaced by its node's name).
	terms bool
	// noExecuteOnly: the kubelet's admission, which checks NoExecute
	// taints only.
	noExecuteOnly bool
	// daemon: advice for a DaemonSet, which may tolerate node-condition
	// taints and whose purpose is to run on tainted nodes.
	daemon bool
	// ertHint: say what the ExtendedResourceToleration admission plugin,
	// which is off, would add for a requested extended resource.
	ertHint bool
}

// podSubject is the pod as the cluster would create it.
func (p *Placement) podSubject() *subject {
	return &subject{
		tols:          p.Pod.Tolerations,
		selector:      p.Pod.NodeSelector,
		affinity:      p.Pod.Affinity,
		terms:         p.Mode != Daemon,
		noExecuteOnly: p.Mode == NodeName,
		daemon:        p.Mode == Daemon,
		ertHint:       !p.ert && p.Mode != Daemon,
	}
}

func (s *subject) v1Tolerations() []v1.Toleration {
	out := make([]v1.Toleration, len(s.tols))
	for i, t := range s.tols {
		out[i] = t.Toleration
	}
	return out
}

func summarize(rs []*Result) *nodeSet {
	s := &nodeSet{}
	for _, r := range rs {
		s.add(r)
	}
	return s
}

func byFilter(rs []*Result, filter string, absent bool) []*Result {
	n := 0
	for i := range rs {
		if rs[i].Filter == filter && rs[i].Absent == absent {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]*Result, 0, n)
	for i := range rs {
		if rs[i].Filter == filter && rs[i].Absent == absent {
			out = append(out, rs[i])
		}
	}
	return out
}

func unschedulableDetails(failed []*Result) []Detail {
	rs := byFilter(failed, NodeUnschedulable, false)
	if len(rs) == 0 {
		return nil
	}
	return []Detail{{
		Text:       fmt.Sprintf("cordoned (spec.unschedulable: true): %s; the pod does not tolerate %s:NoSchedule", summarize(rs), v1.TaintNodeUnschedulable),
		Node:       rs[0].Nodes[0],
		Path:       field.NewPath("spec", "unschedulable"),
		Toleration: -1,
	}}
}

// taintDetails lists every NoSchedule and NoExecute taint the pod does not
// tolerate on the nodes TaintToleration rejected, with the nodes that
// carry it, and a near-miss toleration's fix.
func taintDetails(p *Placement, s *subject, failed []*Result, gates k8s.FeatureGates) []Detail {
	rs := byFilter(failed, TaintToleration, false)
	if len(rs) == 0 {
		return nil
	}
	gate := gates.TaintTolerationComparisonOperators
	tols := s.v1Tolerations()
	type entry struct {
		taint v1.Taint
		nodes nodeSet
		node  *k8s.Node
		index int
	}
	var order []string
	entries := map[string]*entry{}
	// tolerated, by taint: the nodes of the results repeat their taints.
	tolerated := map[v1.Taint]bool{}
	for _, r := range rs {
		taints := r.Nodes[0].Node.Spec.Taints
		for j := range taints {
			t := &taints[j]
			if !noScheduleOrNoExecute(t) {
				continue
			}
			if s.noExecuteOnly && t.Effect != v1.TaintEffectNoExecute {
				continue
			}
			id := v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
			ok, seen := tolerated[id]
			if !seen {
				ok = corev1helpers.TolerationsTolerateTaint(k8s.Logger(), tols, t, gate)
				tolerated[id] = ok
			}
			if ok {
				continue
			}
			key := t.ToString()
			e := entries[key]
			if e == nil {
				e = &entry{taint: *t, node: r.Nodes[0], index: j}
				entries[key] = e
				order = append(order, key)
			}
			e.nodes.add(r)
		}
	}
	var out []Detail
	for _, key := range order {
		e := entries[key]
		text := fmt.Sprintf("untolerated taint %s on %s", key, e.nodes.String())
		tol := -1
		if hint, idx := nearMiss(p, s, e.taint, gate); hint != "" {
			text += "; " + hint
			tol = idx
		} else if hint := taintAdvice(p, s, e.taint); hint != "" {
			text += "; " + hint
		}
		out = append(out, Detail{Text: text, Node: e.node, Path: e.node.TaintPath(e.index), Object: e.node.TaintObject(e.index), Toleration: tol})
	}
	return out
}

// nearMiss finds a toleration that almost tolerates taint: the same key
// with another value, effect or operator, or a key a small edit away. It
// returns the fix, checked with ToleratesTaint, and the toleration's
// manifest index (-1 when it came from elsewhere).
func nearMiss(p *Placement, s *subject, taint v1.Taint, gate bool) (string, int) {
	condition := !s.daemon && IsConditionTaintKey(taint.Key)
	for _, t := range s.tols {
		if t.Key == "" {
			continue
		}
		sameKey := t.Key == taint.Key
		if !sameKey && !similar(t.Key, taint.Key) {
			continue
		}
		fixed := t.Toleration
		fixed.TolerationSeconds = nil
		var changes []string
		if !sameKey {
			changes = append(changes, fmt.Sprintf("key %s where the taint has %s", quote(t.Key), quote(taint.Key)))
			fixed.Key = taint.Key
		}
		if t.Effect != "" && t.Effect != taint.Effect {
			changes = append(changes, fmt.Sprintf("effect %s where the taint has %s", t.Effect, taint.Effect))
			fixed.Effect = taint.Effect
		}
		switch t.Operator {
		case v1.TolerationOpExists:
		case v1.TolerationOpEqual, "":
			if t.Value != taint.Value {
				changes = append(changes, fmt.Sprintf("value %s where the taint has %s", quote(t.Value), quote(taint.Value)))
				fixed.Value = taint.Value
			}
		case v1.TolerationOpLt, v1.TolerationOpGt:
			if !gate {
				changes = append(changes, fmt.Sprintf("operator %s, which never tolerates while the TaintTolerationComparisonOperators feature gate is off", t.Operator))
			} else {
				changes = append(changes, fmt.Sprintf("operator %s with value %s, which the taint's value %s does not satisfy", t.Operator, quote(t.Value), quote(taint.Value)))
			}
			fixed.Operator, fixed.Value = v1.TolerationOpEqual, taint.Value
		default:
			changes = append(changes, fmt.Sprintf("operator %s, which is neither Equal nor Exists", quote(string(t.Operator))))
			fixed.Operator, fixed.Value = v1.TolerationOpEqual, taint.Value
		}
		if len(changes) == 0 || !fixed.ToleratesTaint(k8s.Logger(), &taint, gate) {
			continue
		}
		where, idx := fmt.Sprintf("toleration from %s", t.Source), -1
		if t.Source == k8s.FromManifest || t.Source == k8s.FromPlacement {
			where, idx = fmt.Sprintf("toleration %s", p.Workload.TolerationPath(t.Index)), t.Index
		}
		if condition {
			// Never advise a workload that is not a DaemonSet to tolerate
			// a node's condition.
			return fmt.Sprintf("%s %s has %s; this is a node-condition taint, which the node loses when it recovers: wait for the node rather than tolerate it", where, FormatToleration(t.Toleration), strings.Join(changes, " and ")), idx
		}
		return fmt.Sprintf("%s %s has %s: %s would tolerate it", where, FormatToleration(t.Toleration), strings.Join(changes, " and "), FormatToleration(fixed)), idx
	}
	return "", -1
}

// taintAdvice is what to do about an untolerated taint no toleration
// nearly matches: nothing for a node-condition taint (it goes when the
// node recovers, and only a DaemonSet may tolerate one), the
// ExtendedResourceToleration plugin's toleration for a requested extended
// resource when the plugin is off, and, for a DaemonSet, whose purpose is
// to run on tainted nodes too, the toleration that admits it.
func taintAdvice(p *Placement, s *subject, taint v1.Taint) string {
	if IsConditionTaintKey(taint.Key) {
		return "a node-condition taint, which the node loses when it recovers"
	}
	if s.ertHint && taint.Effect == v1.TaintEffectNoSchedule && slices.Contains(k8s.ExtendedResourceRequests(&p.Workload.Spec), taint.Key) {
		fix := FormatToleration(k8s.ExtendedResourceTolerationFor(taint.Key))
		return fmt.Sprintf("the pod requests %s, and the ExtendedResourceToleration admission plugin would add %s for it: the plugin is off by default upstream but on in GKE and some EKS setups; if your cluster runs it, set admission: {extendedResourceToleration: true} in .taintlint.yaml, otherwise add that toleration", taint.Key, fix)
	}
	if s.daemon {
		return "tolerate it with " + FormatToleration(FixToleration(taint))
	}
	return ""
}

// FormatToleration writes a toleration as a YAML flow mapping.
func FormatToleration(t v1.Toleration) string {
	var parts []string
	if t.Key != "" {
		parts = append(parts, "key: "+yamlScalar(t.Key))
	}
	if t.Operator != "" {
		parts = append(parts, "operator: "+yamlScalar(string(t.Operator)))
	}
	if t.Value != "" || (t.Operator == v1.TolerationOpEqual) {
		parts = append(parts, "value: "+yamlScalar(t.Value))
	}
	if t.Effect != "" {
		parts = append(parts, "effect: "+string(t.Effect))
	}
	if t.TolerationSeconds != nil {
		parts = append(parts, fmt.Sprintf("tolerationSeconds: %d", *t.TolerationSeconds))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// yamlScalar quotes values YAML would read as something other than the
// string (true, 1, empty) or that hold flow indicators.
func yamlScalar(s string) string {
	switch strings.ToLower(s) {
	case "", "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		return quote(s)
	}
	if strings.ContainsAny(s, ",:{}[]#&*!|>'\"%@` ") || strings.TrimLeft(s, "0123456789.+-eE") == "" {
		return quote(s)
	}
	return s
}

// maxValues caps the other label values a nodeSelector line lists.
const maxValues = 3

// affinityDetails says, for the nodes NodeAffinity rejected, which
// nodeSelector labels were missing or different and which required terms
// failed.
func affinityDetails(p *Placement, s *subject, failed []*Result) []Detail {
	rs := byFilter(failed, NodeAffinity, false)
	if len(rs) == 0 {
		return nil
	}
	var out []Detail
	// Node pools say why themselves (Karpenter's wording); the label
	// analysis below is for nodes.
	labelled := rs[:0:0]
	for _, r := range rs {
		n := r.Nodes[0]
		if n.Compatible == nil {
			labelled = append(labelled, r)
			continue
		}
		if err := n.Compatible(s.selector, s.affinity); err != nil {
			out = append(out, Detail{Text: fmt.Sprintf("%s: incompatible requirements, %s", n.Node.Name, strings.ReplaceAll(err.Error(), "\n", "; ")), Node: n, Toleration: -1})
		}
	}
	rs = labelled
	if len(rs) == 0 {
		return out
	}
	sel := s.selector
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := sel[k]
		var missing nodeSet
		others := map[string]*nodeSet{}
		var otherVals []string
		for _, r := range rs {
			got, ok := r.Nodes[0].Node.Labels[k]
			switch {
			case !ok:
				missing.add(r)
			case got != want:
				if others[got] == nil {
					others[got] = &nodeSet{}
					otherVals = append(otherVals, got)
				}
				others[got].add(r)
			}
		}
		if missing.count == 0 && len(otherVals) == 0 {
			continue
		}
		var parts []string
		if missing.count > 0 {
			parts = append(parts, fmt.Sprintf("no label %s on %s", k, missing.String()))
		}
		sort.Strings(otherVals)
		var rest nodeSet
		for i, v := range otherVals {
			if i < maxValues {
				parts = append(parts, fmt.Sprintf("%s=%s on %s", k, v, others[v].String()))
				continue
			}
			rest.count += others[v].count
		}
		if n := len(otherVals) - maxValues; n > 0 {
			parts = append(parts, fmt.Sprintf("%d other value(s) of %s on %d node(s)", n, k, rest.count))
		}
		text := fmt.Sprintf("nodeSelector %s=%s: %s", k, want, strings.Join(parts, ", "))
		if !p.inventoryHasLabel(k, want) {
			text += fmt.Sprintf("; no node in the inventory has %s=%s", k, want)
			if v := nearest(want, p.labelValues(k)); v != "" {
				text += fmt.Sprintf(" (did you mean %s=%s?)", k, v)
			}
		}
		out = append(out, Detail{Text: text, Toleration: -1})
	}
	if rna := requiredTerms(s.affinity); rna != nil && s.terms {
		var bad []*Result
		selOnly := nodeaffinity.NewRequiredNodeAffinity(sel, nil)
		for _, r := range rs {
			if ok, _ := selOnly.Match(&r.Nodes[0].Node); ok || p.Mode == NodeName {
				bad = append(bad, r)
			}
		}
		if len(bad) > 0 {
			out = append(out, termDetails(rna, bad)...)
		}
	}
	return out
}

// termDetails explains, per required term, the first requirement that
// fails on the nodes, each requirement matched alone by nodeaffinity.
func termDetails(rna *v1.NodeSelector, rs []*Result) []Detail {
	n := len(rna.NodeSelectorTerms)
	if n == 0 {
		return []Detail{{Text: "required node affinity has no nodeSelectorTerms, which matches no node", Toleration: -1}}
	}
	var out []Detail
	head := fmt.Sprintf("required node affinity: none of its %d term(s) matches %s", n, summarize(rs).String())
	out = append(out, Detail{Text: head, Toleration: -1})
	for i, term := range rna.NodeSelectorTerms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			out = append(out, Detail{Text: fmt.Sprintf("term %d is empty and matches no node", i), Toleration: -1})
			continue
		}
		fails := map[string]*nodeSet{}
		var order []string
		reqs := termRequirements(term)
		for _, r := range rs {
			node := &r.Nodes[0].Node
			req := firstFailing(reqs, node)
			if req == "" {
				continue
			}
			if fails[req] == nil {
				fails[req] = &nodeSet{}
				order = append(order, req)
			}
			fails[req].add(r)
		}
		for _, req := range order {
			out = append(out, Detail{Text: fmt.Sprintf("term %d: %s fails on %s", i, req, fails[req].String()), Toleration: -1})
		}
	}
	return out
}

// requirement is one requirement of a term, matched alone.
type requirement struct {
	req   v1.NodeSelectorRequirement
	field bool // a matchFields requirement
	sel   *nodeaffinity.LazyErrorNodeSelector
}

// termRequirements are the requirements of a term, expressions first,
// each made into a selector of its own once for every node it is matched
// against.
func termRequirements(term v1.NodeSelectorTerm) []requirement {
	out := make([]requirement, 0, len(term.MatchExpressions)+len(term.MatchFields))
	for _, e := range term.MatchExpressions {
		sel := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{e}}}}
		out = append(out, requirement{req: e, sel: nodeaffinity.NewLazyErrorNodeSelector(sel)})
	}
	for _, f := range term.MatchFields {
		sel := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{f}}}}
		out = append(out, requirement{req: f, field: true, sel: nodeaffinity.NewLazyErrorNodeSelector(sel)})
	}
	return out
}

// firstFailing is the first of a term's requirements that fails on node,
// as the detail words it, or "".
func firstFailing(reqs []requirement, node *v1.Node) string {
	for i := range reqs {
		r := &reqs[i]
		if ok, err := r.sel.Match(node); !ok {
			if r.field {
				return "matchFields " + formatRequirement(r.req, err)
			}
			return formatRequirement(r.req, err)
		}
	}
	return ""
}

func formatRequirement(r v1.NodeSelectorRequirement, err error) string {
	s := fmt.Sprintf("%s %s", r.Key, r.Operator)
	if len(r.Values) > 0 {
		s += " [" + strings.Join(r.Values, ", ") + "]"
	}
	if err != nil {
		s += " (does not parse, so it never matches)"
	}
	return s
}

// labelValues are the values of label k in the inventory, sorted.
func (p *Placement) labelValues(k string) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range p.inv.Groups {
		if v, ok := g.Node.Labels[k]; ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func (p *Placement) inventoryHasLabel(k, v string) bool {
	for _, g := range p.inv.Groups {
		if got, ok := g.Node.Labels[k]; ok && got == v {
			return true
		}
	}
	return false
}

// resourceDetails lists each short resource with the nodes, the request
// and what the nodes offer.
func resourceDetails(failed []*Result) []Detail {
	rs := byFilter(failed, NodeResourcesFit, false)
	type entry struct {
		s        Shortfall
		nodes    nodeSet
		unlisted bool // the nodes' allocatable has no entry for the resource
		pool     bool // the nodes stand for node pools
	}
	type id struct {
		reason      string
		allocatable int64
		listed      bool
	}
	var order []string
	entries := map[id]*entry{}
	byKey := map[string]*entry{}
	for _, r := range rs {
		for _, s := range r.Shortfalls {
			_, listed := r.Nodes[0].Node.Status.Allocatable[s.Resource]
			k := id{s.Reason, s.Allocatable, listed}
			if entries[k] == nil {
				key := fmt.Sprintf("%s\x00%d\x00%t", s.Reason, s.Allocatable, listed)
				entries[k] = &entry{s: s, unlisted: !listed, pool: r.Nodes[0].PartialAllocatable}
				byKey[key] = entries[k]
				order = append(order, key)
			}
			entries[k].nodes.add(r)
		}
	}
	sort.Strings(order)
	var out []Detail
	for _, key := range order {
		e := byKey[key]
		how := e.s.String()
		if e.pool {
			how = e.s.poolString("pools'")
		}
		text := fmt.Sprintf("%s on %s: %s", e.s.Reason, e.nodes.String(), how)
		if e.s.Resource == v1.ResourcePods && e.unlisted {
			text += " (status.allocatable lists no pods, which the scheduler reads as 0)"
		}
		out = append(out, Detail{Text: text, Toleration: -1})
	}
	return out
}

func absentDetails(p *Placement, failed []*Result) []Detail {
	rs := byFilter(failed, NodeAffinity, true)
	if len(rs) == 0 || p.Mode == Daemon {
		return nil
	}
	var missing []string
	for _, name := range p.AllowedNames {
		if p.inventoryNode(name) == nil {
			missing = append(missing, name)
		}
	}
	text := fmt.Sprintf("required matchFields metadata.name In allows only %s, so the other %d node(s) were not considered", strings.Join(p.AllowedNames, ", "), len(rs[0].Nodes))
	if len(missing) > 0 {
		text += fmt.Sprintf("; not in the inventory: %s", strings.Join(missing, ", "))
	}
	return []Detail{{Text: text, Toleration: -1}}
}

func (p *Placement) inventoryNode(name string) *k8s.Node {
	return p.inv.byName[name]
}

// OnlyAvoided reports whether the pod fits some node but only nodes that
// carry a PreferNoSchedule taint it does not tolerate. It is false for
// pods the scheduler does not place (DaemonSet pods, spec.nodeName).
func (p *Placement) OnlyAvoided() bool {
	if p.Mode != Scheduled || p.Fit == 0 || p.brief {
		return false
	}
	for _, r := range p.Results {
		if r.Filter == "" && len(r.Avoided) == 0 {
			return false
		}
	}
	return true
}

// AvoidedDetails lists the untolerated PreferNoSchedule taints of the
// nodes the pod fits, with the nodes that carry each.
func (p *Placement) AvoidedDetails() []Detail {
	type entry struct {
		nodes nodeSet
		node  *k8s.Node
		index int
	}
	var order []string
	entries := map[string]*entry{}
	for i := range p.Results {
		r := &p.Results[i]
		if r.Filter != "" {
			continue
		}
		for _, j := range r.Avoided {
			key := r.Nodes[0].Node.Spec.Taints[j].ToString()
			if entries[key] == nil {
				entries[key] = &entry{node: r.Nodes[0], index: j}
				order = append(order, key)
			}
			entries[key].nodes.add(r)
		}
	}
	var out []Detail
	for _, key := range order {
		e := entries[key]
		out = append(out, Detail{Text: fmt.Sprintf("%s on %s", key, e.nodes.String()), Node: e.node, Path: e.node.TaintPath(e.index), Object: e.node.TaintObject(e.index), Toleration: -1})
	}
	return out
}

// FitSummary is the nodes the pod fits, as "2 nodes (a, b)".
func (p *Placement) FitSummary() string {
	var s nodeSet
	for i := range p.Results {
		if p.Results[i].Filter == "" {
			s.add(&p.Results[i])
		}
	}
	return s.String()
}
