package loader

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/taintlint/taintlint/loader/internal/helmchart"
	"github.com/taintlint/taintlint/loader/internal/kusttree"
)

// A file named on the command line is not always checked as it is. Hooks
// (pre-commit, editors) pass changed files one by one, and some of them are
// not manifests on their own:
//   - a file of a Helm chart (a template, values.yaml, Chart.yaml) stands
//     for the chart, which is rendered (helmchart.go);
//   - a file inside a Kustomize tree is usually a partial patch, which only
//     means something after kustomize applies it, so with Kustomize and
//     KustomizeFileRoots on the file is replaced by its kustomization root,
//     and Load checks each root once however many of its files were named.

// fileUnits is what a regular file named on the command line stands for.
func fileUnits(p string, opts Options) []unit {
	if opts.Terraform && isTerraformName(p) {
		return []unit{{name: filepath.ToSlash(p), path: p, kind: terraformUnit}}
	}
	if helmchart.IsChartArchive(p) {
		return []unit{{name: filepath.ToSlash(p), path: p, kind: chartUnit}}
	}
	if dir := chartOf(p); dir != "" {
		return []unit{{name: filepath.ToSlash(dir), path: dir, kind: chartUnit}}
	}
	if opts.Kustomize && opts.KustomizeFileRoots {
		if dir := kusttree.Owner(p); dir != "" {
			return fileKustomizeUnits(p, dir, opts)
		}
	}
	return []unit{{name: filepath.ToSlash(p), path: p, kind: fileUnit}}
}

// fileKustomizeUnits are the builds that check file, which lies in the
// tree of the kustomization in owner: the roots that include owner, each
// reporting only the findings in file. A Component no root includes is a
// note.
func fileKustomizeUnits(file, owner string, opts Options) []unit {
	name := filepath.ToSlash(file)
	roots, component := kusttree.RootsIncluding(owner, kustHooks(opts))
	if len(roots) == 0 {
		if component {
			return []unit{{name: filepath.ToSlash(owner), path: owner, kind: noteUnit, note: kusttree.OrphanNote(owner)}}
		}
		roots = []string{owner}
	}
	var units []unit
	for _, r := range roots {
		units = append(units, unit{name: filepath.ToSlash(r), path: r, kind: kustomizeUnit, focus: []string{name}})
	}
	return units
}

// expandPaths expands every command-line path into units, keeping one unit
// per kustomization root or chart when several paths share it: a build
// for named files reports the findings in all of them, and one for a path
// checked as a whole reports all its findings.
func expandPaths(paths []string, opts Options) ([]unit, error) {
	var units []unit
	seen := map[string]int{}
	for _, p := range paths {
		us, err := expand(p, opts)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if u.kind == kustomizeUnit || u.kind == chartUnit || u.kind == noteUnit || u.kind == leftoverUnit {
				key := fmt.Sprint(u.kind, filepath.Clean(u.path))
				if i, ok := seen[key]; ok {
					if len(units[i].focus) > 0 && len(u.focus) > 0 {
						units[i].focus = append(units[i].focus, u.focus...)
					} else {
						units[i].focus = nil
					}
					continue
				}
				seen[key] = len(units)
			}
			units = append(units, u)
		}
	}
	return units, nil
}

// chartOf returns the Helm chart directory a file belongs to, or "": the
// nearest directory at or above the file's own holding a Chart.yaml, and
// from a dependency under charts/ the chart that holds it, since a
// dependency is rendered through its parent. The search stops at a
// repository root.
func chartOf(file string) string {
	found := ""
	for dir := filepath.Dir(file); ; {
		if helmchart.IsChartDir(dir) {
			found = dir
		} else if found != "" && filepath.Base(found) != "charts" && filepath.Base(dir) != "charts" {
			return found
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return found
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return found
		}
		dir = parent
	}
}
