package loader

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/taintlint/taintlint/internal/testfs"
	"github.com/taintlint/taintlint/internal/testnet"
	"github.com/taintlint/taintlint/loader/internal/kustomize"
	"github.com/taintlint/taintlint/loader/internal/kusttree"
	"sigs.k8s.io/kustomize/api/types"
)

// fence is what a test of the remote refusal watches: a git on PATH that
// records being run, an HTTP listener on loopback that records every
// connection, and an empty temporary directory.
type fence struct {
	gitLog string
	conns  *atomic.Int32
	host   string
	tmp    string
	work   string // where a test writes its kustomizations
}

func newFence(t *testing.T) *fence {
	t.Helper()
	bin := t.TempDir()
	f := &fence{gitLog: filepath.Join(bin, "git-ran"), tmp: t.TempDir(), work: t.TempDir()}
	testfs.Write(t, bin, map[string]string{"git": "#!/bin/sh\necho \"$@\" >> " + f.gitLog + "\nexit 1\n"})
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TMPDIR", f.tmp)
	f.host, f.conns = testnet.Listen(t)
	return f
}

// check fails the test if git ran, a connection came, or anything was
// left in the temporary directory since the last check, and resets all
// three, so that each case answers for itself.
func (f *fence) check(t *testing.T) {
	t.Helper()
	if data, err := os.ReadFile(f.gitLog); err == nil {
		t.Errorf("git ran: %s", data)
		os.Remove(f.gitLog)
	}
	if n := f.conns.Swap(0); n > 0 {
		t.Errorf("%d connections to the loopback listener", n)
	}
	if left, _ := os.ReadDir(f.tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
			os.RemoveAll(filepath.Join(f.tmp, e.Name()))
		}
		t.Errorf("left in the temporary directory: %v", names)
	}
}

// oddKeys respells every mapping key of a kustomization in a way
// kustomize's decoding still accepts: upper case, or with each s as the
// long s (ſ), which Unicode folding makes an s.
func oddKeys(kust string, longS bool) string {
	lines := strings.Split(kust, "\n")
	for i, l := range lines {
		rest := strings.TrimLeft(l, " -")
		k, v, ok := strings.Cut(rest, ":")
		if !ok || k == "" || v != "" && v[0] != ' ' || strings.IndexFunc(k, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		nk := strings.ToUpper(k)
		if longS {
			nk = strings.ReplaceAll(k, "s", "ſ")
		}
		lines[i] = l[:len(l)-len(rest)] + nk + ":" + v
	}
	return strings.Join(lines, "\n")
}

// TestKustomizeRemoteNeverFetched refuses every field kustomize fetches
// from, however it is spelt or tagged and however deep, and proves that
// nothing was fetched: a git on PATH that records being run never ran,
// an HTTP listener on loopback (which every URL names) saw no connection,
// and the temporary directory stays empty. Each reference is a note at
// its line, and the local rest of the kustomization is still built.
func TestKustomizeRemoteNeverFetched(t *testing.T) {
	f := newFence(t)
	httpURL := "http://" + f.host + "/x.yaml"
	gitURLs := []string{
		"http://" + f.host + "/org/repo.git//base?ref=v1",
		"git::http://" + f.host + "/org/repo",
		"ssh://git@" + f.host + "/org/repo.git",
	}
	local := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n"
	cases := []struct {
		name, kust string // kust: %s is the URL, on line 2 unless line is set
		line       int
		urls       []string
	}{
		{name: "resources", kust: "resources:\n- %s\n- local.yaml\n", urls: append([]string{httpURL}, gitURLs...)},
		{name: "bases", kust: "bases:\n- %s\nresources:\n- local.yaml\n", urls: gitURLs},
		{name: "components", kust: "components:\n- %s\nresources:\n- local.yaml\n", urls: gitURLs},
		{name: "crds", kust: "crds:\n- %s\nresources:\n- local.yaml\n", urls: []string{httpURL}},
		{name: "openapi.path", kust: "openapi:\n  path: %s\nresources:\n- local.yaml\n", urls: []string{httpURL}},
		{name: "configurations", kust: "configurations:\n- %s\nresources:\n- local.yaml\n", urls: []string{httpURL}},
		{name: "configMapGenerator.files", kust: "configMapGenerator:\n- name: gen\n  files:\n  - %s\nresources:\n- local.yaml\n", line: 4, urls: []string{httpURL}},
		{name: "configMapGenerator.envs", kust: "configMapGenerator:\n- name: gen\n  envs:\n  - %s\nresources:\n- local.yaml\n", line: 4, urls: []string{httpURL}},
		{name: "secretGenerator.files", kust: "secretGenerator:\n- name: gen\n  files:\n  - %s\nresources:\n- local.yaml\n", line: 4, urls: []string{httpURL}},
		{name: "patches.path", kust: "patches:\n- path: %s\nresources:\n- local.yaml\n", urls: []string{httpURL}},
		{name: "patchesStrategicMerge", kust: "patchesStrategicMerge:\n- %s\nresources:\n- local.yaml\n", urls: []string{httpURL}},
		{name: "patchesJson6902.path", kust: "patchesJson6902:\n- path: %s\n  target: {kind: ConfigMap, name: local}\nresources:\n- local.yaml\n", urls: []string{httpURL}},
		{name: "transformers", kust: "transformers:\n- %s\nresources:\n- local.yaml\n", urls: append([]string{httpURL}, gitURLs...)},
		{name: "generators", kust: "generators:\n- %s\nresources:\n- local.yaml\n", urls: append([]string{httpURL}, gitURLs...)},
		{name: "replacements.path", kust: "replacements:\n- path: %s\nresources:\n- local.yaml\n", urls: []string{httpURL}},
	}
	// refused is false where kustomize itself ignores the reference: the
	// openapi map is read by its exact key "path", so a respelt key is
	// no reference at all (and is not refused).
	run := func(t *testing.T, kust, url string, line int, depth int, refused bool) {
		t.Helper()
		root, err := os.MkdirTemp(f.work, "")
		if err != nil {
			t.Fatal(err)
		}
		dir := root
		for range depth {
			testfs.Write(t, dir, map[string]string{"kustomization.yaml": "resources:\n- b\n"})
			dir = filepath.Join(dir, "b")
		}
		testfs.Write(t, dir, map[string]string{"kustomization.yaml": kust, "local.yaml": local})
		r := buildKustomization(context.Background(), root, "k", Options{})
		want := path.Join("k", strings.Repeat("b/", depth)+"kustomization.yaml") + fmt.Sprintf(":%d:", line)
		found := false
		for _, n := range r.Notes {
			if strings.HasPrefix(n, want) && strings.Contains(n, "is not fetched") && strings.Contains(n, url) {
				found = true
			}
		}
		for _, e := range r.Errors {
			t.Errorf("unexpected error: %v", e)
		}
		if found != refused {
			t.Errorf("refused at %s naming %s: %v, want %v; notes: %q", want, url, found, refused, r.Notes)
		}
		built := false
		for _, o := range r.Objects {
			built = built || o.Name == "local"
		}
		if !built {
			t.Errorf("built %d objects, not the local ConfigMap", len(r.Objects))
		}
		f.check(t)
	}
	for _, c := range cases {
		line := c.line
		if line == 0 {
			line = 2
		}
		for i, url := range c.urls {
			val := url
			if c.name == "configMapGenerator.files" || c.name == "secretGenerator.files" {
				val = "key=" + url
			}
			b64 := base64.StdEncoding.EncodeToString([]byte(val))
			variants := []struct{ name, kust string }{
				{"plain", fmt.Sprintf(c.kust, val)},
				{"upper", oddKeys(fmt.Sprintf(c.kust, val), false)},
				{"long-s", oddKeys(fmt.Sprintf(c.kust, val), true)},
				{"binary", fmt.Sprintf(c.kust, "!!binary "+b64)},
				{"quoted", fmt.Sprintf(c.kust, "!!str \""+val+"\"")},
			}
			for _, v := range variants {
				t.Run(fmt.Sprintf("%s/%d/%s", c.name, i, v.name), func(t *testing.T) {
					run(t, v.kust, val, line, 0, c.name != "openapi.path" || v.name != "upper")
				})
			}
			if i == 0 {
				t.Run(c.name+"/depth70", func(t *testing.T) {
					run(t, oddKeys(fmt.Sprintf(c.kust, "!!binary "+b64), true), val, line, 70, true)
				})
			}
		}
	}
}

// TestKustomizeSandbox covers references that only the build worker's
// sandbox can stop: a URL kustomize reads from a builtin plugin
// configuration that a transformers directory produces, which no reading
// of kustomization files sees, and a kustomization file reached through a
// symlink with another name. Each build fails with an Error or refuses
// with a note, and nothing is fetched.
func TestKustomizeSandbox(t *testing.T) {
	f := newFence(t)
	url := "http://" + f.host + "/patch.yaml"
	local := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n"
	tests := []struct {
		name  string
		files map[string]string
		link  string // kustomization.yaml -> link, when set
		want  string // substring of an Error
	}{
		{name: "plugin configuration from a transformers directory", files: map[string]string{
			"kustomization.yaml":      "resources:\n- local.yaml\ntransformers:\n- tdir\n",
			"local.yaml":              local,
			"tdir/kustomization.yaml": "resources:\n- pt.yaml\n",
			"tdir/pt.yaml":            "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: pt\npath: " + url + "\ntarget:\n  kind: ConfigMap\n",
		}, want: "--allow-remote"},
		{name: "inline plugin configuration", files: map[string]string{
			"kustomization.yaml": "resources:\n- local.yaml\ntransformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata:\n    name: pt\n  path: " + url + "\n  target:\n    kind: ConfigMap\n",
			"local.yaml":         local,
		}, want: "kustomization.yaml:4:3: remote kustomize file"},
		{name: "symlinked kustomization file", link: "real.yaml", files: map[string]string{
			"real.yaml":  "resources:\n- " + url + "\n- local.yaml\n",
			"local.yaml": local,
		}, want: "kustomization.yaml:2:3: remote kustomize resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := os.MkdirTemp(f.work, "")
			if err != nil {
				t.Fatal(err)
			}
			testfs.Write(t, dir, tt.files)
			if tt.link != "" {
				if err := os.Symlink(tt.link, filepath.Join(dir, "kustomization.yaml")); err != nil {
					t.Fatal(err)
				}
			}
			r := buildKustomization(context.Background(), dir, "k", Options{})
			var got []string
			for _, e := range r.Errors {
				got = append(got, e.Error())
			}
			got = append(got, r.Notes...) // remote references the worker left out
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("errors and notes %q, want one with %q", got, tt.want)
			}
			f.check(t)
		})
	}
}

// kustomizeReading lists the references that kustomize's own reading of a
// kustomization file loads, remote (kustomize.IsRemote) and local, read the way its
// KustTarget reads them: typed decoding (types.Kustomization.Unmarshal),
// then FixKustomization, then each field that names a file, directory or
// repository. ok is false when kustomize cannot decode the file.
func kustomizeReading(data []byte, dir string) (remote, local []string, ok bool) {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return nil, nil, false
	}
	k.FixKustomization()
	add := func(s, p string) {
		switch {
		case kustomize.IsRemote(p, dir):
			remote = append(remote, s)
		case s != "":
			local = append(local, s)
		}
	}
	for _, l := range [][]string{k.Resources, k.Components, k.Crds, k.Configurations, k.Generators, k.Transformers, k.Validators} {
		for _, s := range l {
			add(s, s)
		}
	}
	for _, p := range k.PatchesStrategicMerge {
		add(string(p), string(p))
	}
	for _, l := range [][]types.Patch{k.Patches, k.PatchesJson6902} {
		for _, p := range l {
			add(p.Path, p.Path)
		}
	}
	for _, r := range k.Replacements {
		add(r.Path, r.Path)
	}
	var gens []types.GeneratorArgs
	for _, g := range k.ConfigMapGenerator {
		gens = append(gens, g.GeneratorArgs)
	}
	for _, g := range k.SecretGenerator {
		gens = append(gens, g.GeneratorArgs)
	}
	for _, g := range gens {
		for _, f := range g.FileSources {
			add(f, kustomize.FileSourcePath(f))
		}
		for _, e := range g.EnvSources {
			add(e, e)
		}
	}
	if p, ok := k.OpenAPI["path"]; ok {
		add(p, p)
	}
	slices.Sort(remote)
	slices.Sort(local)
	return slices.Compact(remote), local, true
}

// FuzzKustomizationRemote reads one kustomization file both ways: the
// pre-scan (which remote references taintlint names, at which line) and
// kustomize's own typed decoding (kustomizeReading). They must agree on
// which references are remote; and the file the build worker hands
// kustomize instead (kustomize.WithoutRemote) must, read by kustomize, name nothing
// remote and every local reference of the original.
func FuzzKustomizationRemote(f *testing.F) {
	seeds := []string{
		"resources:\n- github.com/example/manifests//base?ref=v1.0.0\n- https://example.com/d.yaml\n- local.yaml\ncomponents:\n- git@github.com:example/c.git//t\n",
		"RESOURCES:\n- https://example.com/d.yaml\nreſources:\n- local.yaml\n",
		"resources:\n- !!binary aHR0cHM6Ly9leGFtcGxlLmNvbS9kLnlhbWw=\n",
		"x: &a [https://example.com/a.yaml]\n",
		"bases: &b\n- git::https://example.com/r\ncomponents: *b\n",
		"{\"resources\": [\"https://example.com/d.yaml\"], \"Resources\": [\"local.yaml\"]}\n",
		"configMapGenerator:\n- name: c\n  files:\n  - k=https://example.com/f\n  - https://example.com/g\n  envs: [ssh://h/e]\n  env: git@h:e\n",
		"patches:\n- path: https://example.com/p.yaml\n- patch: |\n    kind: X\npatchesJson6902:\n- path: http://h/j.yaml\n  target: {kind: X}\npatchesStrategicMerge:\n- http://h/s.yaml\n",
		"openapi:\n  path: https://example.com/s.json\nreplacements:\n- path: https://example.com/r.yaml\ncrds: [https://h/c.yaml]\nconfigurations: [https://h/c.yaml]\n",
		"transformers:\n- https://h/t.yaml\n- |\n  apiVersion: builtin\n  kind: LabelTransformer\ngenerators: [git@h:g]\nvalidators: [ssh://h/v]\n",
		"<<: {resources: [https://h/m.yaml]}\n",
		"resources: [https://h/a.yaml, https://h/a.yaml]\nresources: [local.yaml]\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		remote, local, ok := kustomizeReading(data, dir)
		named, notes, refused := kusttree.Remote(dir, "k", kustHooks(Options{}))
		if refused {
			return // the file is refused as a whole: nothing is built
		}
		if !slices.Equal(named, remote) {
			t.Fatalf("pre-scan names %q remote, kustomize's reading %q", named, remote)
		}
		for _, e := range notes {
			if e.Pos.File != "k/kustomization.yaml" || e.Pos.Line < 1 {
				t.Fatalf("refusal without a place: %v", e)
			}
		}
		if !ok {
			return
		}
		out, _ := kustomize.WithoutRemote(data, dir, false)
		r2, l2, ok2 := kustomizeReading(out, dir)
		if !ok2 || len(r2) > 0 {
			t.Fatalf("what kustomize reads instead (%s): decodes %v, remote %q", out, ok2, r2)
		}
		slices.Sort(l2)
		if !slices.Equal(local, l2) {
			t.Fatalf("local references %q became %q", local, l2)
		}
	})
}

// TestKustomizeHelmNeverPulls: with --enable-helm and without
// --allow-remote, kustomize runs helm through the worker's shim, which
// refuses what would download: a chart kustomize does not find under
// charts/ (helm pull from the chart's repo), an OCI chart, a values file
// named by URL (which kustomize itself reads, so the worker's sandbox
// refuses it). The refusal of helm is an error at the helmCharts line; the
// stand-in helm on PATH records every command it is given, and no
// connection reaches the loopback listener that every URL names. With
// --allow-remote, helm pull does run (so it is the shim that stops it).
func TestKustomizeHelmNeverPulls(t *testing.T) {
	f := newFence(t)
	bin := t.TempDir()
	helmLog := filepath.Join(bin, "helm-ran")
	script := "#!/bin/sh\necho \"$@\" >> " + helmLog + "\ncase \"$1\" in\nversion) echo v3.16.0+gabc ;;\ntemplate) printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: from-helm\\n' ;;\n*) exit 1 ;;\nesac\n"
	testfs.Write(t, bin, map[string]string{"helm": script})
	if err := os.Chmod(filepath.Join(bin, "helm"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	local := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n"
	chart := map[string]string{
		"charts/chart/Chart.yaml":  "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
		"charts/chart/values.yaml": "{}\n",
	}
	tests := []struct {
		name, kust string
		files      map[string]string
		want       string // the error: its position, or a part of it
	}{
		{"repo", "resources:\n- local.yaml\nhelmCharts:\n- name: absent\n  repo: http://" + f.host + "/charts\n  version: 1.0.0\n", nil, "k/kustomization.yaml:3:1: kustomize build failed: taintlint did not run `helm pull"},
		{"oci", "resources:\n- local.yaml\nhelmCharts:\n- name: absent\n  repo: oci://" + f.host + "/charts\n", nil, "k/kustomization.yaml:3:1: kustomize build failed: taintlint did not run `helm pull"},
		{"values by URL", "resources:\n- local.yaml\nhelmCharts:\n- name: chart\n  releaseName: rel\n  additionalValuesFiles:\n  - http://" + f.host + "/values.yaml\n", chart, "taintlint never reaches the network unless run with --allow-remote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := os.MkdirTemp(f.work, "")
			if err != nil {
				t.Fatal(err)
			}
			testfs.Write(t, dir, map[string]string{"kustomization.yaml": tt.kust, "local.yaml": local})
			testfs.Write(t, dir, tt.files)
			os.Remove(helmLog)
			r := buildKustomization(context.Background(), dir, "k", Options{EnableHelm: true})
			if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Error(), tt.want) {
				t.Errorf("errors %v, want one with %q", r.Errors, tt.want)
			}
			data, _ := os.ReadFile(helmLog)
			for _, cmd := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if cmd != "" && !strings.HasPrefix(cmd, "version") {
					t.Errorf("helm ran: %s", cmd)
				}
			}
			f.check(t)
		})
	}
	t.Run("allowed", func(t *testing.T) {
		dir, err := os.MkdirTemp(f.work, "")
		if err != nil {
			t.Fatal(err)
		}
		testfs.Write(t, dir, map[string]string{"kustomization.yaml": tests[0].kust, "local.yaml": local})
		os.Remove(helmLog)
		buildKustomization(context.Background(), dir, "k", Options{EnableHelm: true, AllowRemote: true})
		if data, _ := os.ReadFile(helmLog); !strings.Contains(string(data), "pull") {
			t.Errorf("with AllowRemote, helm ran %q, want a pull", data)
		}
	})
}

// TestRemoteNoteOnce: overlays that share a base with a remote reference
// each build it, and the run notes the reference once.
func TestRemoteNoteOnce(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"base/kustomization.yaml": "resources:\n- https://example.com/x.yaml\n- cm.yaml\n",
		"base/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
		"a/kustomization.yaml":    "resources: [../base]\nnamePrefix: a-\n",
		"b/kustomization.yaml":    "resources: [../base]\nnamePrefix: b-\n",
	})
	r, err := Load(context.Background(), []string{dir}, Options{Kustomize: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Objects) != 2 || len(r.Errors) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "base/kustomization.yaml:2:3: remote kustomize resource") {
		t.Errorf("%d objects, errors %v, notes %q; want 2 objects and one note", len(r.Objects), r.Errors, r.Notes)
	}
}
