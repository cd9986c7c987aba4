package scheduling

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/taintlint/taintlint/k8s"
)

// resources is the scheduler's framework.Resource: cpu in millicores,
// memory, ephemeral storage and pods as plain numbers, and every scalar
// resource (extended resources, hugepages, prefixed native resources) by
// name. Other names are ignored, as the scheduler ignores them.
type resources struct {
	milliCPU, memory, ephemeral, pods int64
	scalar                            map[v1.ResourceName]int64
	// partial: a resource the list did not name is unknown, not 0, and
	// never short (a node pool's allocatable, k8s.Node.PartialAllocatable);
	// listed are the bits of the named cpu, memory, ephemeral storage and
	// pods, scalar holding every named scalar resource.
	partial bool
	listed  uint8
}

// Bits of resources.listed.
const (
	listedCPU uint8 = 1 << iota
	listedMemory
	listedEphemeral
	listedPods
)

// allocatableOf is the allocatable the filters read of node n.
func allocatableOf(n *k8s.Node) *resources {
	r := newResources(n.Node.Status.Allocatable)
	r.partial = n.PartialAllocatable
	return r
}

// known reports whether the resource of bit is judged: always on a node,
// only when listed on a pool whose resources are known in part.
func (r *resources) known(bit uint8) bool { return !r.partial || r.listed&bit != 0 }

// knownScalar is known for a scalar resource.
func (r *resources) knownScalar(name v1.ResourceName) bool {
	if !r.partial {
		return true
	}
	_, ok := r.scalar[name]
	return ok
}

func newResources(rl v1.ResourceList) *resources {
	r := &resources{}
	for name, q := range rl {
		switch name {
		case v1.ResourceCPU:
			r.milliCPU += q.MilliValue()
			r.listed |= listedCPU
		case v1.ResourceMemory:
			r.memory += q.Value()
			r.listed |= listedMemory
		case v1.ResourceEphemeralStorage:
			r.ephemeral += q.Value()
			r.listed |= listedEphemeral
		case v1.ResourcePods:
			r.pods += q.Value()
			r.listed |= listedPods
		default:
			if isScalarResourceName(name) {
				if r.scalar == nil {
					r.scalar = map[v1.ResourceName]int64{}
				}
				r.scalar[name] += q.Value()
			}
		}
	}
	return r
}

// isScalarResourceName is the scheduler's schedutil.IsScalarResourceName:
// extended, hugepages, kubernetes.io/-prefixed native and
// attachable-volumes resources.
func isScalarResourceName(name v1.ResourceName) bool {
	return k8s.IsExtendedResourceName(name) || strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) ||
		isPrefixedNativeResource(name) || strings.HasPrefix(string(name), v1.ResourceAttachableVolumesPrefix)
}

// isPrefixedNativeResource is v1helper.IsPrefixedNativeResource.
func isPrefixedNativeResource(name v1.ResourceName) bool {
	return strings.Contains(string(name), v1.ResourceDefaultNamespacePrefix)
}

// Shortfall is one resource a node lacks for a pod.
type Shortfall struct {
	Resource    v1.ResourceName
	Reason      string // "Insufficient cpu", "Too many pods", …
	Requested   int64  // in the scheduler's units: millicores for cpu
	Allocatable int64
	// Unresolvable: the request exceeds the node's whole allocatable, so
	// preemption cannot help (always so when other pods are not modelled,
	// except for the pod count).
	Unresolvable bool
}

// String formats the shortfall with quantities as a manifest writes them.
func (s Shortfall) String() string {
	if s.Resource == v1.ResourcePods {
		return fmt.Sprintf("allocatable pods is %d", s.Allocatable)
	}
	req, alloc := formatQuantity(s.Resource, s.Requested), formatQuantity(s.Resource, s.Allocatable)
	return fmt.Sprintf("the pod requests %s, allocatable is %s (short %s)", req, alloc, formatQuantity(s.Resource, s.Requested-s.Allocatable))
}

// poolString is String for node pools, whose allocatable is the most any
// of their instance types offers (k8s.Node.PartialAllocatable).
func (s Shortfall) poolString(pools string) string {
	req, alloc := formatQuantity(s.Resource, s.Requested), formatQuantity(s.Resource, s.Allocatable)
	return fmt.Sprintf("the pod requests %s, the %s instance types offer at most %s (short %s)", req, pools, alloc, formatQuantity(s.Resource, s.Requested-s.Allocatable))
}

// formatQuantity writes a quantity as a manifest would (500m, 16Gi, 2)
// when that is short, and in rounded human units otherwise: a node's
// allocatable memory of 10460488Ki reads 9.98Gi, 15890m CPUs read 15.89.
func formatQuantity(name v1.ResourceName, v int64) string {
	var q *resource.Quantity
	binary := name == v1.ResourceMemory || name == v1.ResourceEphemeralStorage || strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
	switch {
	case name == v1.ResourceCPU:
		q = resource.NewMilliQuantity(v, resource.DecimalSI)
	case binary:
		q = resource.NewQuantity(v, resource.BinarySI)
	default:
		q = resource.NewQuantity(v, resource.DecimalSI)
	}
	exact := q.String()
	if digits := len(exact) - len(strings.TrimLeft(exact, "-0123456789")); digits <= 4 {
		return exact
	}
	units := []struct {
		suffix string
		size   float64
	}{{"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}
	f := float64(v)
	if name == v1.ResourceCPU {
		f /= 1000
	}
	if binary {
		units = units[:1]
		for i, s := range []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"} {
			units = append(units, struct {
				suffix string
				size   float64
			}{s, float64(int64(1) << (10 * (i + 1)))})
		}
	}
	u := units[0]
	for _, c := range units[1:] {
		if math.Abs(f) >= c.size {
			u = c
		}
	}
	text := strconv.FormatFloat(f/u.size, 'f', 2, 64)
	text = strings.TrimSuffix(strings.TrimRight(text, "0"), ".")
	return text + u.suffix
}

// fits is noderesources.fitsRequest on an empty node: the pod count
// first, then cpu, memory, ephemeral storage and scalar resources the pod
// requests more of than the node offers. Scalar resources come sorted by
// name so that the result is deterministic.
// fitsAll reports whether fits finds no shortfall, without building any.
// A resource the allocatable of a pool does not list is not judged
// (resources.partial).
func fitsAll(req, alloc *resources) bool {
	if alloc.pods < 1 && alloc.known(listedPods) {
		return false
	}
	short := func(r, a int64, bit uint8) bool { return r > 0 && r > a && alloc.known(bit) }
	if short(req.milliCPU, alloc.milliCPU, listedCPU) || short(req.memory, alloc.memory, listedMemory) || short(req.ephemeral, alloc.ephemeral, listedEphemeral) {
		return false
	}
	for n, r := range req.scalar {
		if r > 0 && r > alloc.scalar[n] && alloc.knownScalar(n) {
			return false
		}
	}
	return true
}

func fits(req, alloc *resources) []Shortfall {
	var out []Shortfall
	if alloc.pods < 1 && alloc.known(listedPods) {
		out = append(out, Shortfall{Resource: v1.ResourcePods, Reason: "Too many pods", Requested: 1, Allocatable: alloc.pods})
	}
	if req.milliCPU == 0 && req.memory == 0 && req.ephemeral == 0 && len(req.scalar) == 0 {
		return out
	}
	check := func(name v1.ResourceName, r, a int64, known bool) {
		if r > 0 && r > a && known {
			out = append(out, Shortfall{Resource: name, Reason: fmt.Sprintf("Insufficient %v", name), Requested: r, Allocatable: a, Unresolvable: true})
		}
	}
	check(v1.ResourceCPU, req.milliCPU, alloc.milliCPU, alloc.known(listedCPU))
	check(v1.ResourceMemory, req.memory, alloc.memory, alloc.known(listedMemory))
	check(v1.ResourceEphemeralStorage, req.ephemeral, alloc.ephemeral, alloc.known(listedEphemeral))
	names := make([]string, 0, len(req.scalar))
	for n := range req.scalar {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		name := v1.ResourceName(n)
		check(name, req.scalar[name], alloc.scalar[name], alloc.knownScalar(name))
	}
	return out
}

// podForRequests is the pod as the API server stores it for the purpose of
// its requests: container requests defaulted from limits (SetDefaults_Pod
// runs on pods, never on templates, so taintlint applies it itself),
// pod-level requests defaulted the same way, and the RuntimeClass overhead.
func podForRequests(spec *v1.PodSpec, overhead v1.ResourceList) *v1.Pod {
	pod := &v1.Pod{Spec: *spec}
	pod.Spec.Containers = defaultContainers(spec.Containers)
	pod.Spec.InitContainers = defaultContainers(spec.InitContainers)
	if overhead != nil && pod.Spec.Overhead == nil {
		pod.Spec.Overhead = overhead
	}
	if r := spec.Resources; r != nil && len(r.Limits) > 0 {
		rr := r.DeepCopy()
		if rr.Requests == nil {
			rr.Requests = v1.ResourceList{}
		}
		agg := resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{})
		for name, q := range agg {
			if _, ok := rr.Requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && !strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) {
				rr.Requests[name] = q.DeepCopy()
			}
		}
		for name, q := range r.Limits {
			if _, ok := rr.Requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
				rr.Requests[name] = q.DeepCopy()
			}
		}
		pod.Spec.Resources = rr
	}
	return pod
}

// defaultContainers is cs with each container's requests defaulted from
// its limits; cs itself (read only) when no container limits a resource
// it does not request, which defaulting would leave as it is.
func defaultContainers(cs []v1.Container) []v1.Container {
	defaults := false
	for i := range cs {
		defaults = defaults || limitsUnrequested(&cs[i])
	}
	if !defaults {
		return cs
	}
	out := make([]v1.Container, len(cs))
	for i, c := range cs {
		out[i] = c
		if len(c.Resources.Limits) == 0 {
			continue
		}
		req := make(v1.ResourceList, len(c.Resources.Requests)+len(c.Resources.Limits))
		for k, v := range c.Resources.Requests {
			req[k] = v
		}
		for k, v := range c.Resources.Limits {
			if _, ok := req[k]; !ok {
				req[k] = v.DeepCopy()
			}
		}
		out[i].Resources.Requests = req
	}
	return out
}

// limitsUnrequested reports whether c limits a resource it does not
// request.
func limitsUnrequested(c *v1.Container) bool {
	for name := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; !ok {
			return true
		}
	}
	return false
}

// withoutMissingExtended drops extended-resource requests the node does
// not list, as the kubelet's removeMissingExtendedResources does before
// its admission check.
func withoutMissingExtended(pod *v1.Pod, alloc v1.ResourceList) *v1.Pod {
	out := pod.DeepCopy()
	filter := func(cs []v1.Container) {
		for i := range cs {
			req := v1.ResourceList{}
			for name, q := range cs[i].Resources.Requests {
				if k8s.IsExtendedResourceName(name) {
					if _, ok := alloc[name]; !ok {
						continue
					}
				}
				req[name] = q
			}
			cs[i].Resources.Requests = req
		}
	}
	filter(out.Spec.Containers)
	filter(out.Spec.InitContainers)
	return out
}

// requestsTable shares the requests of pods whose specs agree on what
// PodRequests reads (k8s.RequestsClass) and whose RuntimeClass is the
// same: a repository has far fewer distinct requests than workloads.
// The lists are read only.
type requestsTable struct {
	mu sync.Mutex
	m  map[requestsKey]podRequests
}

// podRequests are a pod's requests, and the same as the filters compare
// them (newResources).
type podRequests struct {
	list v1.ResourceList
	res  *resources
}

type requestsKey struct {
	class *k8s.RequestsClass
	rc    *k8s.RuntimeClass
}

// podRequests is PodRequests of w's spec with the overhead of rc (nil:
// none), shared with the workloads of w's requests class.
func (t *requestsTable) podRequests(w *k8s.Workload, rc *k8s.RuntimeClass) podRequests {
	var overhead v1.ResourceList
	if rc != nil {
		overhead = rc.RuntimeClass.Overhead.PodFixed
	}
	if w.Requests == nil {
		list := PodRequests(&w.Spec, overhead)
		return podRequests{list, newResources(list)}
	}
	key := requestsKey{w.Requests, rc}
	t.mu.Lock()
	r, ok := t.m[key]
	t.mu.Unlock()
	if ok {
		return r
	}
	list := PodRequests(&w.Spec, overhead)
	r = podRequests{list, newResources(list)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[requestsKey]podRequests{}
	}
	t.m[key] = r
	return r
}

// PodRequests is the pod's request per the upstream formula
// (resource.PodRequests: containers and sidecars summed, init containers
// as a maximum, pod-level requests, overhead), after defaulting.
func PodRequests(spec *v1.PodSpec, overhead v1.ResourceList) v1.ResourceList {
	return resourcehelper.PodRequests(podForRequests(spec, overhead), resourcehelper.PodResourcesOptions{})
}
