package kustomize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/filters/annotations"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// kustomize v0.21.2 is quadratic in the objects of one kustomization: every
// object it adds is compared with every object already there, the
// name-reference fixer gathers the candidates of every object from all of
// them, and so does the sort; 1,500 objects take seconds and 5,000 over a
// minute. The commonest large kustomization, one that only lists local
// files under resources:, is built here without that cost, with
// kustomize's own parts, and gives what kustomize gives; anything else is
// built by krusty. What krusty does with such a kustomization (KustTarget
// with only Resources set, krusty.Run with krusty.MakeDefaultOptions):
//   - each file is read through the same file system and decoded by the
//     resource factory (SliceFromBytes: empty documents dropped, Lists
//     expanded), and each object annotated with its origin, exactly as
//     accumulateFile does;
//   - adding an object whose id equals one already added is an error;
//   - no generator, transformer or validator is configured (every builtin
//     one is skipped when its field is empty), the hash transformer
//     renames only objects marked for it, and so no name changes;
//   - the name-reference fixer then changes nothing: a referral is chosen
//     only among objects with a previous name (kustomize's previousNames
//     build annotation), and nothing has one. It can still fail on an
//     object whose reference fields have an unexpected shape, and a
//     RoleBinding's subjects are read to gather candidates. Both depend on
//     the object alone, so krusty builds the objects in chunks
//     (validateChunks) to give its verdict without the quadratic cost;
//   - objects annotated config.kubernetes.io/local-config are dropped
//     (the factory's DropLocalNodes, object by object);
//   - the build annotations and the transformer annotations are removed.
//     The objects stay in the order they were read: krusty's default
//     options (krustyRun) do not sort.
//
// Any step that fails, and any input outside these bounds (an object that
// carries kustomize's internal annotations, a symlink, a directory, a
// path kustomize might read otherwise), sends the build to krusty, which
// then reports in its own words.

// directChunk is how many objects each krusty check builds: small enough
// that its quadratic cost stays small.
const directChunk = 64

// directResMap is a direct build's output, shaped like krusty's for the
// worker.
type directResMap struct {
	res []*resource.Resource
}

func (m *directResMap) Resources() []*resource.Resource { return m.res }

func (m *directResMap) RemoveOriginAnnotations() error {
	for _, r := range m.res {
		if err := r.SetOrigin(nil); err != nil {
			return err
		}
	}
	return nil
}

// directBuild builds the kustomization in dir without krusty when it only
// lists local files under resources (see above); ok is false when it does
// not, or when any step fails: then krusty must build it. fs is the file
// system krusty would read, so the bytes are the same.
func directBuild(dir string, fs filesys.FileSystem) (m *directResMap, ok bool) {
	defer func() {
		if recover() != nil {
			m, ok = nil, false
		}
	}()
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, false
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, false
	}
	var kfile string
	for _, n := range Names {
		p := filepath.Join(root, n)
		fi, err := os.Lstat(p)
		switch {
		case err != nil && os.IsNotExist(err):
			continue
		case err != nil || !fi.Mode().IsRegular() || kfile != "":
			return nil, false // kustomize's error, or a symlink
		}
		kfile = p
	}
	if kfile == "" {
		return nil, false
	}
	data, err := fs.ReadFile(kfile)
	if err != nil {
		return nil, false
	}
	paths, ok := directResources(data)
	if !ok {
		return nil, false
	}
	rf := provider.NewDepProvider().GetResourceFactory()
	type key struct {
		gvk      resid.Gvk
		ns, name string
	}
	seen := map[key]bool{}
	var all []*resource.Resource
	for _, p := range paths {
		full, ok := directFile(root, p)
		if !ok {
			return nil, false
		}
		b, err := fs.ReadFile(full)
		if err != nil {
			return nil, false
		}
		res, err := rf.SliceFromBytes(b)
		if err != nil {
			return nil, false
		}
		anno, err := (&resource.Origin{}).Append(p).String()
		if err != nil || anno == "" {
			return nil, false
		}
		f := annotations.Filter{
			Annotations: map[string]string{originAnnotationKey: anno},
			FsSlice:     []types.FieldSpec{{Path: "metadata/annotations", CreateIfNotPresent: true}},
		}
		for _, r := range res {
			if hasBuildAnnotation(r) {
				return nil, false
			}
			out, err := f.Filter([]*kyaml.RNode{&r.RNode})
			if err != nil || len(out) != 1 || out[0] != &r.RNode || r.IsNilOrEmpty() {
				return nil, false
			}
			id := r.CurId()
			k := key{id.Gvk, id.EffectiveNamespace(), id.Name}
			if seen[k] {
				return nil, false // kustomize: may not add resource with an already registered id
			}
			seen[k] = true
			all = append(all, r)
		}
	}
	if !validateChunks(all) {
		return nil, false
	}
	kept := all[:0:0]
	for _, r := range all {
		left, err := rf.DropLocalNodes([]*kyaml.RNode{r.Copy()})
		if err != nil {
			return nil, false
		}
		if len(left) == 1 {
			kept = append(kept, r)
		}
	}
	for _, r := range kept {
		r.RemoveBuildAnnotations()
		if err := r.ClearTransformations(); err != nil {
			return nil, false
		}
	}
	return &directResMap{res: kept}, true
}

// originAnnotationKey is the annotation kustomize records an object's
// origin in (with buildMetadata: [originAnnotations]).
const originAnnotationKey = "config.kubernetes.io/origin"

// directResources returns the resources of a kustomization file that
// holds nothing else, as kustomize's KustTarget.Load reads it, and
// whether it holds nothing else: apiVersion and kind of a Kustomization,
// resources, and buildMetadata [originAnnotations] (which the worker adds
// so that objects can be traced).
func directResources(data []byte) ([]string, bool) {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return nil, false
	}
	k.FixKustomization()
	if k.CheckEmpty() != nil || len(k.EnforceFields()) > 0 {
		return nil, false
	}
	if k.Kind != types.KustomizationKind || k.APIVersion != types.KustomizationVersion || len(k.Resources) == 0 {
		return nil, false
	}
	if len(k.BuildMetadata) == 0 {
		return nil, false
	}
	for _, b := range k.BuildMetadata {
		if b != types.OriginAnnotations {
			return nil, false
		}
	}
	j, err := json.Marshal(k)
	if err != nil {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(j, &fields) != nil {
		return nil, false
	}
	for f := range fields {
		switch f {
		case "apiVersion", "kind", "resources", "buildMetadata":
		default:
			return nil, false
		}
	}
	return k.Resources, true
}

// directFile is the file a resources entry names, when kustomize can only
// read it as that local file: a relative path inside the root, with no
// symlink on the way, naming a regular file. Anything else (a URL, a
// directory, a path kustomize might resolve otherwise) is left to krusty.
func directFile(root, p string) (string, bool) {
	if p == "" || !filepath.IsLocal(p) || strings.ContainsAny(p, ":\\\x00") || strings.HasPrefix(p, "~") {
		return "", false
	}
	full := filepath.Join(root, filepath.FromSlash(p))
	real, err := filepath.EvalSymlinks(full)
	if err != nil || real != full {
		return "", false
	}
	fi, err := os.Lstat(full)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return full, true
}

// hasBuildAnnotation reports whether an object carries one of
// kustomize's internal build annotations (previous names, hash suffix,
// prefixes, ...), which would make the name-reference fixer or the hash
// transformer act.
func hasBuildAnnotation(r *resource.Resource) bool {
	for k := range r.GetAnnotations() {
		if strings.HasPrefix(k, konfig.ConfigAnnoDomain+"/") {
			return true
		}
	}
	return false
}

// validateChunks builds the objects with krusty, directChunk at a time,
// on an in-memory file system, and reports whether every build succeeds:
// the failures the direct build cannot see (the name-reference fixer's)
// depend on each object alone.
func validateChunks(all []*resource.Resource) bool {
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	opts.AddManagedbyLabel = false
	for start := 0; start < len(all); start += directChunk {
		chunk := all[start:min(start+directChunk, len(all))]
		var b strings.Builder
		for _, r := range chunk {
			c := r.Copy()
			_ = c.PipeE(kyaml.ClearAnnotation(originAnnotationKey))
			y, err := c.String()
			if err != nil {
				return false
			}
			b.WriteString("---\n")
			b.WriteString(y)
		}
		mem := filesys.MakeFsInMemory()
		if mem.WriteFile("/k/kustomization.yaml", []byte("resources: [r.yaml]\n")) != nil ||
			mem.WriteFile("/k/r.yaml", []byte(b.String())) != nil {
			return false
		}
		if _, err := krusty.MakeKustomizer(opts).Run(mem, "/k"); err != nil {
			return false
		}
	}
	return true
}
