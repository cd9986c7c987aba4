package loader

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taintlint/taintlint/internal/testfs"
	"github.com/taintlint/taintlint/loader/internal/kustomize"
	"github.com/taintlint/taintlint/loader/internal/kusttree"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

const kustData = "../testdata/kustomize"

func loadKustomize(t *testing.T, paths ...string) *Result {
	t.Helper()
	r, err := Load(context.Background(), paths, Options{Kustomize: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func findObject(t *testing.T, r *Result, kind, namePrefix string) *Object {
	t.Helper()
	for _, o := range r.Objects {
		if o.Kind == kind && strings.HasPrefix(o.Name, namePrefix) {
			return o
		}
	}
	var have []string
	for _, o := range r.Objects {
		have = append(have, o.Ref.String())
	}
	t.Fatalf("no %s named %s* among %v (errors: %v)", kind, namePrefix, have, r.Errors)
	return nil
}

// TestKustomizeOriginMapping checks that fields of built objects point at
// the line a person edits: the base file, a patch file, an inline patch in
// the kustomization, a JSON 6902 operation, or (Generated) the
// kustomization entry of a generator, transformer or replacement.
func TestKustomizeOriginMapping(t *testing.T) {
	r := loadKustomize(t, kustData+"/app/overlays/prod")
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %v", r.Errors)
	}
	const (
		base    = kustData + "/app/base/"
		overlay = kustData + "/app/overlays/prod/"
	)
	tests := []struct {
		name       string
		kind, obj  string
		path       string
		want       string
		exactness  Exactness
		objectFile string
	}{
		{name: "object", kind: "Deployment", obj: "prod-web", path: "", want: base + "deployment.yaml:1:1"},
		{name: "name through namePrefix", kind: "Deployment", obj: "prod-web", path: "metadata.name", want: base + "deployment.yaml:4:3"},
		{name: "base container reordered by merge", kind: "Deployment", obj: "prod-web", path: "spec.template.spec.containers[1].image", want: base + "deployment.yaml:18:9"},
		{name: "inline strategic merge patch", kind: "Deployment", obj: "prod-web", path: "spec.template.spec.containers[0].image", want: overlay + "kustomization.yaml:32:13"},
		{name: "patch file owns the list", kind: "Deployment", obj: "prod-web", path: "spec.template.spec.tolerations[1].tolerationSeconds", want: overlay + "tolerations.yaml:16:9"},
		{name: "patch file equal to base", kind: "Deployment", obj: "prod-web", path: "spec.template.spec.tolerations[0].effect", want: overlay + "tolerations.yaml:12:9"},
		{name: "JSON 6902 file", kind: "Deployment", obj: "prod-web", path: "spec.replicas", want: overlay + "replicas.json:2:43"},
		{name: "namespace transformer", kind: "Deployment", obj: "prod-web", path: "metadata.namespace", want: overlay + "kustomization.yaml:4:1", exactness: Generated},
		{name: "commonLabels transformer", kind: "Deployment", obj: "prod-web", path: "spec.selector.matchLabels[env]", want: overlay + "kustomization.yaml:6:3", exactness: Generated},
		{name: "absent field: base ancestor", kind: "Deployment", obj: "prod-web", path: "spec.template.spec.nodeSelector[disk]", want: base + "deployment.yaml:15:5", exactness: Ancestor},
		{name: "base toleration", kind: "DaemonSet", obj: "prod-agent", path: "spec.template.spec.tolerations[0].effect", want: base + "daemonset.yaml:20:9"},
		{name: "inline JSON 6902 add", kind: "DaemonSet", obj: "prod-agent", path: "spec.template.spec.tolerations[1].effect", want: overlay + "kustomization.yaml:20:9"},
		{name: "inline JSON 6902 element", kind: "DaemonSet", obj: "prod-agent", path: "spec.template.spec.tolerations[1]", want: overlay + "kustomization.yaml:17:7"},
		{name: "generated object", kind: "ConfigMap", obj: "prod-web-config-", path: "", want: base + "kustomization.yaml:7:3"},
		{name: "generated field", kind: "ConfigMap", obj: "prod-web-config-", path: "data[mode]", want: base + "kustomization.yaml:7:3", exactness: Generated},
		{name: "overlay generator", kind: "ConfigMap", obj: "prod-prod-settings-", path: "data[region]", want: overlay + "kustomization.yaml:37:3", exactness: Generated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := findObject(t, r, tt.kind, tt.obj)
			pos, ex := o.Locate(tt.path)
			if pos.String() != tt.want || ex != tt.exactness {
				t.Errorf("Locate(%q) = %s (exactness %d), want %s (exactness %d)", tt.path, pos, ex, tt.want, tt.exactness)
			}
		})
	}
	const repl = kustData + "/replacements/"
	rr := loadKustomize(t, repl)
	replacements := []struct {
		name      string
		path      string
		want      string
		exactness Exactness
	}{
		{"created by a replacement", "spec.template.spec.tolerations[0].effect", repl + "kustomization.yaml:16:7", Generated},
		{"replacement wrote the value the source has", "spec.template.spec.tolerations[1].effect", repl + "deployment.yaml:15:9", Exact},
		{"untouched by the replacement", "spec.template.spec.tolerations[2].effect", repl + "deployment.yaml:18:9", Exact},
	}
	for _, tt := range replacements {
		t.Run(tt.name, func(t *testing.T) {
			o := findObject(t, rr, "Deployment", "web")
			pos, ex := o.Locate(tt.path)
			if pos.String() != tt.want || ex != tt.exactness {
				t.Errorf("Locate(%q) = %s (exactness %d), want %s (exactness %d)", tt.path, pos, ex, tt.want, tt.exactness)
			}
		})
	}
	const comp = kustData + "/component/"
	rc := loadKustomize(t, comp+"overlay")
	components := []struct {
		name, path, want string
	}{
		{"component patch", "spec.template.spec.tolerations[1].effect", comp + "spot/spot.yaml:3:40"},
		{"component patch element", "spec.template.spec.tolerations[1]", comp + "spot/spot.yaml:3:3"},
		{"base under a component", "spec.template.spec.tolerations[0].effect", base + "daemonset.yaml:20:9"},
	}
	for _, tt := range components {
		t.Run(tt.name, func(t *testing.T) {
			o := findObject(t, rc, "DaemonSet", "agent-c")
			if pos, ex := o.Locate(tt.path); pos.String() != tt.want || ex != Exact {
				t.Errorf("Locate(%q) = %s (exactness %d), want %s", tt.path, pos, ex, tt.want)
			}
		})
	}
	rd := loadKustomize(t, kustData+"/app/overlays/dev")
	if pos, ex := findObject(t, rd, "Deployment", "web-dev").Locate("spec.replicas"); pos.String() != kustData+"/app/overlays/dev/kustomization.yaml:4:1" || ex != Generated {
		t.Errorf("replicas transformer: Locate(spec.replicas) = %s (exactness %d)", pos, ex)
	}
	if o := findObject(t, r, "Deployment", "prod-web"); o.File != base+"deployment.yaml" || o.Namespace != "prod" {
		t.Errorf("object file %q namespace %q, want the base file and the overlay's namespace", o.File, o.Namespace)
	}
}

// TestKustomizeRefusals checks that what would run a program or leave the
// kustomization root is an Error at the line naming it, and nothing is
// built; a remote reference is a note at its line, left out while the
// local rest is built and checked.
func TestKustomizeRefusals(t *testing.T) {
	tests := []struct {
		dir     string
		want    []string // "file:line:col: message substring"
		notes   []string // the same, of notes
		objects int
	}{
		{dir: "remote", objects: 2, notes: []string{
			"remote/kustomization.yaml:2:3: remote kustomize resource \"github.com/example/manifests//base?ref=v1.0.0\" is not fetched",
			"remote/kustomization.yaml:3:3: remote kustomize resource \"https://example.com/manifests/deployment.yaml\" is not fetched",
			"remote/kustomization.yaml:6:3: remote kustomize component \"git@github.com:example/components.git//tolerations\" is not fetched",
			"remote/kustomization.yaml:8:9: remote kustomize patch \"https://example.com/manifests/patch.yaml\" is not fetched",
		}},
		{dir: "helm", want: []string{"helm/kustomization.yaml:1:1: kustomize helmCharts: Helm charts are not inflated"}},
		{dir: "exec-fn", want: []string{
			"exec-fn/kustomization.yaml:4:3: kustomize plugin MarkerGenerator \"marker\" (apiVersion example.com/v1) in marker-fn.yaml is not run",
			"exec-fn/kustomization.yaml:6:3: kustomize plugin MarkerTransformer \"inline-marker\"",
		}},
		{dir: "legacy-plugin", want: []string{"legacy-plugin/kustomization.yaml:4:3: kustomize plugin MarkerGenerator \"marker\""}},
		{dir: "outside/root", want: []string{"outside/root/kustomization.yaml:3:3: kustomize build failed: accumulating resources: accumulation err='accumulating resources from '../secret.yaml': security; file '" + kustData + "/outside/secret.yaml' is not in or below '" + kustData + "/outside/root'"}},
		{dir: "broken", want: []string{"broken/kustomization.yaml:4:1: invalid YAML: did not find expected '-' indicator"}},
		{dir: "duplicate-key", want: []string{"duplicate-key/kustomization.yaml:3:1: invalid YAML: mapping key \"resources\" already defined"}},
		{dir: "unknown-field", want: []string{"unknown-field/kustomization.yaml:4:1: kustomize build failed: invalid Kustomization: json: unknown field \"resourcez\""}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			r := loadKustomize(t, kustData+"/"+tt.dir)
			if len(r.Objects) != tt.objects {
				t.Errorf("built %d objects, want %d", len(r.Objects), tt.objects)
			}
			if len(r.Errors) != len(tt.want) {
				t.Errorf("got %d errors, want %d: %v", len(r.Errors), len(tt.want), r.Errors)
			}
			for i, w := range tt.want {
				if i >= len(r.Errors) {
					break
				}
				if got := r.Errors[i].Error(); !strings.HasPrefix(got, kustData+"/"+w) {
					t.Errorf("error %d:\n got  %s\n want %s/%s...", i, got, kustData, w)
				}
			}
			if len(r.Notes) != len(tt.notes) {
				t.Errorf("got %d notes, want %d: %q", len(r.Notes), len(tt.notes), r.Notes)
			}
			for i, w := range tt.notes {
				if i < len(r.Notes) && !strings.HasPrefix(r.Notes[i], kustData+"/"+w) {
					t.Errorf("note %d:\n got  %s\n want %s/%s...", i, r.Notes[i], kustData, w)
				}
			}
		})
	}
}

// copyDir copies a fixture into a fresh temporary directory, keeping
// executable bits, so that a program that ran would leave its marker
// there and not in testdata.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func markers(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "MARKER" {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// TestKustomizeNeverRunsPrograms proves that an exec KRM function and a
// legacy exec plugin, each of which writes a marker file when it runs,
// never run: neither through taintlint's build, nor through kustomize as
// taintlint configures it when the pre-build check is bypassed. A control
// build with plugins enabled shows the fixtures would leave a marker.
func TestKustomizeNeverRunsPrograms(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the fixture programs")
	}
	tests := []struct {
		fixture string
		control func(dir string) error
	}{
		{"exec-fn", func(dir string) error {
			// Keep only the exec generator: the container transformer
			// would pull an image.
			if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("generators:\n- marker-fn.yaml\n"), 0o644); err != nil {
				return err
			}
			pc := types.EnabledPluginConfig(types.BploUseStaticallyLinked)
			pc.FnpLoadingOptions.EnableExec = true
			opts := krusty.MakeDefaultOptions()
			opts.PluginConfig = pc
			_, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
			return err
		}},
		{"legacy-plugin", func(dir string) error {
			opts := krusty.MakeDefaultOptions()
			opts.PluginConfig = types.EnabledPluginConfig(types.BploUseStaticallyLinked)
			_, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			dir := copyDir(t, filepath.Join(kustData, tt.fixture))
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
			t.Setenv("KUSTOMIZE_PLUGIN_HOME", filepath.Join(dir, "xdg", "kustomize", "plugin"))

			r := buildKustomization(context.Background(), dir, "fixture", Options{})
			if len(r.Errors) == 0 || len(r.Objects) > 0 {
				t.Errorf("build: %d objects, errors %v; want a refusal", len(r.Objects), r.Errors)
			}
			if rep, err := kustomize.Build(context.Background(), dir, true, kustomize.Options{}); err != nil || !strings.Contains(rep.Err, "plugin") {
				t.Errorf("kustomize as configured by taintlint: err = %v, want a plugin refusal", err)
			}
			if m := markers(t, dir); len(m) > 0 {
				t.Fatalf("a program ran: %v", m)
			}

			tt.control(dir)
			if len(markers(t, dir)) == 0 {
				t.Errorf("control: with plugins enabled the fixture left no marker, so the test proves nothing")
			}
		})
	}
}

// TestKustomizeOutputUnchanged checks that injecting and stripping origin
// annotations leaves the output exactly as kustomize builds it.
func TestKustomizeOutputUnchanged(t *testing.T) {
	dir := kustData + "/app/overlays/prod"
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, res := range m.Resources() {
		y, err := res.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		j, err := yamlToJSON(y)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, j)
	}
	r := loadKustomize(t, dir)
	var got []string
	for _, o := range r.Objects {
		j, err := ToJSON(o.Tree())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(j))
	}
	if !slices.Equal(got, want) {
		t.Errorf("output differs from a plain kustomize build:\n got  %q\n want %q", got, want)
	}
}

// TestKustomizeUserOriginAnnotations checks that origin annotations a
// kustomization asks for itself stay in the output.
func TestKustomizeUserOriginAnnotations(t *testing.T) {
	r := loadKustomize(t, kustData+"/user-origin")
	o := findObject(t, r, "ConfigMap", "plain")
	if _, v := yamltree.WalkValue(o.Tree(), mustPath(t, "metadata.annotations[config.kubernetes.io/origin]")); v == 0 {
		t.Errorf("origin annotation missing from %s", o.Ref)
	}
	if pos, _ := o.Locate("metadata.name"); pos.String() != kustData+"/user-origin/configmap.yaml:4:3" {
		t.Errorf("metadata.name at %s", pos)
	}
}

func yamlToJSON(y []byte) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return "", err
	}
	j, err := ToJSON(&doc)
	return string(j), err
}

func mustPath(t *testing.T, p string) []step {
	t.Helper()
	s, err := jsonscan.ParsePath(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKustomizeWalk checks that a walk builds overlays and not the base
// they include, and that --kustomize=false walks the same tree as files.
func TestKustomizeWalk(t *testing.T) {
	tests := []struct {
		name      string
		kustomize bool
		want      []string
	}{
		{"built", true, []string{
			"DaemonSet/prod/prod-agent", "Deployment/prod/prod-web", "ConfigMap/prod/prod-web-config-t82mkhg8fd", "ConfigMap/prod/prod-prod-settings-7cg68hdddb",
			"Deployment/web-dev", "DaemonSet/agent-dev", "ConfigMap/web-config-dev-t82mkhg8fd",
		}},
		{"plain files", false, []string{
			// base and prod name apiVersion and kind; dev's
			// kustomization does not, so it is no object.
			"Kustomization/", "DaemonSet/agent", "Deployment/web",
			"Kustomization/", "Deployment/web",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Load(context.Background(), []string{kustData + "/app"}, Options{Kustomize: tt.kustomize})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Errors) > 0 {
				t.Errorf("errors: %v", r.Errors)
			}
			var got []string
			for _, o := range r.Objects {
				got = append(got, o.Ref.String())
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("objects %v, want %v", got, want)
			}
		})
	}
}

func TestKustRoots(t *testing.T) {
	d := kustData + "/app"
	tests := []struct {
		name string
		dirs []string
		want []string
	}{
		{"base included by overlays", []string{d + "/base", d + "/overlays/dev", d + "/overlays/prod"}, []string{d + "/overlays/dev", d + "/overlays/prod"}},
		{"base alone", []string{d + "/base"}, []string{d + "/base"}},
		{"overlays do not include each other", []string{d + "/overlays/dev", d + "/overlays/prod"}, []string{d + "/overlays/dev", d + "/overlays/prod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, orphans := kusttree.Roots(tt.dirs, kustHooks(Options{}))
			if !slices.Equal(got, tt.want) || len(orphans) != 0 {
				t.Errorf("got %v (orphans %v), want %v", got, orphans, tt.want)
			}
		})
	}
}

// TestKustomizeFIFO checks that a kustomization naming a FIFO (which would
// block a read forever) fails instead of hanging.
func TestKustomizeFIFO(t *testing.T) {
	if _, err := exec.LookPath("mkfifo"); err != nil {
		t.Skip("no mkfifo")
	}
	dir := t.TempDir()
	if err := exec.Command("mkfifo", filepath.Join(dir, "pipe.yaml")).Run(); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n- pipe.yaml\ngenerators:\n- pipe.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result, 1)
	go func() { done <- buildKustomization(context.Background(), dir, "fifo", Options{}) }()
	select {
	case r := <-done:
		if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Msg, "not a regular file") || r.Errors[0].Pos.String() != "fifo/kustomization.yaml:2:3" {
			t.Errorf("errors %v, want one at fifo/kustomization.yaml:2:3 saying not a regular file", r.Errors)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("build blocked on a FIFO")
	}
}

// TestKustomizeAllowRemote fetches a remote base from a file:// git
// repository (no network) only when AllowRemote is set, and leaves no
// clone behind.
func TestKustomizeAllowRemote(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: remote-web\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: web}]\n",
	})
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	overlay := t.TempDir()
	testfs.Write(t, overlay, map[string]string{
		"kustomization.yaml": "resources:\n- file://" + repo + "//base?ref=main\n",
	})
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	r := buildKustomization(context.Background(), overlay, "overlay", Options{})
	if len(r.Objects) != 0 || len(r.Errors) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "is not fetched") {
		t.Fatalf("without AllowRemote: %d objects, errors %v, notes %q; want one note of the refusal", len(r.Objects), r.Errors, r.Notes)
	}
	r = buildKustomization(context.Background(), overlay, "overlay", Options{AllowRemote: true})
	if len(r.Errors) != 0 || len(r.Objects) != 1 || r.Objects[0].Name != "remote-web" {
		t.Fatalf("with AllowRemote: %d objects, errors %v; want the remote Deployment", len(r.Objects), r.Errors)
	}
	if pos, _ := r.Objects[0].Locate("spec.template"); pos.File != "overlay/kustomization.yaml" || pos.Line != 2 {
		t.Errorf("a field of a remote object is at %s, want the line of the overlay that names the base", pos)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the clone was left behind: %v", left)
	}
}

// TestKustomizeEnableHelm runs a stand-in helm only when EnableHelm is set.
func TestKustomizeEnableHelm(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(bin, "MARKER")
	script := "#!/bin/sh\ntouch " + marker + "\ncase \"$1\" in\nversion) echo v3.16.0+gabc ;;\ntemplate) printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: from-helm\\n' ;;\nesac\n"
	testfs.Write(t, bin, map[string]string{"helm": script})
	if err := os.Chmod(filepath.Join(bin, "helm"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"kustomization.yaml":        "helmCharts:\n- name: chart\n  releaseName: rel\n",
		"charts/chart/Chart.yaml":   "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
		"charts/chart/values.yaml":  "{}\n",
		"charts/chart/templates/.k": "",
	})

	r := buildKustomization(context.Background(), dir, "app", Options{})
	if len(r.Objects) != 0 || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Msg, "--enable-helm") {
		t.Fatalf("without EnableHelm: %d objects, errors %v; want one refusal naming --enable-helm", len(r.Objects), r.Errors)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("helm ran without EnableHelm")
	}
	r = buildKustomization(context.Background(), dir, "app", Options{EnableHelm: true})
	if len(r.Errors) != 0 || len(r.Objects) != 1 || r.Objects[0].Name != "from-helm" {
		t.Fatalf("with EnableHelm: %d objects, errors %v; want helm's ConfigMap", len(r.Objects), r.Errors)
	}
}
