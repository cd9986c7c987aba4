// Package config finds and reads .taintlint.yaml. Decoding is strict: an
// unknown key or a value of the wrong type is an error naming the file and
// line, because a misspelled setting that is silently ignored is a check
// that silently does not run.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/taintlint/taintlint/internal/safeio"
	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/k8s"
)

// FileName is the configuration file looked for upward from the working
// directory.
const FileName = ".taintlint.yaml"

// File is the configuration file's schema.
type File struct {
	// Enable turns on rules that are off by default; Disable turns rules off.
	Enable  []string `yaml:"enable"`
	Disable []string `yaml:"disable"`
	// Severity overrides rule severities: rule-id: error|warning|note.
	Severity map[string]string `yaml:"severity"`
	// Ignore lists globs of paths left out of directory walks.
	Ignore []string `yaml:"ignore"`
	// Suppress suppresses findings by rule, path and object, with a reason.
	Suppress []Suppression `yaml:"suppress"`
	// Nodes are node inventory paths, relative to the configuration file.
	Nodes []string `yaml:"nodes"`
	// NodeState is the default of --node-state: stable or as-is.
	NodeState string `yaml:"nodeState"`
	// FeatureGates sets Kubernetes feature gates by name.
	FeatureGates map[string]bool `yaml:"featureGates"`
	// FailOn is the default of --fail-on.
	FailOn string `yaml:"failOn"`
	// Policies are directories of custom Rego rules, relative to the
	// configuration file.
	Policies []string `yaml:"policies"`
	// RuntimeTaints are taint keys that nodes carry only at run time
	// (bootstrap, scale-down, maintenance); toleration-unmatched does not
	// ask for them in the inventory. A trailing * matches a prefix.
	RuntimeTaints []string `yaml:"runtimeTaints"`
	// Kustomize, when false, walks kustomization directories instead of
	// building them.
	Kustomize *bool `yaml:"kustomize"`
	// Admission turns on admission plugins that are off by default.
	Admission *Admission `yaml:"admission"`
	// Baseline is a baseline file of accepted findings (also --baseline),
	// relative to the configuration file.
	Baseline string `yaml:"baseline"`
	// Helm is how Helm charts are rendered.
	Helm *Helm `yaml:"helm"`
	// CustomKinds are the user's kinds of custom resources that place
	// pods, with where their objects keep a pod template or placement
	// fields (k8s.CustomKind).
	CustomKinds []CustomKind `yaml:"customKinds"`

	// Dir is the directory the file was read from; relative paths in the
	// file are relative to it.
	Dir string `yaml:"-"`
	// Path is the file that was read.
	Path string `yaml:"-"`

	// root is the parsed document, for the positions of settings (Where).
	root *yaml.Node
}

// Helm holds the helm template settings charts are rendered with.
type Helm struct {
	// ReleaseName and Namespace are .Release.Name and .Release.Namespace.
	ReleaseName string `yaml:"releaseName"`
	Namespace   string `yaml:"namespace"`
	// KubeVersion is .Capabilities.KubeVersion; APIVersions are added to
	// .Capabilities.APIVersions.
	KubeVersion string   `yaml:"kubeVersion"`
	APIVersions []string `yaml:"apiVersions"`
	// Charts maps a chart path (relative to the configuration file) to
	// its settings.
	Charts map[string]HelmChart `yaml:"charts"`
}

// HelmChart is the settings of one chart.
type HelmChart struct {
	// Values are values files (relative to the configuration file) read
	// over the chart's values.yaml, in order.
	Values []string `yaml:"values"`
	// Set are helm template --set assignments, applied after the files.
	Set []string `yaml:"set"`
}

// CustomKind maps a kind of custom resource to its pod template or its
// placement fields, as k8s.CustomKind.
type CustomKind struct {
	// Group is the API group (the apiVersion before the slash).
	Group string `yaml:"group"`
	Kind  string `yaml:"kind"`
	// PodTemplate is the path of the one pod spec of the kind's objects:
	// they are workloads, placed on the inventory.
	PodTemplate string `yaml:"podTemplate"`
	// Placements are paths of objects holding tolerations, nodeSelector,
	// affinity or nodeAffinity ([*] every element of a list, * every
	// member of a map): validated as a pod spec's.
	Placements []string `yaml:"placements"`
}

// Suppression suppresses matching findings.
type Suppression struct {
	Rules   []string `yaml:"rules"`
	Paths   []string `yaml:"paths"`
	Objects []string `yaml:"objects"`
	Reason  string   `yaml:"reason"`
}

// Find looks for FileName in dir and its parents and returns its path, or
// "" when there is none.
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, FileName)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// MaxSize is the largest configuration file read.
const MaxSize = 4 << 20

// Load reads a configuration file, charged to the run's input budget b
// (a device, pipe or socket is refused: see safeio).
func Load(path string, b safeio.Budget) (*File, error) {
	data, err := safeio.ReadFile(path, b, MaxSize)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f.Dir = filepath.Dir(abs)
	return f, nil
}

var lineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// Parse decodes configuration bytes; name is used in errors, which give
// the line and column of the setting at fault.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Path: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, configError(name, err)
	}
	if len(doc.Content) > 0 {
		f.root = doc.Content[0]
		if err := checkNode(name, f.root, reflect.TypeOf(File{}), ""); err != nil {
			return nil, err
		}
	}
	// The strict decoder still runs, for anything the schema walk lets by.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) {
		return nil, configError(name, err)
	}
	for i, s := range f.Suppress {
		if strings.TrimSpace(s.Reason) == "" {
			return nil, fmt.Errorf("%s: suppress[%d]: a reason is required (reason: why these findings are accepted)", f.Where("suppress", i), i)
		}
	}
	if err := f.checkCustomKinds(); err != nil {
		return nil, err
	}
	if f.FailOn != "" {
		levels := []string{"error", "warning", "note", "never"}
		if !slices.Contains(levels, f.FailOn) {
			return nil, fmt.Errorf("%s: failOn: unknown level %q%s (want error, warning, note or never)", f.WhereValue("failOn"), f.FailOn, textdist.DidYouMean(f.FailOn, levels))
		}
	}
	for _, id := range sortedKeys(f.Severity) {
		levels := []string{"error", "warning", "note"}
		if v := f.Severity[id]; !slices.Contains(levels, v) {
			return nil, fmt.Errorf("%s: severity.%s: unknown severity %q%s (want error, warning or note)", f.WhereValue("severity", id), id, v, textdist.DidYouMean(v, levels))
		}
	}
	return f, nil
}

// checkCustomKinds validates customKinds, each error at its setting: a
// group as a CustomResourceDefinition's (a domain with a dot: the groups
// of built-in kinds have none), a kind, paths that parse, one entry per
// group and kind.
func (f *File) checkCustomKinds() error {
	seen := map[string]int{}
	for i, c := range f.CustomKinds {
		switch {
		case c.Group == "":
			return fmt.Errorf("%s: customKinds[%d]: group is required (the apiVersion before the slash, e.g. example.com)", f.Where("customKinds", i), i)
		case !strings.Contains(c.Group, "."):
			return fmt.Errorf("%s: customKinds[%d].group: %q is not a custom resource's group (a CustomResourceDefinition's group has a dot: example.com); built-in kinds are read already", f.WhereValue("customKinds", i, "group"), i, c.Group)
		case c.Kind == "":
			return fmt.Errorf("%s: customKinds[%d]: kind is required", f.Where("customKinds", i), i)
		case c.PodTemplate == "" && len(c.Placements) == 0:
			return fmt.Errorf("%s: customKinds[%d]: give podTemplate (the path of its pod spec, e.g. spec.template.spec) or placements (paths of its tolerations, nodeSelector and affinity)", f.Where("customKinds", i), i)
		}
		key := c.Group + "/" + c.Kind
		if j, dup := seen[key]; dup {
			return fmt.Errorf("%s: customKinds[%d]: %s is customKinds[%d] too (%s)", f.Where("customKinds", i), i, key, j, f.Where("customKinds", j))
		}
		seen[key] = i
		if c.PodTemplate != "" {
			if err := (k8s.CustomKind{Group: c.Group, Kind: c.Kind, PodTemplate: c.PodTemplate}).Validate(); err != nil {
				return fmt.Errorf("%s: customKinds[%d].%v", f.WhereValue("customKinds", i, "podTemplate"), i, err)
			}
		}
		for j, p := range c.Placements {
			if _, err := k8s.ParseKindPath(p); err != nil {
				return fmt.Errorf("%s: customKinds[%d].placements[%d]: %v", f.WhereValue("customKinds", i, "placements", j), i, j, err)
			}
		}
	}
	return nil
}

// K8sKinds is the run's custom kinds: the operators' and these.
func K8sKinds(kinds []CustomKind) (*k8s.Kinds, error) {
	out := make([]k8s.CustomKind, len(kinds))
	for i, c := range kinds {
		out[i] = k8s.CustomKind{Group: c.Group, Kind: c.Kind, PodTemplate: c.PodTemplate, Placements: c.Placements, Source: ".taintlint.yaml"}
	}
	return k8s.NewKinds(out)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func configError(name string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			return fmt.Errorf("%s:%s: %s", name, m[1], strings.ReplaceAll(m[2], "in type config.File", "in taintlint configuration"))
		}
		return fmt.Errorf("%s: %s", name, msg)
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", name, m[1], m[2])
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// Resolve makes a path from the file relative to the working directory.
func (f *File) Resolve(p string) string {
	if filepath.IsAbs(p) || f.Dir == "" {
		return p
	}
	abs := filepath.Join(f.Dir, p)
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil {
			return rel
		}
	}
	return abs
}
