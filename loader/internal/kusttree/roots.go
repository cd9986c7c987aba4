package kusttree

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/input"
)

// Which kustomizations to build is decided as `kustomize build` would be
// run on a repository: every root, once. A kustomization that another one
// includes (a base, a Component) is built through it and not again alone;
// a Component is never built alone (kustomize refuses to), and one that no
// kustomization in the checked paths includes is a note, not an error.
// Kustomizations nested below another's directory are found too: an
// overlays/ tree below a base's directory holds roots of its own.

// Dirs lists the kustomization directories at or below root,
// in walk order; hidden directories, ignored paths and symbolic links to
// directories are left out, as in a walk.
func Dirs(root string, h Hooks) []string {
	var dirs []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != root && (strings.HasPrefix(d.Name(), ".") || h.Ignore != nil && h.Ignore(filepath.ToSlash(p), true)) {
			return fs.SkipDir
		}
		if File(p) != "" {
			dirs = append(dirs, p)
		}
		return nil
	})
	return dirs
}

// isComponent reports whether the kustomization in dir is a Component.
func isComponent(dir string, h Hooks) bool {
	f := File(dir)
	if f == "" {
		return false
	}
	data, err := input.ReadFile(f, nil)
	if err != nil {
		return false
	}
	r := h.Parse(f, data)
	if len(r.Objects) == 1 {
		return r.Objects[0].Kind == "Component"
	}
	return false
}

// Roots splits kustomization directories into the roots to build (not
// included by another of dirs, unless they include each other) and the
// Components that none of the roots includes.
func Roots(dirs []string, h Hooks) (roots, orphans []string) {
	reach := make(map[string]map[string]bool, len(dirs))
	comp := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		k := realDir(d)
		if _, ok := reach[k]; ok {
			continue
		}
		comp[k] = isComponent(d, h)
		if len(dirs) > 1 {
			reach[k] = reachable(d, h)
		} else {
			reach[k] = nil
		}
	}
	included := map[string]bool{}
	for a, ra := range reach {
		if comp[a] {
			continue
		}
		for b := range ra {
			if a != b && !reach[b][a] {
				included[b] = true
			}
		}
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		k := realDir(d)
		if seen[k] {
			continue
		}
		seen[k] = true
		switch {
		case included[k]:
		case comp[k]:
			orphans = append(orphans, d)
		default:
			roots = append(roots, d)
		}
	}
	return roots, orphans
}

// OrphanNote is the note for a Component no kustomization includes.
func OrphanNote(dir string) string {
	return filepath.ToSlash(dir) + ": a Kustomize Component is checked through the kustomizations that include it (components:), and none in the checked paths does; it was not built"
}

// RootsIncluding returns the kustomization roots of the area around owner
// (the repository holding it) whose build includes the kustomization in
// owner, and whether owner is a Component.
func RootsIncluding(owner string, h Hooks) (roots []string, component bool) {
	area := areaOf(owner)
	dirs := Dirs(area, h)
	all, _ := Roots(dirs, h)
	want := realDir(owner)
	for _, r := range all {
		if realDir(r) == want || reachable(r, h)[want] {
			roots = append(roots, r)
		}
	}
	return roots, isComponent(owner, h)
}

// areaOf is the directory searched for kustomizations that include dir:
// the repository holding it (the nearest directory with .git), or, outside
// a repository, the working directory when dir lies below it, else dir.
func areaOf(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if !filepath.IsAbs(dir) && !strings.HasPrefix(filepath.Clean(dir), "..") {
		return "."
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, dir); err == nil && !strings.HasPrefix(rel, "..") {
			return wd
		}
	}
	return dir
}

// Owner returns the nearest directory at or above file's own
// that holds a kustomization file, or "". The search stops at a repository
// root (a directory holding .git), and a relative path is not followed above
// the working directory, so an unrelated kustomization outside the tree
// being checked never swallows a file.
func Owner(file string) string {
	for dir := filepath.Dir(file); ; {
		if File(dir) != "" {
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
