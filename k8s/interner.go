package k8s

import (
	"encoding/binary"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader"
)

// Interner lets the workloads of one run share the maps they would
// otherwise each hold a copy of: container resources and node selectors
// repeat across a repository, and a small map costs more than half a
// kilobyte. Shared maps are read only, as every typed view is. It is safe
// for concurrent use.
type Interner struct {
	kinds         *Kinds // read only
	mu            sync.Mutex
	resourceTable map[string]interned
	selectors     map[string]map[string]string
	requests      map[string]*RequestsClass
}

// interned is a container's resources, and their number in the table
// (from 1).
type interned struct {
	r  v1.ResourceRequirements
	id uint32
}

// RequestsClass stands for what resource.PodRequests reads of the pod
// specs of one Interner's workloads (each container's and init
// container's resources and restart policy; no overhead and no pod-level
// resources): workloads with one class have equal requests, so they are
// worked out once per class. The pointer is the identity.
type RequestsClass struct{ _ byte }

// maxInterned bounds each table of an Interner: a repository whose values
// never repeat gains nothing from it.
const maxInterned = 1 << 14

// NewInterner returns an empty Interner.
func NewInterner() *Interner {
	return &Interner{resourceTable: map[string]interned{}, selectors: map[string]map[string]string{}, requests: map[string]*RequestsClass{}}
}

// NewInternerFor is NewInterner for a run whose custom kinds are kinds
// (nil: the operators' alone).
func NewInternerFor(kinds *Kinds) *Interner {
	in := NewInterner()
	in.kinds = kinds
	return in
}

func (in *Interner) customKinds() *Kinds {
	if in == nil {
		return nil
	}
	return in.kinds
}

// Placements are obj's placements outside a pod spec (Kinds.Placements),
// for the custom kinds of in.
func (in *Interner) Placements(obj *loader.Object) ([]Placement, []*DecodeIssue) {
	return in.customKinds().Placements(obj)
}

// Workloads are obj's workloads: its one pod spec's (Workload), or one
// for each pod template of a custom kind with several, and for its
// operands (CustomKind.Templates, Operands), in the order of the kind's
// paths and as written.
func (in *Interner) Workloads(obj *loader.Object) ([]*Workload, []*DecodeIssue) {
	if ws, issues, ok := in.customKinds().workloads(obj, in); ok {
		return ws, issues
	}
	w, issues := newWorkload(obj, in)
	if w == nil {
		return nil, issues
	}
	return []*Workload{w}, issues
}

// Workload is NewWorkload, sharing maps with the other workloads of in.
func (in *Interner) Workload(obj *loader.Object) (*Workload, []*DecodeIssue) {
	return newWorkload(obj, in)
}

// resources decodes container resources, the JSON data, or gives an
// equal value decoded before (equal JSON decodes to equal values), with
// its number in the table; 0 when the table is full.
func (in *Interner) resources(data []byte) (v1.ResourceRequirements, uint32, error) {
	var r v1.ResourceRequirements
	if in == nil {
		err := unmarshal(data, &r)
		return r, 0, err
	}
	in.mu.Lock()
	e, ok := in.resourceTable[string(data)]
	in.mu.Unlock()
	if ok {
		return e.r, e.id, nil
	}
	if err := unmarshal(data, &r); err != nil {
		return r, 0, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if e, ok := in.resourceTable[string(data)]; ok { // another worker was first
		return e.r, e.id, nil
	}
	if len(in.resourceTable) >= maxInterned {
		return r, 0, nil
	}
	e = interned{r: r, id: uint32(len(in.resourceTable) + 1)}
	in.resourceTable[string(data)] = e
	return r, e.id, nil
}

// requestsClass is the class of v's requests, nil when v has overhead or
// pod-level resources, or a container whose resources were not numbered.
func (in *Interner) requestsClass(v *podSpecView) *RequestsClass {
	if in == nil || v.Overhead != nil || v.Resources != nil {
		return nil
	}
	var buf [64]byte
	key := buf[:0]
	for i, cs := range [][]containerView{v.Containers, v.InitContainers} {
		if i == 1 {
			key = append(key, 0xff)
		}
		for _, c := range cs {
			if c.resID == 0 && c.hasResources {
				return nil
			}
			key = binary.AppendUvarint(key, uint64(c.resID))
			if c.RestartPolicy == nil {
				key = append(key, 0)
			} else {
				key = binary.AppendUvarint(key, uint64(len(*c.RestartPolicy))+1)
				key = append(key, *c.RestartPolicy...)
			}
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	c := in.requests[string(key)]
	if c == nil {
		if len(in.requests) >= maxInterned {
			return nil
		}
		c = &RequestsClass{}
		in.requests[string(key)] = c
	}
	return c
}

// selector is resources for a node selector.
func (in *Interner) selector(data []byte) (map[string]string, error) {
	var m map[string]string
	if in == nil {
		err := unmarshal(data, &m)
		return m, err
	}
	in.mu.Lock()
	m, ok := in.selectors[string(data)]
	in.mu.Unlock()
	if ok {
		return m, nil
	}
	if err := unmarshal(data, &m); err != nil {
		return m, err
	}
	in.mu.Lock()
	if len(in.selectors) < maxInterned {
		in.selectors[string(data)] = m
	}
	in.mu.Unlock()
	return m, nil
}
