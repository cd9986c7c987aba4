package kustomize

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/testfs"
)

// builtOutput is a build's output as the worker sends it: each object's
// origin and its YAML without the origin annotation, in order, or the
// errors the worker would meet on the way.
func builtOutput(t testing.TB, m krustyResMap) string {
	t.Helper()
	var b strings.Builder
	res := m.Resources()
	origins := make([]string, len(res))
	for i, r := range res {
		o, err := r.GetOrigin()
		if err != nil {
			origins[i] = "error: " + err.Error()
		} else if o != nil {
			origins[i], _ = o.String()
		}
	}
	if err := m.RemoveOriginAnnotations(); err != nil {
		return "removing origins: " + err.Error()
	}
	for i, r := range res {
		y, err := r.AsYAML()
		if err != nil {
			fmt.Fprintf(&b, "--- origin %q\nerror: %v\n", origins[i], err)
			continue
		}
		fmt.Fprintf(&b, "--- origin %q\n%s", origins[i], y)
	}
	return b.String()
}

// compareDirect builds dir both ways and fails when the direct build
// answers and krusty disagrees: a different output, or an error. It
// reports whether the direct build answered.
func compareDirect(t testing.TB, dir string) bool {
	t.Helper()
	d, ok := directBuild(dir, newBuildFS(dir, true, false))
	if !ok {
		return false
	}
	k, err := krustyRun(dir, newBuildFS(dir, true, false), "")
	if err != nil {
		t.Fatalf("%s: the direct build answered, krusty failed: %v", dir, err)
	}
	got, want := builtOutput(t, d), builtOutput(t, k)
	if got != want {
		var in strings.Builder
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&in, "=== %s\n%s", p, data)
			}
			return nil
		})
		t.Fatalf("%s: direct build\n%s\nkrusty\n%s\ninput:\n%s", dir, got, want, in.String())
	}
	return true
}

// directObject returns a random object (or document) of the kinds the
// direct build must treat as kustomize does.
func directObject(r *rand.Rand, i int) string {
	ns := []string{"", "", "default", "prod", "kube-system"}[r.IntN(5)]
	meta := func(name string) string {
		s := "metadata:\n  name: " + name + "\n"
		if ns != "" {
			s += "  namespace: " + ns + "\n"
		}
		switch r.IntN(14) {
		case 0:
			s += "  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"
		case 1:
			s += "  annotations:\n    config.kubernetes.io/local-config: \"false\"\n"
		case 2:
			s += "  annotations: {}\n"
		case 3:
			s += "  annotations:\n    alpha.config.kubernetes.io/transformations: x\n"
		case 4:
			s += "  annotations:\n    internal.config.kubernetes.io/previousNames: old\n    internal.config.kubernetes.io/previousNamespaces: default\n    internal.config.kubernetes.io/previousKinds: Pod\n"
		case 5:
			s += "  labels: {app: \"x\"} # a comment\n"
		}
		return s
	}
	name := fmt.Sprintf("o%d", r.IntN(6*i+12)) // repeats now and then: duplicate ids
	switch r.IntN(14) {
	case 0:
		return "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: " + name + "-a}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: " + name + "-b}\n"
	case 1:
		return "" // an empty document
	case 2:
		return "# only a comment\n"
	case 3:
		return "apiVersion: v1\nkind: Namespace\n" + meta(name)
	case 4:
		return "apiVersion: example.com/v1\nkind: Namespace\n" + meta(name)
	case 5:
		return "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n" + meta(name) +
			"roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}\nsubjects:\n- {kind: ServiceAccount, name: sa, namespace: other}\n"
	case 6:
		if r.IntN(4) > 0 {
			return "apiVersion: v1\nkind: Pod\n" + meta(name) + "spec:\n  serviceAccountName: default\n  containers: [{name: a, image: a}]\n"
		}
		return "apiVersion: v1\nkind: Pod\n" + meta(name) + "spec:\n  serviceAccountName: {bad: shape}\n  containers: [{name: a, image: a}]\n"
	case 7:
		return "apiVersion: v1\nkind: Pod\n" + meta(name) + "spec:\n  serviceAccountName: sa\n  volumes:\n  - name: v\n    configMap: {name: cm}\n  containers: [{name: a, image: \"a:1\"}]\n"
	case 8:
		return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n" + meta(name)
	case 9:
		return "apiVersion: apps/v1\nkind: Deployment\n" + meta(name) + "spec:\n  template:\n    spec:\n      containers: &c [{name: a, image: a}]\n      initContainers: *c\n"
	case 10:
		return "apiVersion: v1\nkind: ConfigMapList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: " + name + "-l}\n"
	case 11:
		return "apiVersion: v1\nkind: ServiceAccount\n" + meta(name)
	case 12:
		return "apiVersion: storage.k8s.io/v1\nkind: StorageClass\n" + meta(name) + "provisioner: x\n"
	}
	return "apiVersion: v1\nkind: ConfigMap\n" + meta(name) + "data:\n  k: 'quoted'\n  long: |\n    line\n"
}

// TestKustomizeDirectMatchesKrusty: generated kustomizations of local
// files, built directly and by krusty, give the same objects in the same
// order with the same origins, or the direct build leaves them to krusty.
func TestKustomizeDirectMatchesKrusty(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	trees := 150
	if testing.Short() {
		trees = 40
	}
	answered := 0
	for tree := range trees {
		dir := t.TempDir()
		files := map[string]string{}
		var list []string
		for f := range 1 + r.IntN(3) {
			name := fmt.Sprintf("f%d.yaml", f)
			if f == 2 {
				name = "sub/" + name
			}
			var b strings.Builder
			for i := range r.IntN(12) {
				if i > 0 || r.IntN(2) == 0 {
					b.WriteString("---\n")
				}
				b.WriteString(directObject(r, i))
			}
			files[name] = b.String()
			list = append(list, name)
		}
		kust := "resources:\n- " + strings.Join(list, "\n- ") + "\n"
		switch tree % 10 {
		case 0:
			kust = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" + kust
		case 1:
			kust += "namespace: elsewhere\n" // not for the direct build
		case 2:
			kust = strings.Replace(kust, "resources:", "bases:", 1)
		case 3:
			kust += "buildMetadata: [originAnnotations]\n"
		}
		files["kustomization.yaml"] = kust
		testfs.Write(t, dir, files)
		if compareDirect(t, dir) {
			answered++
		}
	}
	// One larger tree, names unique, every kind of object above.
	var big strings.Builder
	for i := range 250 {
		doc := directObject(r, i)
		doc = strings.ReplaceAll(doc, "name: o", fmt.Sprintf("name: big%d-o", i))
		doc = strings.ReplaceAll(doc, "{name: o", fmt.Sprintf("{name: big%d-o", i))
		doc = strings.ReplaceAll(doc, "internal.config.kubernetes.io/", "example.com/")
		doc = strings.ReplaceAll(doc, "{bad: shape}", "sa")
		big.WriteString("---\n" + doc)
	}
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"kustomization.yaml": "resources: [big.yaml]\n", "big.yaml": big.String()})
	if !compareDirect(t, dir) {
		t.Error("the direct build left the large tree to krusty")
	}
	trees++
	answered++

	// The generator is meant to exercise the direct build, not krusty.
	if answered < trees/4 {
		t.Fatalf("the direct build answered %d of %d trees", answered, trees)
	}
	t.Logf("the direct build answered %d of %d trees", answered, trees)
}

// TestKustomizeDirectFallsBack: what the direct build must leave to krusty.
func TestKustomizeDirectFallsBack(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n"
	cases := map[string]map[string]string{
		"namespace":         {"kustomization.yaml": "resources: [a.yaml]\nnamespace: x\n", "a.yaml": pod},
		"directory":         {"kustomization.yaml": "resources: [base]\n", "base/kustomization.yaml": "resources: [a.yaml]\n", "base/a.yaml": pod},
		"duplicate":         {"kustomization.yaml": "resources: [a.yaml, b.yaml]\n", "a.yaml": pod, "b.yaml": strings.Replace(pod, "{name: p}", "{name: p, namespace: default}", 1)},
		"parent":            {"kustomization.yaml": "resources: [../a.yaml]\n"},
		"bad reference":     {"kustomization.yaml": "resources: [a.yaml]\n", "a.yaml": strings.Replace(pod, "spec: {", "spec: {serviceAccountName: {x: y}, ", 1)},
		"previous names":    {"kustomization.yaml": "resources: [a.yaml]\n", "a.yaml": strings.Replace(pod, "{name: p}", "{name: p, annotations: {internal.config.kubernetes.io/previousNames: q}}", 1)},
		"two kustomization": {"kustomization.yaml": "resources: [a.yaml]\n", "kustomization.yml": "resources: [a.yaml]\n", "a.yaml": pod},
		"sort options":      {"kustomization.yaml": "resources: [a.yaml]\nsortOptions: {order: fifo}\n", "a.yaml": pod},
		"invalid yaml":      {"kustomization.yaml": "resources: [a.yaml]\n", "a.yaml": "a: [\n"},
		"component":         {"kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [a.yaml]\n", "a.yaml": pod},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, files)
			if _, ok := directBuild(dir, newBuildFS(dir, true, false)); ok {
				t.Fatal("the direct build answered")
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		testfs.Write(t, dir, map[string]string{"kustomization.yaml": "resources: [l.yaml]\n", "a.yaml": pod})
		if err := os.Symlink("a.yaml", filepath.Join(dir, "l.yaml")); err != nil {
			t.Skip(err)
		}
		if _, ok := directBuild(dir, newBuildFS(dir, true, false)); ok {
			t.Fatal("the direct build answered")
		}
	})
}

// FuzzKustomizeDirect: whatever a resource file holds, the direct build
// either leaves it to krusty or gives exactly krusty's output.
func FuzzKustomizeDirect(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 12 {
		f.Add([]byte(directObject(r, i) + "---\n" + directObject(r, i)))
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: []\n"))
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		dir := t.TempDir()
		testfs.Write(t, dir, map[string]string{"kustomization.yaml": "resources: [a.yaml]\n", "a.yaml": string(data)})
		compareDirect(t, dir)
	})
}

// BenchmarkKustomizeDirect: a kustomization of 5,000 objects in one file,
// which kustomize v0.21.2 takes over a minute to build, built directly;
// the time per object must stay flat as n grows.
func BenchmarkKustomizeDirect(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := testfs.Kustomization(b, n, "resources: [all.yaml]\n")
			b.ResetTimer()
			for b.Loop() {
				if _, ok := directBuild(dir, newBuildFS(dir, true, false)); !ok {
					b.Fatal("not built directly")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/object")
		})
	}
}
