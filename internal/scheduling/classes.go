package scheduling

import (
	"slices"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
)

// Classes of node groups. Groups split a pool by every label its nodes
// carry (zone, instance type, …) and by allocatable, but a judge reads
// only the groups' taints and cordon and the labels the workload's
// nodeSelector and required node affinity name (and NodeResourcesFit
// only allocatable). Groups that agree on
// those get one verdict, so each judge here (the scheduler's filters, the
// DaemonSet controller, the facts' group verdicts) judges the first group
// of each class and copies the verdict to the other groups of the class;
// what is said per group (its nodes, their names and counts) stays per
// group. A judge that reads a node's name (matchFields, the hostname
// label, spec.nodeName) judges node by node, as before, without classes.

// classes partitions the inventory's groups for one set of label keys:
// two groups are of one class when they have equal taints (in the same
// order, timeAdded included) and cordon, and for each key either both
// lack the label or both carry it with one value. A node pool, which
// decides selectors itself, is a class of its own. Allocatable, which
// only NodeResourcesFit reads, splits the classes further (fit).
type classes struct {
	of    []int32 // the class of each group, by group index
	reps  []int   // the first group of each class, by class
	nodes []int   // the nodes of each class's groups, by class
	// fit is the partition refined by allocatable (as the scheduler reads
	// it): groups of one of its classes get one NodeResourcesFit verdict
	// too. nil in fit itself.
	fit *classes
}

// rep is the first group of group i's class: the group judged for it.
func (c *classes) rep(i int) int { return c.reps[c.of[i]] }

// add puts group i, of n nodes, into the class of key.
func (c *classes) add(index map[string]int32, key []byte, i, n int) {
	id, ok := index[string(key)]
	if !ok {
		id = int32(len(c.reps))
		index[string(key)] = id
		c.reps = append(c.reps, i)
		c.nodes = append(c.nodes, 0)
	}
	c.of[i] = id
	c.nodes[id] += n
}

// maxClassSets bounds the partitions an inventory keeps: a run's
// workloads name a few dozen label key sets; past the bound a partition is
// made again for each judge that asks (as many as the run's table keys).
const maxClassSets = 1024

// classSets are the partitions of an inventory's groups by label key set.
// Safe for concurrent use.
type classSets struct {
	rest  []string // each group's class key without labels (restKey)
	alloc []string // each group's allocatable (appendAllocatable)
	none  *classes // the partition for no label key
	mu    sync.Mutex
	m     map[string]*classes // by the key set, written as keys
	keys  keyBufs
}

func newClassSets(groups []*Group) *classSets {
	s := &classSets{rest: make([]string, len(groups)), alloc: make([]string, len(groups)), m: map[string]*classes{}}
	var buf []byte
	for i, g := range groups {
		buf = restKey(buf[:0], g)
		s.rest[i] = string(buf)
		s.alloc[i] = string(appendAllocatable(buf[:0], g.Allocatable))
	}
	s.none = s.partition(groups, nil)
	return s
}

// restKey is what every judge reads of group g besides labels and
// allocatable: its taints and cordon; a pool's index (a pool decides
// selectors itself, so it shares no verdict).
func restKey(buf []byte, g *Group) []byte {
	if g.Nodes[0].Compatible != nil {
		buf = append(buf, 'p')
		return strconv.AppendInt(buf, int64(g.index), 10)
	}
	k := keyWriter{b: buf}
	k.taints(g.Taints)
	k.bool(g.Unschedulable)
	return k.b
}

// of returns the partition for the label keys, sorted and without
// repeats (labelKeys).
func (s *classSets) of(groups []*Group, keys []string) *classes {
	if len(keys) == 0 {
		return s.none
	}
	k := s.keys.get()
	defer s.keys.put(k)
	for _, key := range keys {
		k.str(key)
	}
	s.mu.Lock()
	c := s.m[string(k.b)]
	s.mu.Unlock()
	if c != nil {
		return c
	}
	c = s.partition(groups, keys)
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev := s.m[string(k.b)]; prev != nil { // another worker was first
		return prev
	}
	if len(s.m) < maxClassSets {
		s.m[string(k.b)] = c
	}
	return c
}

func (s *classSets) partition(groups []*Group, keys []string) *classes {
	c := &classes{of: make([]int32, len(groups)), fit: &classes{of: make([]int32, len(groups))}}
	index, fit := make(map[string]int32, len(groups)), make(map[string]int32, len(groups))
	var buf []byte
	for i, g := range groups {
		k := keyWriter{b: append(buf[:0], s.rest[i]...)}
		for _, key := range keys {
			if v, ok := g.Labels[key]; ok {
				k.str(v)
			} else {
				k.b = append(k.b, 'n')
			}
		}
		c.add(index, k.b, i, len(g.Nodes))
		k.str(s.alloc[i])
		c.fit.add(fit, k.b, i, len(g.Nodes))
		buf = k.b
	}
	return c
}

// labelKeys appends the label keys a node selector and the required terms
// of a node affinity read (matchExpressions; matchFields read the name,
// which callers judge node by node) to keys, and returns them sorted,
// each once.
func labelKeys(keys []string, selector map[string]string, aff *v1.Affinity) []string {
	for k := range selector {
		keys = append(keys, k)
	}
	if rna := requiredTerms(aff); rna != nil {
		for _, t := range rna.NodeSelectorTerms {
			for _, e := range t.MatchExpressions {
				keys = append(keys, e.Key)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
