package pools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/catalog"
)

// Resources is what the largest node a pool can make offers, from the
// instance-type catalogue: resource by resource, the most any instance
// type the pool allows leaves to pods.
type Resources struct {
	// Allocatable lists cpu, memory and nvidia.com/gpu
	// (catalog.InstanceType.Allocatable; GPUs only when every allowed
	// type's count is known), and amd.com/gpu 0 when no allowed type has
	// a GPU; every other resource (pods, ephemeral storage, other
	// extended resources) is unknown.
	Allocatable v1.ResourceList
	// Types is how many instance types the pool allows; Largest names,
	// for cpu, memory and GPUs in turn, the type that offers the most
	// ("" for GPUs when no type has one).
	Types   int
	Largest [3]string
}

// Catalog is the instance-type catalogue as pools read it: each AWS type
// with the requirements Karpenter's AWS provider gives it, worked out
// once for every pool of a run.
type Catalog struct {
	cat *catalog.Catalog
	aws []awsType
}

type awsType struct {
	t     catalog.InstanceType
	req   *requirements
	alloc v1.ResourceList
}

// NewCatalog reads cat for pools.
func NewCatalog(cat *catalog.Catalog) *Catalog {
	c := &Catalog{cat: cat}
	for _, t := range cat.Types(catalog.AWS) {
		c.aws = append(c.aws, awsType{t, awsTypeRequirements(t), t.Allocatable()})
	}
	return c
}

// SetResources gives the pool its Resources from c, or says in
// UnknownResources why they are unknown: then no resource of the pool is
// judged, so that a type the catalogue does not know (a new one, a typo)
// never makes a pod "not fit".
//
// A Karpenter pool of the AWS provider allows every catalogue type its
// requirements admit, read as Karpenter's AWS provider labels its
// instance types (awsTypeRequirements); other pools allow the instance
// types they name.
func (p *Pool) SetResources(c *Catalog) {
	cat := c.cat
	p.Resources, p.UnknownResources = nil, ""
	var allowed []awsType
	switch {
	case p.Format == Karpenter && !p.AWS:
		p.UnknownResources = "only the instance types of Karpenter's AWS provider (an EC2NodeClass) are read"
		return
	case p.Format == Karpenter:
		var missing []string
		for _, name := range p.InstanceTypes {
			if _, ok := cat.Lookup(catalog.AWS, name); !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			p.UnknownResources = notInCatalogue(missing)
			return
		}
		pool := p.poolRequirements()
		for _, at := range c.aws {
			if typeAllowed(pool, at.req) {
				allowed = append(allowed, at)
			}
		}
		if len(allowed) == 0 {
			p.UnknownResources = "no instance type of the catalogue meets the pool's requirements"
			return
		}
	case len(p.InstanceTypes) == 0:
		p.UnknownResources = "the definition names no instance type"
		return
	default:
		var missing []string
		for _, name := range p.InstanceTypes {
			t, ok := cat.Lookup(catalog.AWS, name)
			if !ok {
				t, ok = cat.Lookup(catalog.Azure, name)
			}
			if !ok {
				t, ok = cat.Lookup(catalog.GCE, name)
			}
			if !ok {
				missing = append(missing, name)
				continue
			}
			allowed = append(allowed, awsType{t: t, alloc: t.Allocatable()})
		}
		if len(missing) > 0 {
			p.UnknownResources = notInCatalogue(missing)
			return
		}
	}
	res := &Resources{Allocatable: v1.ResourceList{}, Types: len(allowed)}
	gpuKnown := true
	for _, at := range allowed {
		t, alloc := at.t, at.alloc
		gpuKnown = gpuKnown && t.GPUKnown()
		for i, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, catalog.ResourceGPU} {
			q := alloc[name]
			if old, ok := res.Allocatable[name]; !ok || q.Cmp(old) > 0 {
				res.Allocatable[name] = q
				if !q.IsZero() {
					res.Largest[i] = t.Name
				}
			}
		}
	}
	gpus := res.Allocatable[catalog.ResourceGPU]
	switch {
	case !gpuKnown:
		// A type whose GPUs the tables do not count may have any.
		delete(res.Allocatable, catalog.ResourceGPU)
		res.Largest[2] = ""
	case gpus.IsZero():
		// The tables count AMD GPUs as GPUs: a pool of types without
		// any has no AMD GPU either.
		res.Allocatable[catalog.ResourceAMDGPU] = gpus.DeepCopy()
	}
	p.Resources = res
}

func notInCatalogue(names []string) string {
	return fmt.Sprintf("instance type %s is not in the catalogue", strings.Join(names, ", "))
}

// Karpenter's AWS label keys an instance type of the catalogue can be
// read for (aws/karpenter-provider-aws pkg/apis/v1/labels.go).
const (
	labelInstanceCategory   = "karpenter.k8s.aws/instance-category"
	labelInstanceFamily     = "karpenter.k8s.aws/instance-family"
	labelInstanceGeneration = "karpenter.k8s.aws/instance-generation"
	labelInstanceSize       = "karpenter.k8s.aws/instance-size"
	labelInstanceCPU        = "karpenter.k8s.aws/instance-cpu"
	labelInstanceMemory     = "karpenter.k8s.aws/instance-memory"
	labelInstanceGPUCount   = "karpenter.k8s.aws/instance-gpu-count"
	labelCapabilityFlex     = "karpenter.k8s.aws/instance-capability-flex"
)

// instanceTypeScheme is the AWS provider's reading of an instance type's
// category and generation (pkg/providers/instancetype/types.go).
var instanceTypeScheme = regexp.MustCompile(`(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`)

// awsTypeRequirements are the requirements Karpenter's AWS provider gives
// instance type t (pkg/providers/instancetype/types.go
// computeRequirements), on the keys the catalogue can answer: name,
// architecture, category, family, generation, size, vCPUs, memory, GPU
// count (DoesNotExist without GPUs) and flex capability. The provider's
// other keys (hypervisor, network bandwidth, ...) are left open.
func awsTypeRequirements(t catalog.InstanceType) *requirements {
	r := &requirements{}
	in := func(key, value string) { r.add(key, newValueSet(v1.NodeSelectorOpIn, []string{value})) }
	in(v1.LabelInstanceTypeStable, t.Name)
	in(v1.LabelArchStable, t.Arch)
	if m := instanceTypeScheme.FindStringSubmatch(t.Name); len(m) == 4 {
		in(labelInstanceCategory, m[1])
		in(labelInstanceGeneration, m[3])
	} else {
		r.add(labelInstanceCategory, newValueSet(v1.NodeSelectorOpDoesNotExist, nil))
		r.add(labelInstanceGeneration, newValueSet(v1.NodeSelectorOpDoesNotExist, nil))
	}
	family, size, ok := strings.Cut(t.Name, ".")
	if ok && !strings.Contains(size, ".") {
		in(labelInstanceFamily, family)
		in(labelInstanceSize, size)
	} else {
		r.add(labelInstanceFamily, newValueSet(v1.NodeSelectorOpDoesNotExist, nil))
		r.add(labelInstanceSize, newValueSet(v1.NodeSelectorOpDoesNotExist, nil))
	}
	in(labelCapabilityFlex, strconv.FormatBool(strings.Contains(family, "-flex")))
	in(labelInstanceCPU, strconv.FormatInt(t.VCPU, 10))
	in(labelInstanceMemory, strconv.FormatInt(t.MemoryMiB, 10))
	if t.GPU > 0 {
		in(labelInstanceGPUCount, strconv.FormatInt(t.GPU, 10))
	} else {
		r.add(labelInstanceGPUCount, newValueSet(v1.NodeSelectorOpDoesNotExist, nil))
	}
	return r
}

// typeAllowed is Karpenter's Requirements.Intersects of an instance
// type's requirements with the pool's, as its scheduler filters instance
// types: on every key both name, some value both allow, unless both only
// exclude values (NotIn, DoesNotExist).
func typeAllowed(pool, it *requirements) bool {
	for _, key := range it.keys {
		incoming, ok := pool.sets[key]
		if !ok {
			continue
		}
		existing := it.sets[key]
		if existing.hasIntersection(incoming) {
			continue
		}
		excludes := func(op v1.NodeSelectorOperator) bool {
			return op == v1.NodeSelectorOpNotIn || op == v1.NodeSelectorOpDoesNotExist
		}
		if excludes(incoming.operator()) && excludes(existing.operator()) {
			continue
		}
		return false
	}
	return true
}
