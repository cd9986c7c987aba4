package rego

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/taintlint/taintlint/rules"
)

// TestPolicies runs the _test.rego files beside the embedded policies
// through OPA's tester, compiled the way Load compiles policies (strict,
// restricted capabilities, rego.v1).
func TestPolicies(t *testing.T) {
	runRegoTests(t, parseTree(t, embedded, "policies"))
}

// TestCustomPolicyTests runs the example custom policies' own tests, as
// their authors would with opa test, so the example stays correct.
func TestCustomPolicyTests(t *testing.T) {
	runRegoTests(t, parseTree(t, os.DirFS("../testdata/policies/valid"), "policy"))
}

// parseTree parses every .rego file under root, tests included, skipping
// hidden directories as Load does.
func parseTree(t *testing.T, fsys fs.FS, root string) map[string]*ast.Module {
	t.Helper()
	popts := ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true, Capabilities: capabilities()}
	modules := map[string]*ast.Module{}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".rego"):
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		m, err := ast.ParseModuleWithOpts(p, string(data), popts)
		if err != nil {
			return err
		}
		modules[p] = m
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return modules
}

// runRegoTests runs the test_ rules of modules, one subtest each, and
// fails when there are none.
func runRegoTests(t *testing.T, modules map[string]*ast.Module) {
	t.Helper()
	compiler := ast.NewCompiler().WithCapabilities(capabilities()).WithStrict(true).WithDefaultRegoVersion(ast.RegoV1)
	ch, err := tester.NewRunner().
		SetCompiler(compiler).
		SetDefaultRegoVersion(ast.RegoV1).
		RaiseBuiltinErrors(true).
		SetModules(modules).
		RunTests(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for r := range ch {
		ran++
		t.Run(strings.TrimPrefix(r.Package, "data.")+"."+r.Name, func(t *testing.T) {
			switch {
			case r.Error != nil:
				t.Errorf("%s: %v", r.Location, r.Error)
			case r.Fail && r.FailedAt != nil:
				t.Errorf("%s: failed at %v", r.Location, r.FailedAt)
			case r.Fail:
				t.Errorf("%s: failed", r.Location)
			}
		})
	}
	if ran == 0 {
		t.Error("no Rego test ran")
	}
}

// TestEmbeddedConventions holds every embedded policy to the layout
// contributors rely on: file named after the rule id, package
// taintlint.rules.<id with underscores>, a _test.rego beside it, and a
// source directory on disk that matches the embedded copy.
func TestEmbeddedConventions(t *testing.T) {
	all, err := Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no embedded rules")
	}
	for _, r := range all {
		t.Run(r.ID, func(t *testing.T) {
			if r.Source != rules.EmbeddedRego {
				t.Errorf("source %v, want embedded Rego", r.Source)
			}
			if want := path.Join(embeddedDir, r.ID+".rego"); r.File != want {
				t.Errorf("file %s, want %s", r.File, want)
			}
			if r.Line == 0 {
				t.Error("no line for the rule's metadata")
			}
			name := strings.TrimPrefix(r.File, embeddedDir+"/")
			src, err := fs.ReadFile(embedded, "policies/"+name)
			if err != nil {
				t.Fatal(err)
			}
			wantPkg := "package " + reservedRoot + ".rules." + strings.ReplaceAll(r.ID, "-", "_") + "\n"
			if !strings.Contains(string(src), wantPkg) {
				t.Errorf("%s: want %q", r.File, strings.TrimSpace(wantPkg))
			}
			if _, err := fs.Stat(embedded, "policies/"+strings.TrimSuffix(name, ".rego")+"_test.rego"); err != nil {
				t.Errorf("%s has no _test.rego beside it", r.File)
			}
			// Rule.File is a repository path: it must lead to the source.
			if disk, err := os.ReadFile(path.Join("policies", name)); err != nil || string(disk) != string(src) {
				t.Errorf("%s: not the embedded file (%v)", r.File, err)
			}
			if r.URL != rules.RuleURL(r.ID) {
				t.Errorf("URL %s, want %s", r.URL, rules.RuleURL(r.ID))
			}
		})
	}
}

func TestCapabilities(t *testing.T) {
	caps := capabilities()
	var names []string
	for _, b := range caps.Builtins {
		names = append(names, b.Name)
	}
	for _, name := range denied {
		if slices.Contains(names, name) {
			t.Errorf("%s is available to policies", name)
		}
	}
	for _, b := range caps.Builtins {
		if b.Nondeterministic {
			t.Errorf("non-deterministic %s is available to policies", b.Name)
		}
	}
	for _, name := range []string{"sprintf", "startswith", "regex.match", "count", "object.get", "concat"} {
		if !slices.Contains(names, name) {
			t.Errorf("%s is missing", name)
		}
	}
	if caps.AllowNet == nil || len(caps.AllowNet) != 0 {
		t.Errorf("AllowNet = %v, want empty (no host)", caps.AllowNet)
	}
}

// TestUsesFacts: only rules that read input.facts (directly or through a
// library) make taintlint compute facts.
func TestUsesFacts(t *testing.T) {
	modules := parseTree(t, embedded, "policies")
	for k, m := range parseTree(t, os.DirFS("../testdata/policies/valid"), "policy") {
		modules["valid/"+k] = m
	}
	c := ast.NewCompiler().WithCapabilities(capabilities()).WithDefaultRegoVersion(ast.RegoV1)
	c.Compile(modules)
	if c.Failed() {
		t.Fatal(c.Errors)
	}
	for pkg, want := range map[string]bool{
		"taintlint.rules.toleration_exists_with_value": false,
		"acme.gpu":      false,
		"acme.nodes":    false,
		"acme.eviction": true,
		"taintlint.rules.daemonset_pressure_tolerations": true,
		"taintlint.rules.toleration_wildcard":            false,
		"taintlint.rules.toleration_without_affinity":    true,
	} {
		ref := ast.MustParseRef("data." + pkg)
		if got := usesFacts(c, ref); got != want {
			t.Errorf("%s: usesFacts %v, want %v", pkg, got, want)
		}
	}
	// Through a library, and input passed whole.
	lib := ast.MustParseModuleWithOpts("package lib\n\nis_ds if input.facts.daemonSet\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
	user := ast.MustParseModuleWithOpts("package user\n\nimport data.lib\n\ndeny contains 1 if lib.is_ds\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
	whole := ast.MustParseModuleWithOpts("package whole\n\ndeny contains x if { x := input; x.a }\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
	c2 := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	c2.Compile(map[string]*ast.Module{"lib": lib, "user": user, "whole": whole})
	if c2.Failed() {
		t.Fatal(c2.Errors)
	}
	for _, pkg := range []string{"data.user", "data.whole"} {
		if !usesFacts(c2, ast.MustParseRef(pkg)) {
			t.Errorf("%s: facts read through a library, or input passed whole, not detected", pkg)
		}
	}
	// Node groups: only rules that may read input.facts.nodeGroups get them.
	for pkg, want := range map[string]bool{
		"taintlint.rules.daemonset_pressure_tolerations": false,
		"taintlint.rules.toleration_without_affinity":    false,
	} {
		if got := usesNodeGroups(c, ast.MustParseRef("data."+pkg)); got != want {
			t.Errorf("%s: usesNodeGroups %v, want %v", pkg, got, want)
		}
	}
	groups := ast.MustParseModuleWithOpts("package groups\n\ndeny contains g if { some g in input.facts.nodeGroups; g.selected }\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
	facts := ast.MustParseModuleWithOpts("package facts\n\ndeny contains g if { f := input.facts; some g in f.nodeGroups }\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
	computed := ast.MustParseModuleWithOpts("package computed\n\ndeny contains g if { some k in [\"nodeGroups\"]; g := input.facts[k] }\n", ast.ParserOptions{RegoVersion: ast.RegoV1})
	c3 := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	c3.Compile(map[string]*ast.Module{"lib": lib, "user": user, "whole": whole, "groups": groups, "facts": facts, "computed": computed})
	if c3.Failed() {
		t.Fatal(c3.Errors)
	}
	for pkg, want := range map[string]bool{"data.user": false, "data.whole": true, "data.groups": true, "data.facts": true, "data.computed": true} {
		if got := usesNodeGroups(c3, ast.MustParseRef(pkg)); got != want {
			t.Errorf("%s: usesNodeGroups %v, want %v", pkg, got, want)
		}
	}
}

// TestInputReads: the parts of the input a rule reads, through libraries
// too, and the ways of reading that no list of paths can describe.
func TestInputReads(t *testing.T) {
	opts := ast.ParserOptions{RegoVersion: ast.RegoV1}
	mods := map[string]*ast.Module{}
	for name, src := range map[string]string{
		"lib":      "package lib\n\nis_ds if input.facts.daemonSet\ntols := input.podSpec.tolerations\n",
		"narrow":   "package narrow\n\nimport data.lib\n\ndeny contains t.key if { lib.is_ds; some t in lib.tols; input.podSpec.tolerations[0].key == input.object.metadata.labels[\"app.kubernetes.io/name\"] }\n",
		"nested":   "package nested\n\ndeny contains 1 if { input.podSpec.nodeName; input.podSpec }\n",
		"whole":    "package whole\n\ndeny contains x if { x := input; x.a }\n",
		"computed": "package computed\n\ndeny contains k if { some k in [\"kind\", \"name\"]; input[k] == \"x\" }\n",
		"with":     "package with\n\nq if input.kind == \"Pod\"\n\ndeny contains 1 if q with input.kind as \"Pod\"\n",
	} {
		mods[name] = ast.MustParseModuleWithOpts(src, opts)
	}
	c := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	c.Compile(mods)
	if c.Failed() {
		t.Fatal(c.Errors)
	}
	for pkg, want := range map[string]string{
		"narrow":   `[input.facts.daemonSet input.object.metadata.labels["app.kubernetes.io/name"] input.podSpec.tolerations]`,
		"nested":   `[input.podSpec]`,
		"whole":    "not memoizable",
		"computed": "not memoizable",
		"with":     "not memoizable",
	} {
		reads, ok := inputReads(c, ast.MustParseRef("data."+pkg))
		got := "not memoizable"
		if ok {
			got = fmt.Sprint(reads)
		}
		if got != want {
			t.Errorf("%s: reads %s, want %s", pkg, got, want)
		}
	}
}
