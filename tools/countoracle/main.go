// Command countoracle counts the objects the upstream tools give for a
// chart or a kustomization, the reference taintlint's object counts are
// compared with on public repositories (docs/reading-in-the-wild.md):
//
//	countoracle helm CHART_DIR        as `helm template CHART_DIR` renders it
//	countoracle kustomize DIR         as `kubectl kustomize DIR` builds it
//
// It prints the count and the count by kind, or "ERROR <message>" and
// exits 1 when the tool refuses the input. A module of its own: Helm's
// and Kustomize's code as an oracle, kept out of taintlint's go.mod
// like tools/karpenteroracle.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: countoracle helm|kustomize DIR")
		os.Exit(2)
	}
	var kinds []string
	var err error
	switch os.Args[1] {
	case "helm":
		kinds, err = helmTemplate(os.Args[2])
	case "kustomize":
		kinds, err = kustomizeBuild(os.Args[2])
	default:
		err = fmt.Errorf("unknown tool %q", os.Args[1])
	}
	if err != nil {
		fmt.Println("ERROR", strings.Join(strings.Fields(err.Error()), " "))
		os.Exit(1)
	}
	byKind := map[string]int{}
	for _, k := range kinds {
		byKind[k]++
	}
	names := make([]string, 0, len(byKind))
	for k := range byKind {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s:%d", k, byKind[k]))
	}
	fmt.Println(len(kinds), strings.Join(parts, " "))
}

// helmTemplate renders the chart with its default values as `helm
// template` does (release-name, namespace default, hooks and tests
// printed, no CRDs from crds/) and returns the kind of every document
// kubectl would send: a document holding only comments is none.
func helmTemplate(dir string) ([]string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	if err := action.CheckDependencies(ch, ch.Metadata.Dependencies); err != nil {
		return nil, err
	}
	inst := action.NewInstall(&action.Configuration{})
	inst.DryRun, inst.ClientOnly, inst.Replace = true, true, true
	inst.ReleaseName, inst.Namespace = "release-name", "default"
	inst.KubeVersion = &chartutil.KubeVersion{Version: "v1.37.0", Major: "1", Minor: "37"}
	rel, err := inst.Run(ch, map[string]any{})
	if err != nil {
		return nil, err
	}
	all := rel.Manifest
	for _, h := range rel.Hooks {
		all += "\n---\n" + h.Manifest
	}
	var kinds []string
	for _, doc := range releaseutil.SplitManifests(all) {
		var obj map[string]any
		if yaml.Unmarshal([]byte(doc), &obj) == nil && len(obj) > 0 {
			k, _ := obj["kind"].(string)
			kinds = append(kinds, k)
		}
	}
	return kinds, nil
}

// kustomizeBuild builds the kustomization as kubectl kustomize does
// (kustomize's default options: load restrictions to the root, no
// plugins, no Helm) and returns the kind of every resource.
func kustomizeBuild(dir string) ([]string, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	var kinds []string
	for _, r := range m.Resources() {
		kinds = append(kinds, r.GetKind())
	}
	return kinds, nil
}
