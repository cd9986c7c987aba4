package config

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/taintlint/taintlint/k8s"
)

// Admission turns on the admission plugins that are off by default in
// Kubernetes 1.37, so that pods are judged as a cluster running them would
// create them. A plugin is on when its key is present.
type Admission struct {
	// PodNodeSelector merges the namespace's
	// scheduler.alpha.kubernetes.io/node-selector annotation (Namespace
	// objects among the inputs) or the cluster default into nodeSelector.
	PodNodeSelector *PodNodeSelector `yaml:"podNodeSelector"`
	// PodTolerationRestriction merges the namespace's default tolerations
	// (or the cluster's) and checks the whitelist.
	PodTolerationRestriction *PodTolerationRestriction `yaml:"podTolerationRestriction"`
	// ExtendedResourceToleration adds an Exists NoSchedule toleration for
	// every extended resource a pod requests.
	ExtendedResourceToleration bool `yaml:"extendedResourceToleration"`
	// DefaultNotReadyTolerationSeconds and
	// DefaultUnreachableTolerationSeconds are the kube-apiserver flags
	// DefaultTolerationSeconds uses (default 300).
	DefaultNotReadyTolerationSeconds    int64 `yaml:"defaultNotReadyTolerationSeconds"`
	DefaultUnreachableTolerationSeconds int64 `yaml:"defaultUnreachableTolerationSeconds"`
}

// PodNodeSelector is the plugin's configuration.
type PodNodeSelector struct {
	// ClusterDefaultNodeSelector applies to namespaces without the
	// annotation, as a label selector string such as "env=prod,zone=a".
	ClusterDefaultNodeSelector string `yaml:"clusterDefaultNodeSelector"`
}

// PodTolerationRestriction is the plugin's configuration.
type PodTolerationRestriction struct {
	Default   []Toleration `yaml:"default"`
	Whitelist []Toleration `yaml:"whitelist"`
}

// Toleration is a v1 toleration in the configuration file.
type Toleration struct {
	Key               string `yaml:"key"`
	Operator          string `yaml:"operator"`
	Value             string `yaml:"value"`
	Effect            string `yaml:"effect"`
	TolerationSeconds *int64 `yaml:"tolerationSeconds"`
}

// K8s converts the section for the placement code.
func (a *Admission) K8s(file string) (k8s.Admission, error) {
	var out k8s.Admission
	if a == nil {
		return out, nil
	}
	out.DefaultNotReadySeconds = a.DefaultNotReadyTolerationSeconds
	out.DefaultUnreachableSeconds = a.DefaultUnreachableTolerationSeconds
	out.ExtendedResourceToleration = a.ExtendedResourceToleration
	if s := a.PodNodeSelector; s != nil {
		out.PodNodeSelector = true
		set, err := labels.ConvertSelectorToLabelsMap(s.ClusterDefaultNodeSelector)
		if err != nil {
			return out, fmt.Errorf("%s: admission.podNodeSelector.clusterDefaultNodeSelector: %v", file, err)
		}
		out.ClusterDefaultNodeSelector = set
	}
	if r := a.PodTolerationRestriction; r != nil {
		out.PodTolerationRestriction = true
		out.DefaultTolerations = v1Tolerations(r.Default)
		out.TolerationWhitelist = v1Tolerations(r.Whitelist)
	}
	return out, nil
}

func v1Tolerations(ts []Toleration) []v1.Toleration {
	var out []v1.Toleration
	for _, t := range ts {
		out = append(out, v1.Toleration{Key: t.Key, Operator: v1.TolerationOperator(t.Operator), Value: t.Value, Effect: v1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds})
	}
	return out
}
