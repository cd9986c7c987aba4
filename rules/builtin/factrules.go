package builtin

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// The rules in this file read only the facts the scheduling package
// computes for a workload (scheduling.Facts, which Rego policies read as
// input.facts): what their tolerations tolerate in the inventory, and each
// node group's verdict. They were Rego rules over input.facts; their
// messages are unchanged.

// factFindings are the findings of the facts rules on one workload.
type factFindings struct {
	unmatched, loops, uncovered, shadowed []factFinding
}

// factFinding is one finding at a field path of a workload; pods names
// the merged pods it is about (Workload.Template), when their verdicts
// differ from pod to pod (toleration-eviction-loop).
type factFinding struct {
	obj  *loader.Object
	path string
	msg  string
	pods string
}

// reportFacts reports the findings of the facts prerequisite s that pick
// (one rule's) chooses. Merged pods share the placements their
// tolerations are written in (Rook's placement.all is in the mon, mgr and
// OSD pods): one finding per place and message, naming every pod it is
// about, rather than one per pod.
func reportFacts(p *rules.Pass, s *rules.Prerequisite, pick func(*factFindings) []factFinding) {
	found := p.ResultOf[s].([]factFindings)
	type key struct {
		obj       *loader.Object
		path, msg string
	}
	var out []factFinding
	var pods [][]string
	at := map[key]int{}
	for i := range found {
		for _, f := range pick(&found[i]) {
			k := key{f.obj, f.path, f.msg}
			j, ok := at[k]
			if !ok {
				j = len(out)
				at[k] = j
				out = append(out, f)
				pods = append(pods, nil)
			}
			if f.pods != "" && !slices.Contains(pods[j], f.pods) {
				pods[j] = append(pods[j], f.pods)
			}
		}
	}
	for j, f := range out {
		msg := f.msg
		if len(pods[j]) > 0 {
			msg = plural(len(pods[j]), "pod template ", "pod templates ") + strings.Join(pods[j], ", ") + ": " + msg
		}
		p.Report(rules.Diagnostic{Object: f.obj, Path: f.path, Message: msg})
	}
}

// factFindingsOf is the prerequisite that computes the facts rules'
// findings on every workload of the run ([]factFindings, by workload),
// once, from the workloads' shared facts (with the run's inventory, if
// any).
func factFindingsOf() *rules.Prerequisite {
	return &rules.Prerequisite{
		Name:     "scheduling facts",
		Requires: []*rules.Prerequisite{prereq.Workloads},
		Run: func(p *rules.PrereqPass) (any, error) {
			return factsOf(p.Input, p.ResultOf[prereq.Workloads].([]prereq.Workload), p.Runs), nil
		},
	}
}

// factsOf computes the facts rules' findings on each workload of in. The
// findings rest on the workload's facts alone, but for the tolerations a
// scheduling rule explains and the object they are on: workloads that
// share their facts and have no explained toleration share the findings
// of the first of them (a run's workloads share a few hundred facts).
func factsOf(in *rules.Input, recs []prereq.Workload, runs func(id string) bool) []factFindings {
	found := make([]factFindings, len(in.Workloads))
	var mu sync.Mutex
	byFacts := map[int]factFindings{} // by scheduling.SharedFacts.ID
	prereq.EachWorkload(in, func(i int) {
		w, rec := in.Workloads[i], &recs[i]
		if rec.Facts == nil { // its facts would rest on a partly decoded pod spec
			return
		}
		_, explained := rec.ExplainedTolerations(runs)
		if explained == nil {
			mu.Lock()
			f, ok := byFacts[rec.Facts.ID]
			mu.Unlock()
			if ok {
				found[i] = f.on(w.Object).named(w)
				return
			}
		}
		f := workloadFactFindings(in, rec, runs, w)
		if explained == nil {
			mu.Lock()
			byFacts[rec.Facts.ID] = f
			mu.Unlock()
			found[i] = f.on(w.Object).named(w)
			return
		}
		found[i] = f.named(w)
	})
	return found
}

// workloadFactFindings are the facts rules' findings on w.
func workloadFactFindings(in *rules.Input, rec *prereq.Workload, runs func(id string) bool, w *k8s.Workload) factFindings {
	f := rec.Facts.Facts(false)
	if !w.IsDaemonSet() && !slices.ContainsFunc(f.Tolerations, func(t scheduling.TolerationFact) bool { return ownToleration(t.Toleration) }) {
		return factFindings{} // every facts rule speaks of a DaemonSet or of the workload's own tolerations
	}
	if !in.HasInventory() {
		// The tolerations' facts only: toleration-shadowed needs no inventory.
		return factFindings{shadowed: shadowed(w, f)}
	}
	f = rec.Facts.Facts(needsGroups(w, f))
	return factFindings{unmatched: unmatched(in, rec, runs, w, f), loops: evictionLoops(w, f), uncovered: uncovered(w, f), shadowed: shadowed(w, f)}
}

// named are f with each message naming w's pod template (Workload.Named).
// A merged pod's tolerations are written in its placements, which several
// merged pods may share (Rook's placement.all): the findings there that
// speak of the toleration alone stay unnamed, one per toleration
// (reportFacts), and toleration-eviction-loop's, whose nodes are the
// pod's own, name the pods.
func (f factFindings) named(w *k8s.Workload) factFindings {
	if w.Template == "" {
		return f
	}
	for _, fs := range [][]factFinding{f.unmatched, f.loops, f.uncovered, f.shadowed} {
		for i := range fs {
			fs[i].msg = w.Named(fs[i].path, fs[i].msg)
		}
	}
	if w.Merged() {
		for i := range f.loops {
			f.loops[i].pods = w.Template
		}
	}
	return f
}

// on is f with every finding on obj.
func (f factFindings) on(obj *loader.Object) factFindings {
	moved := func(fs []factFinding) []factFinding {
		if fs == nil {
			return nil
		}
		out := make([]factFinding, len(fs))
		for i, x := range fs {
			x.obj = obj
			out[i] = x
		}
		return out
	}
	return factFindings{unmatched: moved(f.unmatched), loops: moved(f.loops), uncovered: moved(f.uncovered), shadowed: moved(f.shadowed)}
}

// needsGroups reports whether the facts rules read w's node group facts:
// for a DaemonSet (daemonset-uncovered-nodes, toleration-eviction-loop),
// or a pod with a finite toleration from its manifest or RuntimeClass
// (toleration-eviction-loop). Most pods have neither.
func needsGroups(w *k8s.Workload, f *scheduling.Facts) bool {
	if w.IsDaemonSet() {
		return true
	}
	for _, t := range f.Tolerations {
		if t.TolerationSeconds != nil && ownToleration(t.Toleration) {
			return true
		}
	}
	return false
}

// ownToleration: the workload's manifest or its RuntimeClass wrote the
// toleration (the facts rules leave alone what controllers and admission
// plugins add).
func ownToleration(t k8s.Toleration) bool {
	return written(t) || t.Source == k8s.FromRuntimeClass
}

// written: the toleration is written in the object, in the pod spec or,
// for a merged pod, in a placement it is merged from (at its own Path),
// so the rules report it at its line.
func written(t k8s.Toleration) bool {
	return t.Source == k8s.FromManifest || t.Source == k8s.FromPlacement
}

// writtenAt names where t is written for a message: its index in the pod
// spec's list, or its path in a merged pod's placement.
func writtenAt(t *scheduling.TolerationFact) string {
	if t.Source == k8s.FromPlacement {
		return t.Path
	}
	return fmt.Sprintf("tolerations[%d]", t.Index)
}

func tolerationShadowed(s *rules.Prerequisite) *rules.Rule {
	return rule(rules.Rule{
		Requires: []*rules.Prerequisite{s},
		ID:       `toleration-shadowed`,
		Summary:  `Toleration with tolerationSeconds shadows a later forever toleration, or evicts at once`,
		Severity: rules.Note,
		Doc: `When a NoExecute taint lands on a node, the taint eviction controller
takes, for each taint, the **first** toleration in the list that tolerates
it, and evicts the pod after the smallest ` + "`" + `tolerationSeconds` + "`" + ` among those.
A later toleration that tolerates the same taint forever is never used, so
an earlier finite one shadows it: the pod is evicted although the list
seems to say it stays.

` + "`" + `tolerationSeconds` + "`" + ` of zero or less means "evict at once", the same as no
toleration for eviction, but the scheduler still counts the taint as
tolerated.

Put the forever toleration first, or drop the finite one; give a positive
number of seconds, or remove a toleration that evicts at once.

Known false positives: none known for the eviction order, which is the
taint eviction controller's; a list written this way on purpose (evict
from one kind of node, the witness taint never present) can be accepted
with ` + "`" + `ignore-check.taintlint.io/toleration-shadowed: "<reason>"` + "`" + `.`,
		Bad: `tolerations:
- key: example.com/maintenance
  operator: Exists
  effect: NoExecute
  tolerationSeconds: 60
- operator: Exists`,
		Good: `tolerations:
- operator: Exists`,
		Run: func(p *rules.Pass) error {
			reportFacts(p, s, func(f *factFindings) []factFinding { return f.shadowed })
			return nil
		},
	})
}

// shadowed are toleration-shadowed's findings on w: a manifest toleration
// with positive tolerationSeconds that eviction uses before later
// manifest tolerations that tolerate the same NoExecute taints forever,
// and a NoExecute toleration whose seconds evict at once. A DaemonSet's
// toleration that eviction uses for not-ready or unreachable is
// daemonset-pressure-tolerations' business.
func shadowed(w *k8s.Workload, f *scheduling.Facts) []factFinding {
	var out []factFinding
	for i := range f.Tolerations {
		tol := &f.Tolerations[i]
		if !written(tol.Toleration) || !validToleration(tol) || tol.TolerationSeconds == nil || evictionCondition(w, f, i) {
			continue
		}
		secs := *tol.TolerationSeconds
		path := tol.Path + ".tolerationSeconds"
		if secs <= 0 {
			if tol.Effect == v1.TaintEffectNoExecute {
				out = append(out, factFinding{obj: w.Object, path: path, msg: fmt.Sprintf("tolerationSeconds %d evicts pods at once when the taint appears, as if there were no toleration, yet the scheduler still places pods on nodes with it: give a positive number of seconds, remove tolerationSeconds to tolerate it forever, or remove the toleration", secs)})
			}
			continue
		}
		var later []string
		for _, j := range tol.Shadows {
			if u := &f.Tolerations[j]; written(u.Toleration) {
				later = append(later, fmt.Sprintf("%s (%s)", tolerationString(&u.Toleration.Toleration), writtenAt(u)))
			}
		}
		if len(later) == 0 {
			continue
		}
		out = append(out, factFinding{obj: w.Object, path: path, msg: fmt.Sprintf("toleration %s comes before %s, which %s the same NoExecute taints forever, but eviction uses only the first toleration that matches: pods are evicted after %ds; put the forever toleration first, or remove this one",
			tolerationString(&tol.Toleration.Toleration), strings.Join(later, ", "), plural(len(later), "tolerates", "tolerate"), secs)})
	}
	return out
}

// evictionCondition: toleration i of a DaemonSet is the one eviction uses
// for the not-ready or unreachable NoExecute taint.
func evictionCondition(w *k8s.Workload, f *scheduling.Facts, i int) bool {
	if !w.IsDaemonSet() {
		return false
	}
	for _, b := range f.Builtin {
		if b.Effect == v1.TaintEffectNoExecute && (b.Key == v1.TaintNodeNotReady || b.Key == v1.TaintNodeUnreachable) && b.Toleration == i {
			return true
		}
	}
	return false
}

func tolerationUnmatched(s *rules.Prerequisite) *rules.Rule {
	return rule(rules.Rule{
		Requires:       []*rules.Prerequisite{s},
		ID:             `toleration-unmatched`,
		Summary:        `Toleration matches no taint of any inventory node`,
		Severity:       rules.Warning,
		NeedsInventory: true,
		Doc: `A toleration that tolerates no taint of any node in the inventory does
nothing today: usually its key is misspelt (` + "`" + `nvidia.com/gpus` + "`" + `), its value
or effect differs from the node's taint, or the taint it was written for is
gone. taintlint matches each toleration against every distinct taint of
the inventory with Kubernetes' own matching and suggests the nearest taint.

Tolerations of taints that nodes carry only at run time are exempt:
` + "`" + `node.kubernetes.io/*` + "`" + `, ` + "`" + `node.cloudprovider.kubernetes.io/*` + "`" + `, the cluster
autoscaler's and Karpenter's taints, the control-plane taint,
` + "`" + `CriticalAddonsOnly` + "`" + `, and the keys listed under ` + "`" + `runtimeTaints:` + "`" + ` in
` + "`" + `.taintlint.yaml` + "`" + ` (a trailing ` + "`" + `*` + "`" + ` matches a prefix). Wildcards (an empty
key) are toleration-wildcard's business.

One cause, one finding: when the toleration nearly matches a taint the
workload needs, so that its pods fit no node (` + "`" + `pod-unschedulable` + "`" + `) or the
DaemonSet runs on no node (` + "`" + `daemonset-no-nodes` + "`" + `), that rule reports it with
the fix and this one says nothing (while that rule is enabled; suppressing
its finding does not bring this one back). ` + "`" + `toleration-without-affinity` + "`" + `
says nothing about a toleration this rule reports. A nearest taint that is
a node condition (` + "`" + `node.kubernetes.io/not-ready` + "`" + `, ...) is suggested to a
DaemonSet only.

Known false positives: a toleration for a pool the inventory does not
have (scaled to zero, another cluster's inventory), or for a taint a
controller adds at run time that is not in the exempt list. List the key
under ` + "`" + `runtimeTaints:` + "`" + `, or suppress with
` + "`" + `ignore-check.taintlint.io/toleration-unmatched: "<reason>"` + "`" + `.`,
		Bad: `# nodes are tainted nvidia.com/gpu=present:NoSchedule
tolerations:
- key: nvidia.com/gpus
  operator: Exists
  effect: NoSchedule`,
		Good: `tolerations:
- key: nvidia.com/gpu
  operator: Exists
  effect: NoSchedule`,
		Run: func(p *rules.Pass) error {
			reportFacts(p, s, func(f *factFindings) []factFinding { return f.unmatched })
			return nil
		},
	})
}

// unmatched are toleration-unmatched's findings on w: manifest
// tolerations that tolerate no inventory taint, unless a scheduling rule
// of the run names them with the fix.
func unmatched(in *rules.Input, rec *prereq.Workload, runs func(id string) bool, w *k8s.Workload, f *scheduling.Facts) []factFinding {
	var cands []*scheduling.TolerationFact
	for i := range f.Tolerations {
		t := &f.Tolerations[i]
		if written(t.Toleration) && t.Key != "" && validToleration(t) && !t.RuntimeTaint && !t.ToleratesInventory {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// Leave the scheduling rules the tolerations they explain.
	_, explained := rec.ExplainedTolerations(runs)
	var out []factFinding
	for _, t := range cands {
		if slices.Contains(explained, t.Index) {
			continue
		}
		out = append(out, factFinding{obj: w.Object, path: t.Path, msg: fmt.Sprintf("toleration %s matches no taint of the %s%s: fix it, or, if the taint appears only at run time, list its key under runtimeTaints in .taintlint.yaml",
			tolerationString(&t.Toleration.Toleration), inventoryNoun(in.Nodes), suggestion(t))})
	}
	return out
}

// inventoryNoun counts the inventory as a person would: "4 inventory
// nodes", "2 inventory node pools", "3 inventory nodes and 1 node pool"
// (a node that stands for a pool decides selectors itself).
func inventoryNoun(nodes []*k8s.Node) string {
	pools := 0
	for _, n := range nodes {
		if n.Compatible != nil {
			pools++
		}
	}
	switch plain := len(nodes) - pools; {
	case pools == 0:
		return fmt.Sprintf("%d inventory %s", plain, plural(plain, "node", "nodes"))
	case plain == 0:
		return fmt.Sprintf("%d inventory %s", pools, plural(pools, "node pool", "node pools"))
	default:
		return fmt.Sprintf("%d inventory %s and %d %s", plain, plural(plain, "node", "nodes"), pools, plural(pools, "node pool", "node pools"))
	}
}

func suggestion(t *scheduling.TolerationFact) string {
	switch n := t.Nearest; {
	case n == nil:
		return ""
	case n.Key != t.Key:
		return fmt.Sprintf(" (the nearest is %s: a misspelt key?)", taintString(*n))
	default:
		return fmt.Sprintf(" (nodes carry %s: check value and effect)", taintString(*n))
	}
}

func tolerationEvictionLoop(s *rules.Prerequisite) *rules.Rule {
	return rule(rules.Rule{
		Requires:       []*rules.Prerequisite{s},
		ID:             `toleration-eviction-loop`,
		Summary:        `Workload fits a node only by tolerating a NoExecute taint for a limited time`,
		Severity:       rules.Warning,
		NeedsInventory: true,
		Doc: `A toleration with ` + "`" + `tolerationSeconds` + "`" + ` tolerates a NoExecute taint for that
long, and the scheduler counts the taint as tolerated. When such a taint is
permanent, pods are scheduled onto the node, evicted after
` + "`" + `tolerationSeconds` + "`" + `, scheduled there again, and so on without end
(kubernetes/kubernetes#117520): restarts, lost work and churn that look
like a flaky application.

taintlint finds the node groups of the inventory that the workload fits
(node selection, taints, cordon) while the toleration eviction uses for one
of their NoExecute taints has a finite ` + "`" + `tolerationSeconds` + "`" + ` (the taint
eviction controller uses the first matching toleration). The built-in
not-ready and unreachable taints are left out: they come and go with the
node's health. Either tolerate the taint without ` + "`" + `tolerationSeconds` + "`" + `, or
keep the pods off those nodes with node affinity.

Known false positives: a taint the inventory snapshot shows but that is
temporary in the cluster (a drain or maintenance taint a controller
removes), where the finite toleration is the intent. List its key under
` + "`" + `runtimeTaints:` + "`" + ` or suppress with
` + "`" + `ignore-check.taintlint.io/toleration-eviction-loop: "<reason>"` + "`" + `.`,
		Bad: `# nodes are tainted maintenance=true:NoExecute
tolerations:
- key: maintenance
  operator: Exists
  effect: NoExecute
  tolerationSeconds: 60`,
		Good: `affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: maintenance, operator: DoesNotExist}`,
		Run: func(p *rules.Pass) error {
			reportFacts(p, s, func(f *factFindings) []factFinding { return f.loops })
			return nil
		},
	})
}

// evictionLoops are toleration-eviction-loop's findings on w: for each
// manifest (or RuntimeClass) toleration and NoExecute taint, the node
// groups the pods fit while eviction uses that finite toleration for that
// taint. The not-ready and unreachable taints come and go with the node's
// health and are left out.
func evictionLoops(w *k8s.Workload, f *scheduling.Facts) []factFinding {
	type loop struct {
		tol   int
		taint v1.Taint
	}
	var order []loop
	groups := map[loop][]*scheduling.GroupFact{}
	for gi := range f.Groups {
		g := &f.Groups[gi]
		if !fits(f, g) || g.Evicted == nil {
			continue
		}
		for k, i := range g.Evicted.Tolerations {
			taint := g.Evicted.Taints[k]
			if taint.Key == v1.TaintNodeNotReady || taint.Key == v1.TaintNodeUnreachable {
				continue
			}
			if !ownToleration(f.Tolerations[i].Toleration) {
				continue
			}
			l := loop{i, taint}
			if groups[l] == nil {
				order = append(order, l)
			}
			groups[l] = append(groups[l], g)
		}
	}
	var out []factFinding
	for _, l := range order {
		tol := &f.Tolerations[l.tol]
		if tol.Path == "" {
			continue
		}
		total, listed := nodesOf(groups[l])
		secs := *tol.TolerationSeconds
		out = append(out, factFinding{obj: w.Object, path: tol.Path + ".tolerationSeconds", msg: fmt.Sprintf("pods fit %d %s (%s) only by tolerating %s for %ds (toleration %s), so they are scheduled there, evicted after %ds and scheduled there again, without end (kubernetes/kubernetes#117520): tolerate the taint without tolerationSeconds, or keep the pods off these nodes with node affinity",
			total, plural(total, "node", "nodes"), nodeList(listed, total), taintString(l.taint), secs, tolerationString(&tol.Toleration.Toleration), secs)})
	}
	return out
}

// fits: the scheduler (or, for a DaemonSet, the controller) would place a
// pod on the group's nodes; resources aside.
func fits(f *scheduling.Facts, g *scheduling.GroupFact) bool {
	if g.Daemon != nil {
		return g.Daemon.ShouldRun
	}
	return g.Selected && len(g.Untolerated) == 0 && g.CordonTolerated
}

func daemonSetUncoveredNodes(s *rules.Prerequisite) *rules.Rule {
	return rule(rules.Rule{
		Requires:       []*rules.Prerequisite{s},
		ID:             `daemonset-uncovered-nodes`,
		Summary:        `DaemonSet skips nodes it selects because it does not tolerate their taints`,
		Severity:       rules.Warning,
		NeedsInventory: true,
		Doc: `A DaemonSet runs a pod on every node its nodeSelector and required node
affinity select, except where a NoSchedule or NoExecute taint is not
tolerated: there the DaemonSet controller silently creates nothing. Logs,
metrics, CNI or a device plugin are then missing on exactly the nodes that
were tainted later, such as a new GPU pool or the control plane.

taintlint decides this with the controller's own logic, its added
tolerations included (it ignores cordons, PreferNoSchedule and resources,
as the controller does), on every node group of the inventory. One
finding per DaemonSet lists the skipped nodes by taint, each with the
toleration that would let the daemon pods onto them. If
skipping those nodes is intended, make it explicit with a nodeSelector or
node affinity that excludes them, or suppress the finding with a reason.

A DaemonSet the controller puts on no node at all is
` + "`" + `daemonset-no-nodes` + "`" + `' finding, with the same taints: this rule then says
nothing.

Known false positives: a DaemonSet meant for some pools only that selects
them by toleration alone (it relies on the other pools' taints to stay
off them); write the selector, or suppress with
` + "`" + `ignore-check.taintlint.io/daemonset-uncovered-nodes: "<reason>"` + "`" + `. An
inventory snapshot's NotReady, uninitialised or out-of-service nodes are
left out: their condition taints go when the node recovers, and the
controller then creates the pod.
docs/daemonsets-in-the-wild.md shows the rule on public DaemonSets.`,
		Bad: `# nodes: gpu-1 tainted nvidia.com/gpu=present:NoSchedule
kind: DaemonSet
spec:
  template:
    spec:
      containers: [{name: agent, image: agent}]`,
		Good: `kind: DaemonSet
spec:
  template:
    spec:
      containers: [{name: agent, image: agent}]
      tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule`,
		Run: func(p *rules.Pass) error {
			reportFacts(p, s, func(f *factFindings) []factFinding { return f.uncovered })
			return nil
		},
	})
}

// uncovered is daemonset-uncovered-nodes' finding on w, a DaemonSet the
// controller puts on some node: the node groups it skips for a taint that
// is not a node condition (the controller creates the pod once the node
// recovers), a line per such taint with the toleration that lets the
// daemon pods on. A DaemonSet that runs nowhere is daemonset-no-nodes'.
func uncovered(w *k8s.Workload, f *scheduling.Facts) []factFinding {
	if !w.IsDaemonSet() {
		return nil
	}
	runs := false
	var skipped []*scheduling.GroupFact
	var taints []v1.Taint
	byTaint := map[v1.Taint][]*scheduling.GroupFact{}
	for gi := range f.Groups {
		g := &f.Groups[gi]
		if g.Daemon == nil {
			continue
		}
		runs = runs || g.Daemon.ShouldRun
		if g.Daemon.Reason != "taint" {
			continue
		}
		skip := false
		for _, t := range g.Untolerated {
			if scheduling.IsConditionTaintKey(t.Key) {
				continue
			}
			skip = true
			if _, seen := byTaint[t]; !seen {
				taints = append(taints, t)
			}
			if gs := byTaint[t]; len(gs) == 0 || gs[len(gs)-1] != g {
				byTaint[t] = append(gs, g)
			}
		}
		if skip {
			skipped = append(skipped, g)
		}
	}
	if !runs || len(taints) == 0 {
		return nil
	}
	lines := make([]string, 0, len(taints))
	for _, t := range taints {
		total, listed := nodesOf(byTaint[t])
		fix := scheduling.FixToleration(t)
		lines = append(lines, fmt.Sprintf("%s on %d %s (%s): add the toleration %s", taintString(t), total, nodeNoun(byTaint[t], total), nodeList(listed, total), tolerationString(&fix)))
	}
	sort.Strings(lines)
	total, listed := nodesOf(skipped)
	msg := fmt.Sprintf("DaemonSet does not run on %d %s that its nodeSelector and affinity select (%s), because of %s it does not tolerate:\n%s",
		total, nodeNoun(skipped, total), nodeList(listed, total), plural(len(lines), "a taint", "taints"), strings.Join(lines, "\n"))
	return []factFinding{{obj: w.Object, path: w.SpecPathString(), msg: msg}}
}

// nodeNoun is "node" or "nodes" for n nodes of groups, "node pool(s)"
// when every group stands for a node pool.
func nodeNoun(groups []*scheduling.GroupFact, n int) string {
	for _, g := range groups {
		if len(g.Group.Nodes) == 0 || g.Group.Nodes[0].Compatible == nil {
			return plural(n, "node", "nodes")
		}
	}
	return plural(n, "node pool", "node pools")
}

// nodesOf counts the nodes of groups and lists the first maxListed of
// their names, sorted (all a finding shows), keeping only those while it
// goes: a DaemonSet's groups can hold thousands of nodes.
func nodesOf(groups []*scheduling.GroupFact) (int, []string) {
	total := 0
	names := make([]string, 0, maxListed)
	add := func(name string) bool {
		if len(names) == maxListed && name >= names[maxListed-1] {
			return false
		}
		i := sort.SearchStrings(names, name)
		if len(names) < maxListed {
			names = append(names, "")
		}
		copy(names[i+1:], names[i:len(names)-1])
		names[i] = name
		return true
	}
	for _, g := range groups {
		total += len(g.Nodes)
		if len(g.Nodes) == len(g.Group.Nodes) {
			for _, n := range g.Group.Names { // sorted: the rest come later
				if !add(n) {
					break
				}
			}
			continue
		}
		for _, n := range g.Nodes {
			add(n.Node.Name)
		}
	}
	return total, names
}

// maxListed is how many node names a finding about many nodes names.
const maxListed = 5

// nodeList names the first maxListed of names, with how many more of
// total there are.
func nodeList(names []string, total int) string {
	if len(names) <= maxListed && total <= len(names) {
		return strings.Join(names, ", ")
	}
	shown := names[:min(len(names), maxListed)]
	return fmt.Sprintf("%s and %d more", strings.Join(shown, ", "), total-len(shown))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// taintString is key=value:effect, as kubectl and the scheduler print a
// taint.
func taintString(t v1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// tolerationString is a toleration in YAML flow style with the fields
// that are set, unquoted (the findings' wording since these rules were
// Rego rules).
func tolerationString(t *v1.Toleration) string {
	var parts []string
	for _, f := range [][2]string{{"key", t.Key}, {"operator", string(t.Operator)}, {"value", t.Value}, {"effect", string(t.Effect)}} {
		if f[1] != "" {
			parts = append(parts, f[0]+": "+f[1])
		}
	}
	if t.TolerationSeconds != nil {
		parts = append(parts, fmt.Sprintf("tolerationSeconds: %d", *t.TolerationSeconds))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// validToleration holds for a toleration the API server accepts as far as
// these rules care (the validation rules report the others; one finding
// per problem).
func validToleration(t *scheduling.TolerationFact) bool {
	switch {
	case t.Invalid:
		return false
	case t.Operator != "" && t.Operator != v1.TolerationOpEqual && t.Operator != v1.TolerationOpExists:
		return false
	case t.Operator == v1.TolerationOpExists && t.Value != "":
		return false
	case t.Key == "" && t.Operator != v1.TolerationOpExists:
		return false
	}
	switch t.Effect {
	case "", v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
		return true
	}
	return false
}
