package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Confine checks that every path the file names (nodes, policies,
// baseline, Helm charts and their values files) stays inside root, the
// repository's root: a configuration belongs to the repository under
// check, which must not make a run read files elsewhere on the machine
// (a values file that is ~/.docker/config.json, printed into a finding
// by a template). A path is refused when it is absolute, or when it
// leaves root once joined to the file's directory and its symbolic links
// are resolved. The error names the file, line and key. The same paths
// given as flags are the user's own and are not checked.
func (f *File) Confine(root string) error {
	if f.Dir == "" {
		return nil
	}
	realRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if r, err := filepath.EvalSymlinks(realRoot); err == nil {
		realRoot = r
	}
	check := func(p string, keys ...any) error {
		if why := outside(f.Dir, realRoot, p); why != "" {
			return fmt.Errorf("%s: %s: %q %s; only paths inside the repository root %s are read from the configuration (name it on the command line to read it)", f.WhereValue(keys...), keyName(keys), p, why, realRoot)
		}
		return nil
	}
	for i, p := range f.Nodes {
		if err := check(p, "nodes", i); err != nil {
			return err
		}
	}
	for i, p := range f.Policies {
		if err := check(p, "policies", i); err != nil {
			return err
		}
	}
	if f.Baseline != "" {
		if err := check(f.Baseline, "baseline"); err != nil {
			return err
		}
	}
	if f.Helm != nil {
		charts := make([]string, 0, len(f.Helm.Charts))
		for p := range f.Helm.Charts {
			charts = append(charts, p)
		}
		slices.Sort(charts)
		for _, p := range charts {
			if err := check(p, "helm", "charts", p); err != nil {
				return err
			}
			for i, v := range f.Helm.Charts[p].Values {
				if err := check(v, "helm", "charts", p, "values", i); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// outside says why p, relative to dir, is not inside realRoot (a path
// with its links resolved), or "" when it is.
func outside(dir, realRoot, p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "is absolute"
	}
	full := filepath.Join(dir, p)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		full = filepath.Join(r, p)
	}
	if !within(realRoot, full) {
		return "leaves the repository"
	}
	if _, err := os.Lstat(full); err != nil {
		return "" // missing: said where it is looked up
	}
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "is a symbolic link that does not resolve"
	}
	if !within(realRoot, target) {
		return fmt.Sprintf("leads outside the repository through a symbolic link (to %s)", target)
	}
	return ""
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// keyName is a setting's name in messages: helm.charts[deploy/chart].values[0].
func keyName(keys []any) string {
	var b strings.Builder
	for i, k := range keys {
		switch k := k.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		case string:
			if i > 0 && i == 2 && keys[0] == "helm" {
				fmt.Fprintf(&b, "[%s]", k)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		}
	}
	return b.String()
}
