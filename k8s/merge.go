package k8s

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// Merge is a kind of pod an operator makes by merging several of an
// object's placements (Spark's application and driver settings, Rook's
// placement.all and a component's): no one field of the object is the
// pod's, so the pods are built here as the operator builds them, and
// judged by the scheduling rules as a Deployment's. The placements they
// are merged from stay where the validation rules judge them, at their
// own lines (CustomKind.Placements); a merged pod is never validated again.
type Merge struct {
	// Name names the pods in the docs (driver, mon).
	Name string
	// Rule says, for the docs, how the operator merges them.
	Rule  string
	build func(r *mergeReader) []mergedPod
}

// mergedPod is one pod a Merge builds: named in findings by what it is,
// found at the deepest path written among its sources (steps), with
// where each of its tolerations is written (tolPaths, pairwise with
// spec.Tolerations).
type mergedPod struct {
	name     string
	at       []any
	spec     v1.PodSpec
	tolPaths []*field.Path
}

// addTolerations appends p's tolerations to the pod's, with their paths.
func (m *mergedPod) addTolerations(p Placement) {
	m.spec.Tolerations = append(m.spec.Tolerations, p.Tolerations...)
	m.tolPaths = append(m.tolPaths, tolerationPaths(p)...)
}

// tolerationPaths are where each of p's tolerations is written.
func tolerationPaths(p Placement) []*field.Path {
	out := make([]*field.Path, len(p.Tolerations))
	for i := range out {
		out[i] = p.Path.Child("tolerations").Index(i)
	}
	return out
}

// mergeReader reads an object's placements for a Merge. bad is set when
// one of them does not decode: the pod would then rest on part of its
// placement, so none is built (the placement's issue says why).
type mergeReader struct {
	obj *loader.Object
	all []byte
	bad bool
}

// placement is the placement at steps, zero where none is written.
func (r *mergeReader) placement(steps ...any) Placement {
	data, found, _ := jsonscan.Walk(r.all, steps...)
	if !found || len(data) == 0 || data[0] != '{' {
		return Placement{}
	}
	pl, issues := decodePlacement(r.obj, pathOf(steps), data)
	if len(issues) > 0 {
		r.bad = true
	}
	return pl
}

// has reports whether a value other than null is written at steps.
func (r *mergeReader) has(steps ...any) bool {
	data, found, _ := jsonscan.Walk(r.all, steps...)
	return found && string(data) != "null"
}

// str is the string at steps, or "".
func (r *mergeReader) str(steps ...any) string {
	data, found, _ := jsonscan.Walk(r.all, steps...)
	if !found {
		return ""
	}
	s, _ := jsonString(data)
	return s
}

// value is the JSON value at steps, or nil.
func (r *mergeReader) value(steps ...any) []byte {
	data, _, _ := jsonscan.Walk(r.all, steps...)
	return data
}

// isTrue reports whether true is written at steps.
func (r *mergeReader) isTrue(steps ...any) bool {
	data, found, _ := jsonscan.Walk(r.all, steps...)
	return found && string(data) == "true"
}

// count is the number of elements of the list at steps.
func (r *mergeReader) count(steps ...any) int {
	data, found, _ := jsonscan.Walk(r.all, steps...)
	if !found {
		return 0
	}
	return len(jsonscan.Elems(data, nil))
}

// deepest is the longest of candidates written in the object, or the
// object's root member spec.
func (r *mergeReader) deepest(candidates ...[]any) []any {
	for _, c := range candidates {
		if _, found, _ := jsonscan.Walk(r.all, c...); found {
			return c
		}
	}
	return []any{"spec"}
}

func steps(prefix []any, more ...any) []any {
	return append(prefix[:len(prefix):len(prefix)], more...)
}

// mergedWorkloads are obj's pods of kp's merges.
func mergedWorkloads(obj *loader.Object, all []byte, merges []Merge) []*Workload {
	var ws []*Workload
	for _, m := range merges {
		r := &mergeReader{obj: obj, all: all}
		pods := m.build(r)
		if r.bad {
			continue
		}
		for _, p := range pods {
			sp := specPathAt(pathOf(p.at), p.at)
			w := &Workload{Object: obj, SpecPath: sp.path, specPath: sp.str, specSteps: sp.steps, Spec: p.spec, merged: true, tolerationPaths: p.tolPaths}
			w.Template = sp.str + " (" + p.name + ")"
			ws = append(ws, w)
		}
	}
	return ws
}

// sparkMerges are the driver and executor pods of a SparkApplication
// whose spec is at prefix, as kubeflow/spark-operator and Spark make them.
// Spark builds each pod from the role's pod template (template, read from
// Spark 3.0.0 on) and adds spec.nodeSelector
// (spark.kubernetes.node.selector.*, BasicDriverFeatureStep and
// BasicExecutorFeatureStep's addToNodeSelector, after sparkConf's own
// such keys) and then sparkConf's spark.kubernetes.<role>.node.selector.*
// over the template's; the
// operator's mutating webhook (the chart's default, webhook.enable: true)
// then appends the role's tolerations, puts its nodeSelector over the
// pod's, replaces the affinity when the role sets one, sets its
// priorityClassName, and adds its GPU as a limit (sparkpod_defaulter.go
// mutateSparkPod). Cores and memory become requests in Spark, with
// overheads it works out: not modelled.
func sparkMerges(prefix ...any) []Merge {
	rule := "%[1]s.template.spec's tolerations, nodeSelector, node affinity and priorityClassName (sparkVersion 3 and later), then sparkConf's spark.kubernetes.node.selector.* with " + sparkPath(prefix, "nodeSelector") + " over them, then sparkConf's spark.kubernetes.<role>.node.selector.* (Spark), then the operator's webhook: %[1]s.tolerations appended, %[1]s.nodeSelector over the pod's, %[1]s.affinity replacing, %[1]s.priorityClassName, %[1]s.gpu as a limit; cores and memory not modelled"
	var out []Merge
	for _, role := range []string{"driver", "executor"} {
		out = append(out, Merge{Name: role, Rule: strings.ReplaceAll(rule, "%[1]s", sparkPath(prefix, role)), build: func(r *mergeReader) []mergedPod {
			return []mergedPod{sparkPod(r, prefix, role)}
		}})
	}
	return out
}

// sparkSelectors are the node selectors conf sets with keys prefix<label>.
func sparkSelectors(conf map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range conf {
		if label, ok := strings.CutPrefix(k, prefix); ok && label != "" {
			out[label] = v
		}
	}
	return out
}

func sparkPath(prefix []any, name string) string { return pathOf(steps(prefix, name)).String() }

func sparkPod(r *mergeReader, prefix []any, role string) mergedPod {
	at := steps(prefix, role)
	var m mergedPod
	pod := &m.spec
	if sparkMajor(r.str(steps(prefix, "sparkVersion")...)) >= 3 {
		t := r.placement(steps(at, "template", "spec")...)
		m.addTolerations(t)
		pod.NodeSelector = maps.Clone(t.NodeSelector)
		if t.NodeAffinity != nil {
			pod.Affinity = &v1.Affinity{NodeAffinity: t.NodeAffinity}
		}
		pod.PriorityClassName = r.str(steps(at, "template", "spec", "priorityClassName")...)
	}
	app := r.placement(prefix...)
	own := r.placement(at...)
	// spark-submit gets sparkConf before spec.nodeSelector, and the later
	// --conf of a key wins; Spark adds the role's own selectors last.
	var conf map[string]string
	_ = unmarshal(r.value(steps(prefix, "sparkConf")...), &conf)
	general, forRole := sparkSelectors(conf, "spark.kubernetes.node.selector."), sparkSelectors(conf, "spark.kubernetes."+role+".node.selector.")
	maps.Copy(general, app.NodeSelector)
	for _, sel := range []map[string]string{general, forRole, own.NodeSelector} {
		if len(sel) > 0 && pod.NodeSelector == nil {
			pod.NodeSelector = map[string]string{}
		}
		maps.Copy(pod.NodeSelector, sel)
	}
	m.addTolerations(own)
	if r.has(steps(at, "affinity")...) {
		pod.Affinity = nil
		if own.NodeAffinity != nil {
			pod.Affinity = &v1.Affinity{NodeAffinity: own.NodeAffinity}
		}
	}
	if pc := r.str(steps(at, "priorityClassName")...); pc != "" {
		pod.PriorityClassName = pc
	}
	name := r.str(steps(at, "gpu", "name")...)
	if q, err := strconv.ParseInt(string(r.value(steps(at, "gpu", "quantity")...)), 10, 64); name != "" && err == nil && q > 0 {
		pod.Containers = []v1.Container{{Name: "spark-kubernetes-" + role, Resources: v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceName(name): *resource.NewQuantity(q, resource.DecimalSI)}}}}
	}
	m.name, m.at = "the "+role+" pods", r.deepest(at, prefix)
	return m
}

// sparkMajor is the major version of a Spark version string (3.5.3), or 0.
func sparkMajor(v string) int {
	major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	n, _ := strconv.Atoi(major)
	return n
}

// rookCluster is how Rook places a CephCluster's pods
// (pkg/apis/ceph.rook.io/v1/placement.go, pkg/operator/ceph/cluster/):
// mon and mgr get placement.all merged with their own (Placement.Merge:
// the component's nodeAffinity replaces all's, its tolerations come after
// all's), applied to a pod with none (ApplyToPodSpec); an arbiter mon of a
// stretch cluster gets placement.arbiter alone when it is set
// (getMonPlacement). OSDs on hosts (storage.useAllNodes or storage.nodes)
// and their prepare jobs get placement.all applied (unless
// storage.onlyApplyOSDPlacement), then placement.osd, or
// placement.prepareosd, applied over it (applyAllPlacementIfNeeded,
// ApplyToPodSpec: required node affinity terms ANDed, the component's
// tolerations before all's); OSDs on PVCs do so with each
// storageClassDeviceSet's placement, and its preparePlacement or else its
// placement for the prepare job. Each host OSD is also pinned to its node
// by hostname, which the manifest cannot say: not modelled. An external
// cluster (external.enable) runs none of them.
func rookCluster() []Merge {
	return []Merge{
		{Name: "mon", Rule: "spec.placement.all merged with spec.placement.mon (Placement.Merge); spec.placement.arbiter alone for a stretch cluster's arbiter", build: func(r *mergeReader) []mergedPod {
			if r.isTrue("spec", "external", "enable") {
				return nil
			}
			pods := []mergedPod{rookMerged(r, "mon")}
			if r.has("spec", "mon", "stretchCluster") && rookSpecified(r, "spec", "placement", "arbiter") {
				at := []any{"spec", "placement", "arbiter"}
				pods = append(pods, rookApplied("the arbiter mon pods", at, rookPlacement(r.placement(at...))))
			}
			return pods
		}},
		{Name: "mgr", Rule: "spec.placement.all merged with spec.placement.mgr (Placement.Merge)", build: func(r *mergeReader) []mergedPod {
			if r.isTrue("spec", "external", "enable") {
				return nil
			}
			return []mergedPod{rookMerged(r, "mgr")}
		}},
		{Name: "osd", Rule: "on hosts: spec.placement.all, then spec.placement.osd (or prepareosd) applied over it (ApplyToPodSpec); on PVCs: all, then each storageClassDeviceSets[i].placement (or preparePlacement)", build: rookOSDs},
	}
}

// rookSpecified reports whether the placement at steps is not Rook's
// empty Placement: getMonPlacement gives the arbiter its own placement
// only then (reflect.DeepEqual with Placement{}), and else the mons'. A
// member other than null makes it so, an empty list or object included.
func rookSpecified(r *mergeReader, steps ...any) bool {
	for _, k := range []string{"nodeAffinity", "podAffinity", "podAntiAffinity", "tolerations", "topologySpreadConstraints"} {
		if r.has(append(slices.Clone(steps), k)...) {
			return true
		}
	}
	return false
}

// rookOSDs are a CephCluster's OSD and OSD prepare pods (rookCluster).
func rookOSDs(r *mergeReader) []mergedPod {
	if r.isTrue("spec", "external", "enable") {
		return nil
	}
	var base mergedPod
	if !r.isTrue("spec", "storage", "onlyApplyOSDPlacement") {
		base = rookApplied("", nil, rookPlacement(r.placement("spec", "placement", "all")))
	}
	over := func(at []any, p Placement, name string) mergedPod {
		pod := mergedPod{name: name, at: r.deepest(at, []any{"spec", "placement", "all"}, []any{"spec", "storage"}), spec: *base.spec.DeepCopy(), tolPaths: slices.Clone(base.tolPaths)}
		rookApply(&pod, rookPlacement(p))
		return pod
	}
	var pods []mergedPod
	if r.isTrue("spec", "storage", "useAllNodes") || r.count("spec", "storage", "nodes") > 0 {
		for _, key := range []string{"osd", "prepareosd"} {
			at := []any{"spec", "placement", key}
			pods = append(pods, over(at, r.placement(at...), "the "+key+" pods, with spec.placement.all"))
		}
	}
	for i := range r.count("spec", "storage", "storageClassDeviceSets") {
		set := []any{"spec", "storage", "storageClassDeviceSets", i}
		osd := r.placement(steps(set, "placement")...)
		pods = append(pods, over(steps(set, "placement"), osd, "the OSD pods of this device set, with spec.placement.all"))
		prepare, at := osd, steps(set, "placement")
		if r.has(steps(set, "preparePlacement")...) {
			at = steps(set, "preparePlacement")
			prepare = r.placement(at...)
		}
		pods = append(pods, over(at, prepare, "the OSD prepare pods of this device set, with spec.placement.all"))
	}
	return pods
}

// rookMerged is the pod of a CephCluster component whose placement is
// placement.all merged with its own (GetMonPlacement, GetMgrPlacement).
func rookMerged(r *mergeReader, key string) mergedPod {
	all := rookPlacement(r.placement("spec", "placement", "all"))
	own := rookPlacement(r.placement("spec", "placement", key))
	merged := all
	if own.nodeAffinity != nil {
		merged.nodeAffinity = own.nodeAffinity
	}
	if own.tolerations != nil {
		merged.tolerations = append(append([]v1.Toleration{}, all.tolerations...), own.tolerations...)
		merged.tolPaths = append(slices.Clone(all.tolPaths), own.tolPaths...)
	}
	at := []any{"spec", "placement", key}
	return rookApplied("the "+key+" pods, with spec.placement.all", r.deepest(at, []any{"spec", "placement", "all"}, []any{"spec", "placement"}), merged)
}

// rookSingle is the pod of a Rook resource whose placement at path alone
// places it (ApplyToPodSpec on a pod with none): CephFilesystem's MDS,
// CephObjectStore's gateway, ...
func rookSingle(name string, path ...any) []Merge {
	return []Merge{{Name: name, Rule: pathOf(path).String() + " applied to a pod with none (ApplyToPodSpec)", build: func(r *mergeReader) []mergedPod {
		if r.count("spec", "gateway", "externalRgwEndpoints") > 0 {
			return nil // an external object store: Rook runs no gateway
		}
		return []mergedPod{rookApplied("the "+name+" pods", r.deepest(path, path[:len(path)-1]), rookPlacement(r.placement(path...)))}
	}}}
}

// rookPlacementFields are the fields of Rook's Placement the pod's
// placement on nodes reads.
// (tolPaths: where each toleration is written).
type rookPlacementFields struct {
	nodeAffinity *v1.NodeAffinity
	tolerations  []v1.Toleration
	tolPaths     []*field.Path
}

func rookPlacement(p Placement) rookPlacementFields {
	return rookPlacementFields{nodeAffinity: p.NodeAffinity, tolerations: p.Tolerations, tolPaths: tolerationPaths(p)}
}

// rookApplied is the pod name at at: ApplyToPodSpec of p on a pod spec
// with no placement.
func rookApplied(name string, at []any, p rookPlacementFields) mergedPod {
	m := mergedPod{name: name, at: at}
	rookApply(&m, p)
	return m
}

// rookApply is Rook's Placement.ApplyToPodSpec: the node affinity merged
// (mergeNodeAffinity), p's tolerations before the pod's.
func rookApply(m *mergedPod, p rookPlacementFields) {
	pod := &m.spec
	if p.nodeAffinity != nil {
		var have *v1.NodeAffinity
		if pod.Affinity != nil {
			have = pod.Affinity.NodeAffinity
		}
		pod.Affinity = &v1.Affinity{NodeAffinity: rookMergeNodeAffinity(p.nodeAffinity, have)}
	}
	if p.tolerations != nil {
		pod.Tolerations = append(append([]v1.Toleration{}, p.tolerations...), pod.Tolerations...)
		m.tolPaths = append(slices.Clone(p.tolPaths), m.tolPaths...)
	}
}

// rookMergeNodeAffinity is Rook's Placement.mergeNodeAffinity: p's node
// affinity, with have's preferred terms first, and the required terms'
// first terms ANDed when both give some (the rest are p's).
func rookMergeNodeAffinity(p, have *v1.NodeAffinity) *v1.NodeAffinity {
	result := p.DeepCopy()
	if have == nil {
		return result
	}
	result.PreferredDuringSchedulingIgnoredDuringExecution = append(append([]v1.PreferredSchedulingTerm{}, have.PreferredDuringSchedulingIgnoredDuringExecution...), p.PreferredDuringSchedulingIgnoredDuringExecution...)
	hr, pr := have.RequiredDuringSchedulingIgnoredDuringExecution, p.RequiredDuringSchedulingIgnoredDuringExecution
	switch {
	case hr == nil:
	case pr == nil:
		result.RequiredDuringSchedulingIgnoredDuringExecution = hr.DeepCopy()
	case len(hr.NodeSelectorTerms) == 0:
	case len(pr.NodeSelectorTerms) == 0:
		result.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append([]v1.NodeSelectorTerm{}, hr.NodeSelectorTerms...)
	default:
		result.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0] = v1.NodeSelectorTerm{
			MatchExpressions: append(append([]v1.NodeSelectorRequirement{}, hr.NodeSelectorTerms[0].MatchExpressions...), pr.NodeSelectorTerms[0].MatchExpressions...),
			MatchFields:      append(append([]v1.NodeSelectorRequirement{}, hr.NodeSelectorTerms[0].MatchFields...), pr.NodeSelectorTerms[0].MatchFields...),
		}
	}
	return result
}

// withRackKey is a with an Exists requirement on key added to each of its
// required node affinity terms, or as the one term when it has none, as
// Strimzi's ModelUtils.affinityWithRackLabelSelector adds a rack's
// topologyKey. a is not changed.
func withRackKey(a *v1.Affinity, key string) *v1.Affinity {
	out := a.DeepCopy()
	if out == nil {
		out = &v1.Affinity{}
	}
	if out.NodeAffinity == nil {
		out.NodeAffinity = &v1.NodeAffinity{}
	}
	exists := v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpExists}
	req := out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if req == nil || req.NodeSelectorTerms == nil {
		if req == nil {
			req = &v1.NodeSelector{}
			out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = req
		}
		req.NodeSelectorTerms = append(req.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{exists}})
		return out
	}
	for i := range req.NodeSelectorTerms {
		req.NodeSelectorTerms[i].MatchExpressions = append(req.NodeSelectorTerms[i].MatchExpressions, exists)
	}
	return out
}
