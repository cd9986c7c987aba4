package rego

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/taintlint/taintlint/internal/safeio"
	"github.com/taintlint/taintlint/rules"
)

// embedded holds taintlint's own policies and their tests; Load skips the
// *_test.rego files, TestPolicies runs them.
//
//go:embed policies
var embedded embed.FS

// embeddedDir is where the embedded policies live in the repository; their
// file names in errors and in Rule.File start with it.
const embeddedDir = "rego/policies"

// reservedRoot is the package root of the embedded policies. Custom
// policies may not use it, so they cannot add rules to (or change) an
// embedded rule's package.
const reservedRoot = "taintlint"

// source is one policy file.
type source struct {
	file string // as shown in errors: embedded paths under embeddedDir, custom paths as walked
	text string
	kind rules.Source
}

// Load compiles the embedded policies and the custom ones in dirs (each a
// directory walked recursively for *.rego files, *_test.rego skipped, or a
// single .rego file) and returns one rule per rule package, embedded rules
// first. Everything is parsed and compiled once, in strict mode with
// restricted capabilities, and each rule's deny query is prepared once.
//
// A policy that cannot be read, parsed or compiled, or whose metadata is
// missing or wrong, is an error naming its file and line. ctx also bounds
// the evaluation of the returned rules: they belong to one run.
func Load(ctx context.Context, dirs []string) ([]*rules.Rule, error) {
	return LoadLimited(ctx, dirs, Limits{})
}

// LoadLimited is Load with the evaluation of the rules bounded by lim.
func LoadLimited(ctx context.Context, dirs []string, lim Limits) ([]*rules.Rule, error) {
	e, rs, err := loadCharged(ctx, dirs, lim.Input)
	if e != nil {
		e.lim = lim
	}
	return rs, err
}

// load compiles the embedded policies and the custom ones in dirs.
func load(ctx context.Context, dirs []string) (*engine, []*rules.Rule, error) {
	return loadCharged(ctx, dirs, nil)
}

// loadCharged is load with the custom policy files charged to input.
func loadCharged(ctx context.Context, dirs []string, input safeio.Budget) (*engine, []*rules.Rule, error) {
	srcs, err := embeddedSources()
	if err != nil {
		return nil, nil, err
	}
	custom, err := customSources(dirs, input)
	if err != nil {
		return nil, nil, err
	}
	return compile(ctx, append(srcs, custom...), true)
}

func embeddedSources() ([]source, error) {
	entries, err := fs.ReadDir(embedded, "policies")
	if err != nil {
		return nil, fmt.Errorf("reading embedded policies: %w", err)
	}
	var out []source
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isPolicyFile(name) {
			continue
		}
		data, err := fs.ReadFile(embedded, "policies/"+name)
		if err != nil {
			return nil, fmt.Errorf("reading embedded policy %s: %w", name, err)
		}
		out = append(out, source{file: path.Join(embeddedDir, name), text: string(data), kind: rules.EmbeddedRego})
	}
	return out, nil
}

// isPolicyFile reports whether a file name is a policy (not a test).
func isPolicyFile(name string) bool {
	return strings.HasSuffix(name, ".rego") && !strings.HasSuffix(name, "_test.rego")
}

// customSources reads the policy files of dirs in a stable order. Hidden
// directories (.git) are skipped; a file reached twice is read once.
func customSources(dirs []string, input safeio.Budget) ([]source, error) {
	var out []source
	seen := map[string]bool{}
	add := func(p string) error {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("policy %s: %w", p, err)
		}
		if seen[abs] {
			return nil
		}
		seen[abs] = true
		data, err := safeio.ReadFile(p, input, MaxPolicySize)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return fmt.Errorf("reading policy: %w", err)
			}
			return fmt.Errorf("reading policy %s: %w", p, err)
		}
		out = append(out, source{file: filepath.ToSlash(p), text: string(data), kind: rules.CustomRego})
		return nil
	}
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("policy directory: %w", err)
		}
		if !info.IsDir() {
			if !strings.HasSuffix(dir, ".rego") {
				return nil, fmt.Errorf("policy %s: not a directory or a .rego file", dir)
			}
			if err := add(dir); err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("walking policy directory: %w", err)
			}
			if d.IsDir() {
				if p != dir && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !isPolicyFile(d.Name()) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 && !linkWithin(dir, p) {
				// A policy's parse errors quote its lines: a link to a
				// kubeconfig would print it.
				return fmt.Errorf("policy %s: symbolic link leads outside the policy directory: not read", p)
			}
			return add(p)
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// linkWithin reports whether the link at p resolves to a file inside dir
// (links resolved too).
func linkWithin(dir, p string) bool {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true // dangling: reading it fails and says so
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && filepath.IsLocal(rel)
}
