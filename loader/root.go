package loader

import (
	"fmt"
	"path/filepath"
)

// linkOutside says why the symbolic link at path, met in a walk of top,
// is not followed: its target lies outside both opts.Root (the
// repository's root) and top (the directory named to the run). "" when
// it may be read, or when no Root is set. A repository must not make a
// run read a file elsewhere on the machine into its report by committing
// a link to it; the link is a parse-error at itself, its target never
// opened.
func linkOutside(opts Options, top, path string) string {
	if opts.Root == "" {
		return ""
	}
	// Absolute before it is resolved: a relative path resolves to a
	// relative target, which no absolute root would contain.
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "" // dangling or a loop: reported as such
	}
	for _, dir := range []string{opts.Root, top} {
		if abs, err := filepath.Abs(dir); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			if rel, err := filepath.Rel(abs, target); err == nil && filepath.IsLocal(rel) {
				return ""
			}
		}
	}
	return fmt.Sprintf("symbolic link leads outside the repository (to %s): not followed", target)
}
