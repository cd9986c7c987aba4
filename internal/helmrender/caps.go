package helmrender

import (
	"runtime"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/version"
)

// Capabilities is .Capabilities: the shape of Helm's chartutil.Capabilities
// (field names, and String/GitVersion on *KubeVersion), so templates that
// read or print it give the same text.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion BuildInfo
}

// KubeVersion is the Kubernetes version charts are rendered for.
type KubeVersion struct {
	Version string // v1.37.0
	Major   string // 1
	Minor   string // 37
}

// String is the version, as "v1.37.0".
func (kv *KubeVersion) String() string { return kv.Version }

// GitVersion is the version, as Kubernetes' version.Info names it.
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// VersionSet is the API versions the cluster serves.
type VersionSet []string

// Has reports whether the set holds apiVersion ("apps/v1", or
// "apps/v1/Deployment" when a kind was added).
func (v VersionSet) Has(apiVersion string) bool { return slices.Contains(v, apiVersion) }

// BuildInfo is .Capabilities.HelmVersion.
type BuildInfo struct {
	Version      string `json:"version,omitempty"`
	GitCommit    string `json:"git_commit,omitempty"`
	GitTreeState string `json:"git_tree_state,omitempty"`
	GoVersion    string `json:"go_version,omitempty"`
}

// helmVersion is the version Helm v3.22's SDK reports when linked into
// another program (its internal/version default).
const helmVersion = "v3.22"

// ParseKubeVersion reads a Kubernetes version as Helm does ("1.30",
// "v1.30.2", "v1.30.2-eks-1" all parse; the result is "v" + major.minor.patch).
func ParseKubeVersion(s string) (*KubeVersion, error) {
	v, err := version.ParseGeneric(s)
	if err != nil {
		return nil, err
	}
	return &KubeVersion{
		Version: "v" + v.String(),
		Major:   strconv.FormatUint(uint64(v.Major()), 10),
		Minor:   strconv.FormatUint(uint64(v.Minor()), 10),
	}, nil
}

// NewCapabilities is Helm's default capabilities for the given Kubernetes
// version, with extra API versions appended.
func NewCapabilities(kv KubeVersion, extra []string) *Capabilities {
	return &Capabilities{
		KubeVersion: kv,
		APIVersions: append(slices.Clone(defaultAPIVersions), extra...),
		HelmVersion: BuildInfo{Version: helmVersion, GoVersion: runtime.Version()},
	}
}

// defaultAPIVersions is Helm's chartutil.DefaultVersionSet: the group
// versions of client-go's scheme plus apiextensions v1beta1 and v1, in the
// scheme's priority order. Helm computes it at package initialisation from
// client-go's scheme, which is what this package avoids linking; the list
// is held equal to Helm's by TestDefaultAPIVersions.
var defaultAPIVersions = []string{
	"v1",
	"admissionregistration.k8s.io/v1",
	"admissionregistration.k8s.io/v1alpha1",
	"admissionregistration.k8s.io/v1beta1",
	"internal.apiserver.k8s.io/v1alpha1",
	"apps/v1",
	"apps/v1beta1",
	"apps/v1beta2",
	"authentication.k8s.io/v1",
	"authentication.k8s.io/v1alpha1",
	"authentication.k8s.io/v1beta1",
	"authorization.k8s.io/v1",
	"authorization.k8s.io/v1beta1",
	"autoscaling/v1",
	"autoscaling/v2",
	"batch/v1",
	"batch/v1beta1",
	"certificates.k8s.io/v1",
	"certificates.k8s.io/v1beta1",
	"certificates.k8s.io/v1alpha1",
	"coordination.k8s.io/v1alpha2",
	"coordination.k8s.io/v1beta1",
	"coordination.k8s.io/v1",
	"discovery.k8s.io/v1",
	"discovery.k8s.io/v1beta1",
	"events.k8s.io/v1",
	"events.k8s.io/v1beta1",
	"extensions/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1beta2",
	"flowcontrol.apiserver.k8s.io/v1beta3",
	"lifecycle.k8s.io/v1alpha1",
	"networking.k8s.io/v1",
	"networking.k8s.io/v1beta1",
	"node.k8s.io/v1",
	"node.k8s.io/v1alpha1",
	"node.k8s.io/v1beta1",
	"policy/v1",
	"policy/v1beta1",
	"rbac.authorization.k8s.io/v1",
	"rbac.authorization.k8s.io/v1beta1",
	"rbac.authorization.k8s.io/v1alpha1",
	"resource.k8s.io/v1",
	"resource.k8s.io/v1beta2",
	"resource.k8s.io/v1beta1",
	"resource.k8s.io/v1alpha3",
	"scheduling.k8s.io/v1alpha3",
	"scheduling.k8s.io/v1beta1",
	"scheduling.k8s.io/v1",
	"storage.k8s.io/v1beta1",
	"storage.k8s.io/v1",
	"storage.k8s.io/v1alpha1",
	"storagemigration.k8s.io/v1",
	"storagemigration.k8s.io/v1beta1",
	"apiextensions.k8s.io/v1beta1",
	"apiextensions.k8s.io/v1",
}
