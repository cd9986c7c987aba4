package scheduling

import (
	v1 "k8s.io/api/core/v1"
)

// The input.facts document Rego policies read (docs/policies.md): these
// types are its one definition, and their JSON encoding is the document.
// The Rego engine converts them to OPA values field by field by their
// JSON tags.

// FactsDoc is input.facts.
type FactsDoc struct {
	DaemonSet         bool            `json:"daemonSet"`
	Tolerations       []TolerationDoc `json:"tolerations"`
	BuiltinTaints     []BuiltinDoc    `json:"builtinTaints"`
	AdmissionRejected *string         `json:"admissionRejected"`
	Inventory         *InventoryDoc   `json:"inventory"`
	// NodeGroups is null without an inventory, and when the group facts
	// were not computed (no rule reads them).
	NodeGroups []GroupDoc `json:"nodeGroups"`
}

// TolerationDoc is an element of input.facts.tolerations.
type TolerationDoc struct {
	Key                string    `json:"key"`
	Operator           string    `json:"operator"`
	Value              string    `json:"value"`
	Effect             string    `json:"effect"`
	TolerationSeconds  *int64    `json:"tolerationSeconds"`
	Source             string    `json:"source"`
	Index              *int      `json:"index"`
	Replaces           *int      `json:"replaces"`
	Path               *string   `json:"path"`
	RuntimeTaint       bool      `json:"runtimeTaint"`
	Requested          bool      `json:"requested"`
	ToleratesInventory *bool     `json:"toleratesInventory"`
	NearestTaint       *TaintDoc `json:"nearestTaint"`
	Shadows            []int     `json:"shadows"`
	ExplainedBy        *string   `json:"explainedBy"`
	Invalid            bool      `json:"invalid"`
}

// TaintDoc is a taint.
type TaintDoc struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Effect string `json:"effect"`
}

// BuiltinDoc is an element of input.facts.builtinTaints.
type BuiltinDoc struct {
	TaintDoc
	Tolerated  bool `json:"tolerated"`
	Toleration *int `json:"toleration"`
}

// InventoryDoc is input.facts.inventory.
type InventoryDoc struct {
	Nodes  int             `json:"nodes"`
	Groups int             `json:"groups"`
	Taints []TaintCountDoc `json:"taints"`
}

// TaintCountDoc is a distinct taint of the inventory.
type TaintCountDoc struct {
	TaintDoc
	Nodes int `json:"nodes"`
}

// GroupDoc is an element of input.facts.nodeGroups.
type GroupDoc struct {
	Nodes           []string     `json:"nodes"`
	Count           int          `json:"count"`
	Taints          []TaintDoc   `json:"taints"`
	Unschedulable   bool         `json:"unschedulable"`
	Selected        bool         `json:"selected"`
	Untolerated     []TaintDoc   `json:"untolerated"`
	Fixes           []FixDoc     `json:"fixes"`
	CordonTolerated bool         `json:"cordonTolerated"`
	DaemonSet       *DaemonDoc   `json:"daemonSet"`
	Eviction        *EvictionDoc `json:"eviction"`

	key string // GroupFact.Key
}

// Key stands for the entry's value: entries with equal keys are equal.
func (g *GroupDoc) Key() string { return g.key }

// FixDoc is the toleration that would tolerate an untolerated taint.
type FixDoc struct {
	Key      string `json:"key"`
	Operator string `json:"operator"`
	Effect   string `json:"effect"`
}

// DaemonDoc is the DaemonSet controller's verdict.
type DaemonDoc struct {
	ShouldRun             bool   `json:"shouldRun"`
	ShouldContinueRunning bool   `json:"shouldContinueRunning"`
	Reason                string `json:"reason"`
}

// EvictionDoc says when a pod the nodes admit is evicted from them.
type EvictionDoc struct {
	Seconds int64    `json:"seconds"`
	Uses    []UseDoc `json:"uses"`
}

// UseDoc is a finite toleration eviction uses for a NoExecute taint.
type UseDoc struct {
	Toleration int      `json:"toleration"`
	Taint      TaintDoc `json:"taint"`
}

// maxGroupNodes caps the node names listed per node group; count says
// how many there are.
const maxGroupNodes = 20

func taintDoc(t v1.Taint) TaintDoc {
	return TaintDoc{Key: t.Key, Value: t.Value, Effect: string(t.Effect)}
}

func ptr[T any](v T) *T { return &v }

// Doc is input.facts for f, the facts of a workload (daemonSet: a
// DaemonSet's), with inventory the run's input.facts.inventory (nil
// without an inventory).
func (f *Facts) Doc(daemonSet bool, inventory *InventoryDoc) *FactsDoc {
	d := &FactsDoc{DaemonSet: daemonSet, Inventory: inventory, Tolerations: make([]TolerationDoc, len(f.Tolerations)), BuiltinTaints: make([]BuiltinDoc, len(f.Builtin))}
	for i := range f.Tolerations {
		t := &f.Tolerations[i]
		td := TolerationDoc{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect), TolerationSeconds: t.TolerationSeconds, Source: string(t.Source), RuntimeTaint: t.RuntimeTaint, Requested: t.Requested, Shadows: append(make([]int, 0, len(t.Shadows)), t.Shadows...), Invalid: t.Invalid}
		if t.Index >= 0 {
			td.Index = ptr(t.Index)
		}
		if t.Replaces >= 0 {
			td.Replaces = ptr(t.Replaces)
		}
		if t.Path != "" {
			td.Path = ptr(t.Path)
		}
		if inventory != nil {
			td.ToleratesInventory = ptr(t.ToleratesInventory)
			if t.Nearest != nil {
				td.NearestTaint = ptr(taintDoc(*t.Nearest))
			}
		}
		if t.ExplainedBy != "" {
			td.ExplainedBy = ptr(t.ExplainedBy)
		}
		d.Tolerations[i] = td
	}
	for i, b := range f.Builtin {
		bd := BuiltinDoc{TaintDoc: taintDoc(b.Taint), Tolerated: b.Toleration >= 0}
		if b.Toleration >= 0 {
			bd.Toleration = ptr(b.Toleration)
		}
		d.BuiltinTaints[i] = bd
	}
	if f.Pod.Rejected != "" {
		d.AdmissionRejected = ptr(f.Pod.Rejected)
	}
	if f.Groups != nil {
		d.NodeGroups = make([]GroupDoc, len(f.Groups))
		for i := range f.Groups {
			d.NodeGroups[i] = f.Groups[i].doc()
		}
	}
	return d
}

func (g *GroupFact) doc() GroupDoc {
	nodes := g.Nodes[:min(len(g.Nodes), maxGroupNodes)]
	d := GroupDoc{Nodes: make([]string, len(nodes)), Count: len(g.Nodes), Taints: make([]TaintDoc, len(g.Group.Taints)), Unschedulable: g.Group.Unschedulable, Selected: g.Selected, Untolerated: make([]TaintDoc, len(g.Untolerated)), Fixes: make([]FixDoc, len(g.Untolerated)), CordonTolerated: g.CordonTolerated, key: g.Key()}
	for i, n := range nodes {
		d.Nodes[i] = n.Node.Name
	}
	for i, t := range g.Group.Taints {
		d.Taints[i] = taintDoc(t)
	}
	for i, t := range g.Untolerated {
		d.Untolerated[i] = taintDoc(t)
		fix := FixToleration(t)
		d.Fixes[i] = FixDoc{Key: fix.Key, Operator: string(fix.Operator), Effect: string(fix.Effect)}
	}
	if dp := g.Daemon; dp != nil {
		d.DaemonSet = &DaemonDoc{ShouldRun: dp.ShouldRun, ShouldContinueRunning: dp.ShouldContinueRunning, Reason: dp.Reason}
	}
	if e := g.Evicted; e != nil {
		d.Eviction = &EvictionDoc{Seconds: e.Seconds, Uses: make([]UseDoc, len(e.Tolerations))}
		for i := range e.Tolerations {
			d.Eviction.Uses[i] = UseDoc{Toleration: e.Tolerations[i], Taint: taintDoc(e.Taints[i])}
		}
	}
	return d
}

// InventoryDoc is input.facts.inventory, the same for every workload of
// the run; nil for a nil inventory.
func (inv *Inventory) InventoryDoc() *InventoryDoc {
	if inv == nil {
		return nil
	}
	d := &InventoryDoc{Nodes: len(inv.Nodes), Groups: len(inv.Groups), Taints: make([]TaintCountDoc, len(inv.Taints))}
	for i, t := range inv.Taints {
		d.Taints[i] = TaintCountDoc{TaintDoc: taintDoc(t.Taint), Nodes: t.Nodes}
	}
	return d
}
