package checker

import (
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/pools"
	"github.com/taintlint/taintlint/internal/prereq"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// This file keeps judgements that turn on what is not known of a node
// pool (an unresolved Terraform variable in its taints, labels or Spot
// setting) out of the findings. Such a pool is in the inventory as Open
// (nothing unknown stands in a pod's way); the rules that read the
// inventory run again in each other world the unknowns could make
// (pools.Worlds), and a finding is kept only when every world gives it.
// What some world gives and another does not is withheld, and a notice
// names it with the pools whose unknowns it turns on. A run whose pools
// are all known runs once, as before.

// maxAttributed bounds the pools whose worlds are judged one by one to
// say which of them a withheld finding turns on; past it, the notice
// names them all.
const maxAttributed = 6

// findingKey is a finding without its message: worlds word one finding
// differently (they count different pools).
type findingKey struct {
	rule, path string
	obj        loader.Ref
	pos        loader.Position
}

func keyOf(f *rules.Finding) findingKey {
	k := findingKey{rule: f.Rule, path: f.Path, pos: f.Pos}
	if f.Object != nil {
		k.obj = *f.Object
	}
	return k
}

// readsInventory reports whether a rule's findings may turn on the
// inventory: it needs one, reads a prerequisite (placement, facts), or is
// a Rego rule (input.nodes, input.facts).
func readsInventory(r *rules.Rule) bool {
	return r.NeedsInventory || len(r.Requires) > 0 || r.Source != rules.Go
}

// withholdUnknown returns the findings every world gives, and notices
// naming what was withheld. unknown maps each inventory node that stands
// for a pool with unknowns to the pool.
func withholdUnknown(ctx context.Context, selected []*rules.Rule, in *rules.Input, unknown map[*k8s.Node]*pools.Pool, findings []rules.Finding) ([]rules.Finding, []string, error) {
	var rerun []*rules.Rule
	reread := map[string]bool{}
	for _, r := range selected {
		if readsInventory(r) {
			rerun = append(rerun, r)
			reread[r.ID] = true
		}
	}
	if len(unknown) == 0 || len(rerun) == 0 || !in.HasInventory() {
		return findings, nil, nil
	}
	tolerations := runTolerations(in)
	// judge gives the findings' keys of rules rs in world w, with the
	// pools vary says varied (the others Open).
	judge := func(rs []*rules.Rule, w pools.World, vary func(*k8s.Node) bool) (map[findingKey]bool, error) {
		c := *in
		c.Nodes = make([]*k8s.Node, 0, len(in.Nodes))
		for _, n := range in.Nodes {
			p, ok := unknown[n]
			if !ok || !vary(n) {
				c.Nodes = append(c.Nodes, n)
				continue
			}
			if v := p.Variant(w, tolerations); v != nil {
				c.Nodes = append(c.Nodes, poolNode(v))
			}
		}
		var seeded map[*rules.Prerequisite]any
		if c.HasInventory() {
			seeded = map[*rules.Prerequisite]any{prereq.Placement: prereq.NewPlacer(&c)}
		}
		fs, err := runRules(ctx, rs, &c, seeded)
		if err != nil {
			return nil, err
		}
		keys := make(map[findingKey]bool, len(fs))
		for i := range fs {
			keys[keyOf(&fs[i])] = true
		}
		return keys, nil
	}
	open := map[findingKey]bool{}
	for i := range findings {
		if reread[findings[i].Rule] {
			open[keyOf(&findings[i])] = true
		}
	}
	all := map[findingKey]int{} // in how many worlds, Open included
	for k := range open {
		all[k]++
	}
	every := func(*k8s.Node) bool { return true }
	inWorld := make([]map[findingKey]bool, len(pools.Worlds()))
	for i, w := range pools.Worlds() {
		keys, err := judge(rerun, w, every)
		if err != nil {
			return nil, nil, err
		}
		inWorld[i] = keys
		for k := range keys {
			all[k]++
		}
	}
	worlds := len(pools.Worlds()) + 1
	withheld := map[findingKey]bool{}
	for k, n := range all {
		if n < worlds {
			withheld[k] = true
		}
	}
	if len(withheld) == 0 {
		return findings, nil, nil
	}
	kept := findings[:0]
	for _, f := range findings {
		if !withheld[keyOf(&f)] {
			kept = append(kept, f)
		}
	}
	// Which pools each withheld finding turns on: those whose unknowns
	// alone change it (the others Open), or, when it takes several
	// together, those whose being Open alone changes it (the others
	// varied).
	var nodes []*k8s.Node
	for _, n := range in.Nodes {
		if _, ok := unknown[n]; ok {
			nodes = append(nodes, n)
		}
	}
	blame := map[findingKey][]*k8s.Node{}
	// Only the rules of withheld findings are judged again.
	var blamed []*rules.Rule
	for _, r := range rerun {
		for k := range withheld {
			if k.rule == r.ID {
				blamed = append(blamed, r)
				break
			}
		}
	}
	if len(nodes) > 1 && len(nodes) <= maxAttributed {
		add := func(k findingKey, n *k8s.Node) {
			if len(blame[k]) == 0 || blame[k][len(blame[k])-1] != n {
				blame[k] = append(blame[k], n)
			}
		}
		for _, n := range nodes {
			for i, w := range pools.Worlds() {
				alone, err := judge(blamed, w, func(m *k8s.Node) bool { return m == n })
				if err != nil {
					return nil, nil, err
				}
				but, err := judge(blamed, w, func(m *k8s.Node) bool { return m != n })
				if err != nil {
					return nil, nil, err
				}
				for k := range withheld {
					if alone[k] != open[k] || but[k] != inWorld[i][k] {
						add(k, n)
					}
				}
			}
		}
	}
	return kept, withheldNotes(withheld, blame, nodes, unknown), nil
}

// runTolerations are the distinct tolerations of the run's workloads.
func runTolerations(in *rules.Input) []v1.Toleration {
	seen := map[v1.Toleration]bool{}
	var out []v1.Toleration
	for _, w := range in.Workloads {
		for _, t := range w.Spec.Tolerations {
			t.TolerationSeconds = nil
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// withheldNotes are the notices of withheld findings, one per rule and
// set of pools.
func withheldNotes(withheld map[findingKey]bool, blame map[findingKey][]*k8s.Node, nodes []*k8s.Node, unknown map[*k8s.Node]*pools.Pool) []string {
	type group struct {
		rule, pools string
		objs        []string
	}
	groups := map[[2]string]*group{}
	keys := make([]findingKey, 0, len(withheld))
	for k := range withheld {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.pos.File != b.pos.File {
			return a.pos.File < b.pos.File
		}
		if a.pos.Line != b.pos.Line {
			return a.pos.Line < b.pos.Line
		}
		return a.rule < b.rule
	})
	for _, k := range keys {
		on := blame[k]
		if len(on) == 0 {
			on = nodes
		}
		var names []string
		for _, n := range on {
			p := unknown[n]
			names = append(names, fmt.Sprintf("%s (%s)", p.Name, p.UnknownSummary()))
		}
		ps := strings.Join(names, "; ")
		g := groups[[2]string{k.rule, ps}]
		if g == nil {
			g = &group{rule: k.rule, pools: ps}
			groups[[2]string{k.rule, ps}] = g
		}
		what := k.obj.String()
		if k.obj == (loader.Ref{}) {
			what = k.path
		}
		g.objs = append(g.objs, fmt.Sprintf("%s (%s)", what, k.pos))
	}
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		out = append(out, fmt.Sprintf("%s is not judged on %s: it turns on what is not known of %s; give the values (terraform.tfvars, or a terraform show -json plan with --nodes) to judge it", g.rule, nameList(g.objs), g.pools))
	}
	sort.Strings(out)
	return out
}
