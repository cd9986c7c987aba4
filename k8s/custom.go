package k8s

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// CustomKind is a kind of custom resource that places pods: where its
// objects keep a pod template, or the placement fields (tolerations,
// nodeSelector, affinity, or Rook's nodeAffinity) an operator copies
// into the pods it makes.
type CustomKind struct {
	Group, Kind string
	// PodTemplate is the path of the kind's one pod spec (a pod
	// template's spec), or "": an object of the kind is a workload, its
	// pods placed on the inventory as a Deployment's are.
	PodTemplate string
	// Templates are the paths of the pod specs of a kind with several
	// (Elasticsearch's nodeSets, a training job's replica specs), written
	// as Placements' paths are: each one found is a workload of its own,
	// judged by every rule and named by its path in findings.
	Templates []Template
	// Operands, when set, is how the operator makes DaemonSets of the
	// object's settings (NVIDIA's ClusterPolicy): their pods are judged
	// as one DaemonSet's.
	Operands *Operands
	// Merges are the pods the operator makes by merging several of the
	// object's placements (Spark, Rook): each a workload judged by the
	// scheduling rules alone, named by what it is, while Placements name
	// where they are validated. Operators' kinds only: how an operator
	// merges is read from its source, not configured.
	Merges []Merge
	// Placements are the paths of objects holding placement fields, whose
	// tolerations, node selectors and node affinity are validated as a
	// pod spec's. A path is field names joined by dots; a name followed by
	// [*] stands for every element of a list, and * for every member of
	// a map.
	Placements []string
	// Source is where the paths are read from: the operator's API types
	// or CRD, with the version read.
	Source string
}

// Template is a path of a pod spec of a kind with several.
type Template struct {
	Path string
	// DaemonSet: the operator makes a DaemonSet of the template, whose
	// pods the DaemonSet controller places.
	DaemonSet bool
	// RackKey, when set, is the path of a node label key (no * or [*])
	// that, when the object gives one, the operator adds to every
	// required node affinity term of the pods as an Exists requirement,
	// or as the one term when there is none (Strimzi's rack awareness,
	// rack.topologyKey: ModelUtils.affinityWithRackLabelSelector).
	RackKey string
}

// Operands are the DaemonSets an operator makes from the settings at
// Path that it applies to each of them, over the operands' own manifests.
// Every operand shares the fields below, so they are judged as one
// DaemonSet, at Path.
type Operands struct {
	// Path is the object holding tolerations and priorityClassName that
	// replace the operands' own when set (no * or [*]).
	Path string
	// Tolerations and PriorityClassName are the operands' own.
	Tolerations       []v1.Toleration
	PriorityClassName string
	// NodeAffinity is the nodes the operator runs its operands on, as a
	// required node affinity (its terms are ORed, as a node's labels
	// before the operator labels it decide).
	NodeAffinity *v1.NodeAffinity
}

// OperatorKinds are the operators' custom resources taintlint reads pod
// placement from, each path from the operator's own API types (Source).
// A new table each call: callers may keep it.
func OperatorKinds() []CustomKind {
	const (
		promOp = "prometheus-operator/prometheus-operator 6adcebc (main, 2026-08-08): pkg/apis/monitoring/"
		eck    = "elastic/cloud-on-k8s 7b93383 (main, 2026-08-21): pkg/apis/"
		rook   = "rook/rook d0c3b9c (master, 2026-08-21): pkg/apis/ceph.rook.io/v1/types.go "
		strimz = "strimzi/strimzi-kafka-operator 8541da1 (main, 2026-08-22): api/src/main/java/io/strimzi/api/kafka/model/"
		// The cluster operator's models, which make the pods.
		strimzCO = "cluster-operator/src/main/java/io/strimzi/operator/cluster/model/"
		argo     = "argoproj/argo-workflows f016ad8 (main, 2026-08-21): pkg/apis/workflow/v1alpha1/"
		spark    = "kubeflow/spark-operator 38082f3 (master, 2026-08-21): api/v1beta2/sparkapplication_types.go SparkApplicationSpec, SparkPodSpec"
		// How the driver and executor pods are made: the operator's
		// submission and webhook, and Spark's own feature steps.
		sparkHow = "; internal/controller/sparkapplication/submission.go nodeSelectorOption, driverPodTemplateOption, executorPodTemplateOption; internal/webhook/sparkpod_defaulter.go mutateSparkPod; charts/spark-operator-chart webhook.enable (true); apache/spark resource-managers/kubernetes/core/.../features/BasicDriverFeatureStep.scala, BasicExecutorFeatureStep.scala addToNodeSelector(conf.nodeSelector)"
		kf       = "kubeflow/training-operator v1.9.0: pkg/apis/kubeflow.org/v1/"
	)
	sparkPaths := func(prefix string) []string {
		return []string{prefix, prefix + ".driver", prefix + ".executor", prefix + ".driver.template.spec", prefix + ".executor.template.spec"}
	}
	return []CustomKind{
		{Group: "monitoring.coreos.com", Kind: "Prometheus", Placements: []string{"spec"}, Source: promOp + "v1/prometheus_types.go CommonPrometheusFields"},
		{Group: "monitoring.coreos.com", Kind: "PrometheusAgent", Placements: []string{"spec"}, Source: promOp + "v1alpha1/prometheusagent_types.go (CommonPrometheusFields)"},
		{Group: "monitoring.coreos.com", Kind: "Alertmanager", Placements: []string{"spec"}, Source: promOp + "v1/alertmanager_types.go AlertmanagerSpec"},
		{Group: "monitoring.coreos.com", Kind: "ThanosRuler", Placements: []string{"spec"}, Source: promOp + "v1/thanos_types.go ThanosRulerSpec"},

		{Group: "elasticsearch.k8s.elastic.co", Kind: "Elasticsearch", Templates: []Template{{Path: "spec.nodeSets[*].podTemplate.spec"}}, Source: eck + "elasticsearch/v1/elasticsearch_types.go NodeSet.PodTemplate"},
		{Group: "kibana.k8s.elastic.co", Kind: "Kibana", PodTemplate: "spec.podTemplate.spec", Source: eck + "kibana/v1/kibana_types.go KibanaSpec.PodTemplate"},
		{Group: "apm.k8s.elastic.co", Kind: "ApmServer", PodTemplate: "spec.podTemplate.spec", Source: eck + "apm/v1/apmserver_types.go ApmServerSpec.PodTemplate"},
		{Group: "enterprisesearch.k8s.elastic.co", Kind: "EnterpriseSearch", PodTemplate: "spec.podTemplate.spec", Source: eck + "enterprisesearch/v1/enterprisesearch_types.go EnterpriseSearchSpec.PodTemplate"},
		{Group: "logstash.k8s.elastic.co", Kind: "Logstash", PodTemplate: "spec.podTemplate.spec", Source: eck + "logstash/v1alpha1/logstash_types.go LogstashSpec.PodTemplate"},
		{Group: "maps.k8s.elastic.co", Kind: "ElasticMapsServer", PodTemplate: "spec.podTemplate.spec", Source: eck + "maps/v1alpha1/maps_types.go MapsSpec.PodTemplate"},
		{Group: "beat.k8s.elastic.co", Kind: "Beat", Templates: []Template{{Path: "spec.daemonSet.podTemplate.spec", DaemonSet: true}, {Path: "spec.deployment.podTemplate.spec"}}, Source: eck + "beat/v1beta1/beat_types.go DaemonSetSpec, DeploymentSpec"},
		{Group: "agent.k8s.elastic.co", Kind: "Agent", Templates: []Template{{Path: "spec.daemonSet.podTemplate.spec", DaemonSet: true}, {Path: "spec.deployment.podTemplate.spec"}, {Path: "spec.statefulSet.podTemplate.spec"}}, Source: eck + "agent/v1alpha1/agent_types.go DaemonSetSpec, DeploymentSpec, StatefulSetSpec"},

		{Group: "ceph.rook.io", Kind: "CephCluster", Placements: []string{"spec.placement.*", "spec.storage.storageClassDeviceSets[*].placement", "spec.storage.storageClassDeviceSets[*].preparePlacement"}, Merges: rookCluster(), Source: rook + "ClusterSpec.Placement (PlacementSpec), StorageScopeSpec.StorageClassDeviceSets; placement.go Merge, ApplyToPodSpec, mergeNodeAffinity, GetMonPlacement, GetMgrPlacement; pkg/operator/ceph/cluster/mon/mon.go getMonPlacement, mgr/spec.go, osd/spec.go applyAllPlacementIfNeeded, osd/provision_spec.go, osd/osd.go getPreparePlacement"},
		{Group: "ceph.rook.io", Kind: "CephFilesystem", Placements: []string{"spec.metadataServer.placement"}, Merges: rookSingle("mds", "spec", "metadataServer", "placement"), Source: rook + "MetadataServerSpec.Placement; pkg/operator/ceph/file/mds/spec.go"},
		{Group: "ceph.rook.io", Kind: "CephObjectStore", Placements: []string{"spec.gateway.placement"}, Merges: rookSingle("rgw", "spec", "gateway", "placement"), Source: rook + "GatewaySpec.Placement, ExternalRgwEndpoints; pkg/operator/ceph/object/spec.go"},
		{Group: "ceph.rook.io", Kind: "CephNFS", Placements: []string{"spec.server.placement"}, Merges: rookSingle("nfs", "spec", "server", "placement"), Source: rook + "GaneshaServerSpec.Placement; pkg/operator/ceph/nfs/spec.go"},
		{Group: "ceph.rook.io", Kind: "CephRBDMirror", Placements: []string{"spec.placement"}, Merges: rookSingle("rbd-mirror", "spec", "placement"), Source: rook + "RBDMirroringSpec.Placement; pkg/operator/ceph/cluster/rbd/spec.go"},
		{Group: "ceph.rook.io", Kind: "CephFilesystemMirror", Placements: []string{"spec.placement"}, Merges: rookSingle("fs-mirror", "spec", "placement"), Source: rook + "FilesystemMirroringSpec.Placement; pkg/operator/ceph/file/mirror/spec.go"},

		{Group: "kafka.strimzi.io", Kind: "Kafka", Templates: []Template{{Path: "spec.kafka.template.pod", RackKey: "spec.kafka.rack.topologyKey"}, {Path: "spec.entityOperator.template.pod"}, {Path: "spec.cruiseControl.template.pod"}, {Path: "spec.kafkaExporter.template.pod"}}, Source: strimz + "kafka/KafkaClusterTemplate.java, entityoperator/EntityOperatorTemplate.java, cruisecontrol/CruiseControlTemplate.java, exporter/KafkaExporterTemplate.java (common/template/PodTemplate.java); " + strimzCO + "KafkaPool.java processTemplate, KafkaCluster.java, ModelUtils.java affinityWithRackLabelSelector, WorkloadUtils.java"},
		{Group: "kafka.strimzi.io", Kind: "KafkaNodePool", Templates: []Template{{Path: "spec.template.pod"}}, Source: strimz + "nodepool/KafkaNodePoolTemplate.java; " + strimzCO + "KafkaPool.java processTemplate"},
		{Group: "kafka.strimzi.io", Kind: "KafkaConnect", Templates: []Template{{Path: "spec.template.pod", RackKey: "spec.rack.topologyKey"}}, Source: strimz + "connect/KafkaConnectTemplate.java (AbstractKafkaConnectSpec); " + strimzCO + "KafkaConnectCluster.java"},
		{Group: "kafka.strimzi.io", Kind: "KafkaMirrorMaker2", Templates: []Template{{Path: "spec.template.pod", RackKey: "spec.rack.topologyKey"}}, Source: strimz + "mirrormaker2/KafkaMirrorMaker2Spec.java (AbstractKafkaConnectSpec); " + strimzCO + "KafkaMirrorMaker2Cluster.java (KafkaConnectCluster)"},
		{Group: "kafka.strimzi.io", Kind: "KafkaBridge", Templates: []Template{{Path: "spec.template.pod", RackKey: "spec.rack.topologyKey"}}, Source: strimz + "bridge/KafkaBridgeTemplate.java; " + strimzCO + "KafkaBridgeCluster.java"},

		{Group: "nvidia.com", Kind: "ClusterPolicy", Operands: gpuOperands(), Source: "NVIDIA/gpu-operator a22dbf6 (main, 2026-08-21): api/nvidia/v1/clusterpolicy_types.go DaemonsetsSpec; controllers/object_controls.go applyCommonDaemonsetConfig; assets/state-*/*_daemonset.yaml; controllers/state_manager.go gpuNodeLabels, nvidia.com/gpu.deploy.operands"},

		{Group: "keda.sh", Kind: "ScaledJob", PodTemplate: "spec.jobTargetRef.template.spec", Source: "kedacore/keda 8b4f083 (main, 2026-08-20): apis/keda/v1alpha1/scaledjob_types.go ScaledJobSpec.JobTargetRef (batchv1.JobSpec)"},

		{Group: "argoproj.io", Kind: "Workflow", Placements: []string{"spec", "spec.templates[*]"}, Source: argo + "workflow_types.go WorkflowSpec, Template"},
		{Group: "argoproj.io", Kind: "WorkflowTemplate", Placements: []string{"spec", "spec.templates[*]"}, Source: argo + "workflow_template_types.go (WorkflowSpec)"},
		{Group: "argoproj.io", Kind: "ClusterWorkflowTemplate", Placements: []string{"spec", "spec.templates[*]"}, Source: argo + "cluster_workflow_template_types.go (WorkflowSpec)"},
		{Group: "argoproj.io", Kind: "CronWorkflow", Placements: []string{"spec.workflowSpec", "spec.workflowSpec.templates[*]"}, Source: argo + "cron_workflow_types.go CronWorkflowSpec.WorkflowSpec"},

		{Group: "sparkoperator.k8s.io", Kind: "SparkApplication", Placements: sparkPaths("spec"), Merges: sparkMerges("spec"), Source: spark + sparkHow},
		{Group: "sparkoperator.k8s.io", Kind: "ScheduledSparkApplication", Placements: sparkPaths("spec.template"), Merges: sparkMerges("spec", "template"), Source: "kubeflow/spark-operator 38082f3: api/v1beta2/scheduledsparkapplication_types.go Template (SparkApplicationSpec)" + sparkHow},
		{Group: "sparkoperator.k8s.io", Kind: "SparkConnect", Templates: []Template{{Path: "spec.server.template.spec"}, {Path: "spec.executor.template.spec"}}, Source: "kubeflow/spark-operator 38082f3: api/v1alpha1/sparkconnect_types.go ServerSpec, ExecutorSpec (SparkPodSpec.Template); internal/controller/sparkconnect/reconciler.go mutateServerPod (the server pod's spec is the template's), options.go executorPodTemplateOption (the executors' pod template file; no webhook mutation: the pods carry no SparkApplication name)"},

		{Group: "kubeflow.org", Kind: "PyTorchJob", Templates: []Template{{Path: "spec.pytorchReplicaSpecs.*.template.spec"}}, Source: kf + "pytorch_types.go PyTorchReplicaSpecs, common_types.go ReplicaSpec.Template"},
		{Group: "kubeflow.org", Kind: "TFJob", Templates: []Template{{Path: "spec.tfReplicaSpecs.*.template.spec"}}, Source: kf + "tensorflow_types.go TFReplicaSpecs"},
		{Group: "kubeflow.org", Kind: "MPIJob", Templates: []Template{{Path: "spec.mpiReplicaSpecs.*.template.spec"}}, Source: kf + "mpi_types.go MPIReplicaSpecs"},
		{Group: "kubeflow.org", Kind: "XGBoostJob", Templates: []Template{{Path: "spec.xgbReplicaSpecs.*.template.spec"}}, Source: kf + "xgboost_types.go XGBReplicaSpecs"},
		{Group: "kubeflow.org", Kind: "PaddleJob", Templates: []Template{{Path: "spec.paddleReplicaSpecs.*.template.spec"}}, Source: kf + "paddlepaddle_types.go PaddleReplicaSpecs"},
		{Group: "kubeflow.org", Kind: "JAXJob", Templates: []Template{{Path: "spec.jaxReplicaSpecs.*.template.spec"}}, Source: kf + "jax_types.go JAXReplicaSpecs"},
	}
}

// gpuOperands are the DaemonSets NVIDIA's gpu-operator makes of a
// ClusterPolicy: each operand's manifest (assets/state-*/) tolerates
// nvidia.com/gpu:NoSchedule and has priority class system-node-critical,
// which spec.daemonsets' tolerations and priorityClassName replace when
// set (applyCommonDaemonsetConfig); its node selector
// nvidia.com/gpu.deploy.<operand>=true is a label the operator puts on
// the nodes NFD found an NVIDIA PCI device on (gpuNodeLabels; it sets
// nvidia.com/gpu.present=true there too), unless the node has
// nvidia.com/gpu.deploy.operands=false.
func gpuOperands() *Operands {
	notDisabled := v1.NodeSelectorRequirement{Key: "nvidia.com/gpu.deploy.operands", Operator: v1.NodeSelectorOpNotIn, Values: []string{"false"}}
	var terms []v1.NodeSelectorTerm
	for _, key := range []string{"nvidia.com/gpu.present", "feature.node.kubernetes.io/pci-10de.present", "feature.node.kubernetes.io/pci-0302_10de.present", "feature.node.kubernetes.io/pci-0300_10de.present"} {
		terms = append(terms, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{"true"}}, notDisabled}})
	}
	return &Operands{
		Path:              "spec.daemonsets",
		Tolerations:       []v1.Toleration{{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
		PriorityClassName: "system-node-critical",
		NodeAffinity:      &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}},
	}
}

// Kinds are the custom kinds of a run: the operators' and the user's
// (.taintlint.yaml customKinds), a user's entry for a group and kind
// taking the place of the operators'. The zero Kinds, and nil, hold the
// operators' alone. Read only once made.
type Kinds struct {
	byKind map[string]*kindPaths // group/kind
}

// kindPaths is a CustomKind's paths, parsed.
type kindPaths struct {
	podTemplate *specPath
	templates   []templateSteps
	operands    *Operands
	operandsAt  *specPath
	placements  [][]pathStep
	merges      []Merge
}

// templateSteps is a Template, parsed.
type templateSteps struct {
	steps     []pathStep
	daemonSet bool
	rackKey   []any
}

// pathStep is a step of a CustomKind path: a member name, every element
// of a list (list), or every member of a map (name "*").
type pathStep struct {
	name string
	list bool
}

// NewKinds makes the Kinds of a run from the user's kinds; it fails as
// CustomKind.Validate does.
func NewKinds(user []CustomKind) (*Kinds, error) {
	k := &Kinds{byKind: map[string]*kindPaths{}}
	for _, list := range [][]CustomKind{OperatorKinds(), user} {
		for _, c := range list {
			p, err := parseKind(c)
			if err != nil {
				return nil, fmt.Errorf("custom kind %s/%s: %w", c.Group, c.Kind, err)
			}
			k.byKind[c.Group+"/"+c.Kind] = p
		}
	}
	return k, nil
}

// Validate reports what is wrong with c's paths: each must parse
// (ParseKindPath), and PodTemplate must name one pod template's spec.
func (c CustomKind) Validate() error {
	_, err := parseKind(c)
	return err
}

func parseKind(c CustomKind) (*kindPaths, error) {
	p := &kindPaths{}
	if c.PodTemplate != "" {
		steps, err := ParseKindPath(c.PodTemplate)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(steps))
		for i, s := range steps {
			if s.list || s.name == "*" {
				return nil, fmt.Errorf("podTemplate %q: a pod template path names one pod spec: no * or [*]", c.PodTemplate)
			}
			names[i] = s.name
		}
		if len(names) < 2 || names[len(names)-1] != "spec" {
			return nil, fmt.Errorf("podTemplate %q: the path of a pod template's spec ends in .spec (spec.template.spec)", c.PodTemplate)
		}
		p.podTemplate = newSpecPath(names...)
	}
	for _, t := range c.Templates {
		steps, err := ParseKindPath(t.Path)
		if err != nil {
			return nil, err
		}
		ts := templateSteps{steps: steps, daemonSet: t.DaemonSet}
		if t.RackKey != "" {
			rack, err := ParseKindPath(t.RackKey)
			if err != nil {
				return nil, err
			}
			for _, s := range rack {
				if s.list || s.name == "*" {
					return nil, fmt.Errorf("rackKey %q: the path names one value: no * or [*]", t.RackKey)
				}
				ts.rackKey = append(ts.rackKey, s.name)
			}
		}
		p.templates = append(p.templates, ts)
	}
	if o := c.Operands; o != nil {
		steps, err := ParseKindPath(o.Path)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(steps))
		for i, s := range steps {
			if s.list || s.name == "*" {
				return nil, fmt.Errorf("operands %q: the path names one object: no * or [*]", o.Path)
			}
			names[i] = s.name
		}
		p.operands, p.operandsAt = o, newSpecPath(names...)
	}
	for _, m := range c.Merges {
		if m.build == nil {
			return nil, fmt.Errorf("merge %q: merged pods are built by taintlint's own code for an operator (OperatorKinds), not configured", m.Name)
		}
	}
	p.merges = c.Merges
	for _, pl := range c.Placements {
		steps, err := ParseKindPath(pl)
		if err != nil {
			return nil, err
		}
		p.placements = append(p.placements, steps)
	}
	return p, nil
}

// ParseKindPath parses a CustomKind path: names joined by dots, each a
// member name, or * for every member of a map, and followed by [*] for
// every element of a list.
func ParseKindPath(path string) ([]pathStep, error) {
	if path == "" {
		return nil, fmt.Errorf("empty path")
	}
	var steps []pathStep
	for part := range strings.SplitSeq(path, ".") {
		name, list := strings.CutSuffix(part, "[*]")
		switch {
		case name == "":
			return nil, fmt.Errorf("path %q: an empty name (write names joined by single dots)", path)
		case strings.ContainsAny(name, "[]"):
			return nil, fmt.Errorf("path %q: %q: the only index a path takes is [*], every element of a list", path, part)
		case strings.Contains(name, "*") && name != "*":
			return nil, fmt.Errorf("path %q: %q: * stands alone for every member of a map", path, part)
		}
		steps = append(steps, pathStep{name: name, list: list})
	}
	return steps, nil
}

func (k *Kinds) lookup(obj *loader.Object) *kindPaths {
	group, _, found := strings.Cut(obj.APIVersion, "/")
	if !found {
		return nil // core: no custom kind
	}
	if k == nil || k.byKind == nil {
		k = operatorKinds()
	}
	return k.byKind[group+"/"+obj.Kind]
}

// operatorKinds are OperatorKinds parsed, for a run without Kinds.
var operatorKinds = sync.OnceValue(func() *Kinds {
	k, err := NewKinds(nil)
	if err != nil {
		panic(err) // the table is ours, and TestOperatorKinds parses it
	}
	return k
})

// Placement is an object's set of placement fields outside a pod spec
// taintlint places (an operator's custom resource): its tolerations,
// nodeSelector and node affinity, validated as a pod spec's.
type Placement struct {
	Object *loader.Object
	// Path is where the fields sit.
	Path         *field.Path
	Tolerations  []v1.Toleration
	NodeSelector map[string]string
	NodeAffinity *v1.NodeAffinity
	// NodeAffinityPath is where NodeAffinity is written: affinity.nodeAffinity
	// below Path, or nodeAffinity (Rook's placement).
	NodeAffinityPath *field.Path
	// Value is the JSON object at Path, a part of the object's JSON (read
	// only): what Rego policies see as input.placements[i].value.
	Value []byte
}

// Placements are obj's placements, when its kind is one of k (nil: the
// operators' kinds), in the order of the kind's paths and, for * and [*],
// as written; with an issue for each placement field whose value does not
// decode.
func (k *Kinds) Placements(obj *loader.Object) ([]Placement, []*DecodeIssue) {
	kp := k.lookup(obj)
	if kp == nil || len(kp.placements) == 0 {
		return nil, nil
	}
	all, err := obj.JSON()
	if err != nil {
		return nil, nil // the loader reports why the object has no JSON form
	}
	var out []Placement
	var issues []*DecodeIssue
	for _, steps := range kp.placements {
		expand(all, steps, nil, nil, func(p *field.Path, _ []any, data []byte) {
			pl, is := decodePlacement(obj, p, data)
			issues = append(issues, is...)
			if pl.Tolerations != nil || pl.NodeSelector != nil || pl.NodeAffinity != nil {
				out = append(out, pl)
			}
		})
	}
	return out, issues
}

// expand calls f with the path, its steps (as loader.Object.JSONAt
// takes them) and the JSON of every object steps lead to in data, in the
// order written.
func expand(data []byte, steps []pathStep, p *field.Path, at []any, f func(*field.Path, []any, []byte)) {
	if len(steps) == 0 {
		if len(data) > 0 && data[0] == '{' {
			f(p, at, data)
		}
		return
	}
	if len(data) == 0 || data[0] != '{' {
		return
	}
	s := steps[0]
	type place struct {
		p    *field.Path
		at   []any
		data []byte
	}
	var next []place
	add := func(p *field.Path, key string, d []byte) {
		next = append(next, place{p, append(at[:len(at):len(at)], key), d})
	}
	if s.name == "*" {
		for _, m := range jsonscan.Fields(data, nil) {
			key := jsonKey(m.Key)
			if strings.ContainsAny(key, ".[]") {
				add(p.Key(key), key, m.Value)
			} else {
				add(child(p, key), key, m.Value)
			}
		}
	} else {
		v, found, _ := jsonscan.Walk(data, s.name)
		if !found {
			return
		}
		add(child(p, s.name), s.name, v)
	}
	for _, n := range next {
		if !s.list {
			expand(n.data, steps[1:], n.p, n.at, f)
			continue
		}
		if len(n.data) == 0 || n.data[0] != '[' {
			continue
		}
		for i, e := range jsonscan.Elems(n.data, nil) {
			expand(e, steps[1:], n.p.Index(i), append(n.at[:len(n.at):len(n.at)], i), f)
		}
	}
}

// decodePlacement decodes the placement fields of the JSON object data at
// p, each as sigs.k8s.io/json decodes its k8s.io/api type.
func decodePlacement(obj *loader.Object, p *field.Path, data []byte) (Placement, []*DecodeIssue) {
	pl := Placement{Object: obj, Path: p, Value: data}
	var issues []*DecodeIssue
	bad := func(member string, what string, err error) {
		issues = append(issues, &DecodeIssue{Object: obj, Path: p.Child(member).String(), Msg: "expected " + what + ": " + strings.TrimPrefix(err.Error(), "json: "), AtValue: true})
	}
	for _, m := range jsonscan.Fields(data, nil) {
		if string(m.Value) == "null" || bytes.Contains(m.Value, []byte("{{")) {
			// null leaves the field zero; {{ is a placeholder the operator
			// fills before it makes the pods (Argo Workflows' parameters,
			// {{inputs.parameters.arch}}): the value written is not the
			// pod's.
			continue
		}
		switch jsonKey(m.Key) {
		case "tolerations":
			if err := unmarshal(m.Value, &pl.Tolerations); err != nil {
				pl.Tolerations = nil
				bad("tolerations", "a list of tolerations", err)
			}
		case "nodeSelector":
			if err := unmarshal(m.Value, &pl.NodeSelector); err != nil {
				pl.NodeSelector = nil
				bad("nodeSelector", "a map of strings", err)
			}
		case "affinity":
			var a affinityView
			if err := unmarshal(m.Value, &a); err != nil {
				bad("affinity", "an affinity", err)
			} else if a.NodeAffinity != nil {
				pl.NodeAffinity, pl.NodeAffinityPath = a.NodeAffinity, p.Child("affinity", "nodeAffinity")
			}
		case "nodeAffinity":
			var na v1.NodeAffinity
			if err := unmarshal(m.Value, &na); err != nil {
				bad("nodeAffinity", "a node affinity", err)
			} else {
				pl.NodeAffinity, pl.NodeAffinityPath = &na, p.Child("nodeAffinity")
			}
		}
	}
	return pl, issues
}

// workloads are obj's workloads when its kind has several pod templates
// or operands (ok), each with the issues of its pod spec.
func (k *Kinds) workloads(obj *loader.Object, shared *Interner) (ws []*Workload, issues []*DecodeIssue, ok bool) {
	kp := k.lookup(obj)
	if kp == nil || len(kp.templates) == 0 && kp.operands == nil && len(kp.merges) == 0 {
		return nil, nil, false
	}
	all, err := obj.JSON()
	if err != nil {
		return nil, nil, true // the loader reports why the object has no JSON form
	}
	for _, t := range kp.templates {
		rack := ""
		if t.rackKey != nil {
			if key, found, _ := jsonscan.Walk(all, t.rackKey...); found {
				rack, _ = jsonString(key)
			}
		}
		add := func(sp *specPath, note string) {
			w, is := newWorkloadAt(obj, sp, shared)
			w.daemonSet, w.Template = t.daemonSet, strings.TrimSuffix(sp.str, ".spec")+note
			if rack != "" {
				w.Spec.Affinity = withRackKey(w.Spec.Affinity, rack)
			}
			ws = append(ws, w)
			issues = append(issues, is...)
		}
		n := len(ws)
		expand(all, t.steps, nil, nil, func(p *field.Path, at []any, _ []byte) { add(specPathAt(p, at), "") })
		if names := plainNames(t.steps); len(ws) == n && rack != "" && names != nil {
			// The pods exist without a template written, and rack
			// awareness alone constrains them: judged at the template's
			// path (findings at the deepest part of it written).
			add(newSpecPath(names...), " (none written: rack awareness alone)")
		}
	}
	if kp.operands != nil {
		w, is := operandsWorkload(obj, kp)
		ws = append(ws, w)
		issues = append(issues, is...)
	}
	ws = append(ws, mergedWorkloads(obj, all, kp.merges)...)
	return ws, issues, true
}

// plainNames are the names of steps, or nil when one is * or [*].
func plainNames(steps []pathStep) []string {
	names := make([]string, len(steps))
	for i, s := range steps {
		if s.list || s.name == "*" {
			return nil
		}
		names[i] = s.name
	}
	return names
}

// specPathAt is the specPath of the pod spec at p, whose steps are at.
func specPathAt(p *field.Path, at []any) *specPath {
	sp := &specPath{path: p, str: p.String(), steps: at}
	sp.meta = append(at[:len(at)-1:len(at)-1], "metadata")
	sp.metaStr = pathOf(sp.meta).String()
	sp.parsed, _ = jsonscan.ParseFieldPath(sp.str) // read only for built-in kinds' schemas
	return sp
}

// pathOf is the field path of steps as expand makes them.
func pathOf(steps []any) *field.Path {
	var p *field.Path
	for _, s := range steps {
		switch s := s.(type) {
		case int:
			p = p.Index(s)
		case string:
			if strings.ContainsAny(s, ".[]") {
				p = p.Key(s)
			} else {
				p = child(p, s)
			}
		}
	}
	return p
}

// operandsWorkload is the DaemonSet an operator makes of obj's settings
// (kp.operands): the operands' own tolerations and priority class, unless
// the settings give theirs, on the nodes the operator runs them on.
func operandsWorkload(obj *loader.Object, kp *kindPaths) (*Workload, []*DecodeIssue) {
	o, sp := kp.operands, kp.operandsAt
	w := &Workload{Object: obj, SpecPath: sp.path, specPath: sp.str, specSteps: sp.steps, daemonSet: true, Template: sp.str + " (the operator's DaemonSets)"}
	var issues []*DecodeIssue
	if data, found, _ := obj.JSONAt(sp.steps...); found && len(data) > 0 && data[0] == '{' {
		for _, m := range jsonscan.Fields(data, nil) {
			if string(m.Value) == "null" {
				continue
			}
			var err error
			what := ""
			switch jsonKey(m.Key) {
			case "tolerations":
				if err = unmarshal(m.Value, &w.Spec.Tolerations); err != nil {
					w.Spec.Tolerations, what = nil, "a list of tolerations"
				}
			case "priorityClassName":
				if w.Spec.PriorityClassName, err = jsonString(m.Value); err != nil {
					what = "a string"
				}
			}
			if err != nil {
				issues = append(issues, &DecodeIssue{Object: obj, Path: sp.path.Child(jsonKey(m.Key)).String(), Msg: "expected " + what + ": " + strings.TrimPrefix(err.Error(), "json: "), InView: true, AtValue: true})
			}
		}
	}
	if len(w.Spec.Tolerations) == 0 {
		w.Spec.Tolerations = append([]v1.Toleration(nil), o.Tolerations...)
		w.operatorTolerations = len(o.Tolerations) > 0
	}
	if w.Spec.PriorityClassName == "" {
		w.Spec.PriorityClassName = o.PriorityClassName
	}
	if o.NodeAffinity != nil {
		w.Spec.Affinity = &v1.Affinity{NodeAffinity: o.NodeAffinity.DeepCopy()}
	}
	return w, issues
}
