package loader

import (
	"os"
	"path/filepath"
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
	if isChartArchive(p) {
		return []unit{{name: filepath.ToSlash(p), path: p, kind: chartUnit}}
	}
	if dir := chartOf(p); dir != "" {
		return []unit{{name: filepath.ToSlash(dir), path: dir, kind: chartUnit}}
	}
	if opts.Kustomize && opts.KustomizeFileRoots {
		if dir := kustomizationRoot(p); dir != "" {
			return []unit{{name: filepath.ToSlash(dir), path: dir, kind: kustomizeUnit}}
		}
	}
	return []unit{{name: filepath.ToSlash(p), path: p, kind: fileUnit}}
}

// kustomizationRoot returns the nearest directory at or above file's own
// that holds a kustomization file, or "". The search stops at a repository
// root (a directory holding .git), and a relative path is not followed above
// the working directory, so an unrelated kustomization outside the tree
// being checked never swallows a file.
func kustomizationRoot(file string) string {
	for dir := filepath.Dir(file); ; {
		if KustomizationFile(dir) != "" {
			return dir
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// expandPaths expands every command-line path into units, keeping one unit
// per kustomization root when several named files share it.
func expandPaths(paths []string, opts Options) ([]unit, error) {
	var units []unit
	seen := map[string]bool{}
	for _, p := range paths {
		us, err := expand(p, opts)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if u.kind == kustomizeUnit || u.kind == chartUnit {
				key := filepath.Clean(u.path)
				if seen[key] {
					continue
				}
				seen[key] = true
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
		if IsChartDir(dir) {
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
