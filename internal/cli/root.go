package cli

import (
	"os"
	"path/filepath"

	"github.com/taintlint/taintlint/internal/config"
)

// repoRoot is the repository's root, inside which a link met in a walk
// must lead (loader.Options.Root): the directory of the configuration
// file in use when it holds every checked path, else the git top level of
// the first checked path (the nearest directory at or above it holding
// .git), else the working directory. A configuration named from
// elsewhere (--config .github/taintlint.yaml) does not make the
// repository's own links lead "outside" it.
func repoRoot(cfg *config.File, paths []string, env Env) string {
	wd := env.Dir
	if wd == "" {
		wd = "."
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return "."
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		return filepath.Clean(p)
	}
	if cfg.Dir != "" && holdsAll(cfg.Dir, paths, abs) {
		return cfg.Dir
	}
	for _, p := range paths {
		if p == "-" {
			continue
		}
		if top := gitTop(abs(p)); top != "" {
			return top
		}
		break
	}
	return wd
}

// configRoot is the root the paths a configuration names must stay
// inside (config.File.Confine): the configuration's own directory, whose
// files it names relative to itself, else repoRoot.
func configRoot(cfg *config.File, paths []string, env Env) string {
	if cfg.Dir != "" {
		return cfg.Dir
	}
	return repoRoot(cfg, paths, env)
}

// holdsAll says whether every path (made absolute by abs; standard input
// aside) lies in dir.
func holdsAll(dir string, paths []string, abs func(string) string) bool {
	for _, p := range paths {
		if p == "-" {
			continue
		}
		rel, err := filepath.Rel(dir, abs(p))
		if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
			return false
		}
	}
	return true
}

// gitTop is the nearest directory at or above p that holds .git, or "".
func gitTop(p string) string {
	dir := filepath.Clean(p)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// outsideOwnDir says why the file at path, when it is a symbolic link,
// leads outside its own directory, or "".
func outsideOwnDir(path string) string {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return ""
	}
	if rel, err := filepath.Rel(dir, target); err != nil || !filepath.IsLocal(rel) {
		return "symbolic link leads outside the repository (to " + target + ")"
	}
	return ""
}
