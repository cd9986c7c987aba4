package kustomize

import (
	"encoding/json"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
)

// RemoteRef is a reference in a kustomization file that kustomize would
// fetch over the network: field is its place in kustomize's own decoding
// (the JSON name, e.g. "resources" or "patches.path"), value the string.
type RemoteRef struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// decodeKustomization reads a kustomization file exactly as kustomize's
// KustTarget does (types.Kustomization.Unmarshal: YAML to JSON, then JSON
// decoding, which matches field names without regard to case and with
// Unicode folding, and resolves tags, anchors and merge keys), and returns
// the result as generic JSON, so that what follows sees the file as
// kustomize sees it, whatever its spelling.
func decodeKustomization(data []byte) (map[string]any, bool) {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return nil, false // kustomize fails on it the same way
	}
	j, err := json.Marshal(k)
	if err != nil {
		return nil, false
	}
	var doc map[string]any
	if json.Unmarshal(j, &doc) != nil {
		return nil, false
	}
	return doc, true
}

// refLists are the fields of a decoded kustomization whose elements
// kustomize loads as files, directories or repositories.
var refLists = []string{"resources", "bases", "components", "crds", "configurations",
	"generators", "transformers", "validators", "patchesStrategicMerge"}

// refItems are the lists of objects with a path that kustomize loads.
var refItems = []string{"patches", "patchesJson6902", "replacements"}

// generatorKeys are the kustomization's generator lists, whose files, envs
// and env kustomize loads.
var generatorKeys = []string{"configMapGenerator", "secretGenerator"}

// stripRemote removes from a decoded kustomization every reference that
// kustomize would fetch over the network (isRemote), and returns them in
// field order. The lists it knows are the ones kustomize reads paths
// from; a remote string anywhere else is left where it is, and the build
// sandbox refuses to fetch it (runKustomize).
func stripRemote(doc map[string]any, dir string) []RemoteRef {
	var out []RemoteRef
	keep := func(field string, v any, remote func(string) bool) bool {
		s, ok := v.(string)
		if !ok || !remote(s) {
			return true
		}
		out = append(out, RemoteRef{Field: field, Value: s})
		return false
	}
	isRem := func(s string) bool { return IsRemote(s, dir) }
	filter := func(m map[string]any, key, field string, remote func(string) bool) {
		list, ok := m[key].([]any)
		if !ok {
			if v, ok := m[key]; ok && !keep(field, v, remote) {
				delete(m, key)
			}
			return
		}
		kept := list[:0:0]
		for _, v := range list {
			if keep(field, v, remote) {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			delete(m, key)
		} else {
			m[key] = kept
		}
	}
	for _, key := range refLists {
		filter(doc, key, key, isRem)
	}
	for _, key := range refItems {
		list, ok := doc[key].([]any)
		if !ok {
			continue
		}
		kept := list[:0:0]
		for _, it := range list {
			if m, ok := it.(map[string]any); ok && !keep(key+".path", m["path"], isRem) {
				continue
			}
			kept = append(kept, it)
		}
		if len(kept) == 0 {
			delete(doc, key)
		} else {
			doc[key] = kept
		}
	}
	fileRemote := func(s string) bool { return IsRemote(FileSourcePath(s), dir) }
	for _, key := range generatorKeys {
		list, _ := doc[key].([]any)
		for _, it := range list {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			filter(m, "files", key+".files", fileRemote)
			filter(m, "envs", key+".envs", isRem)
			filter(m, "env", key+".env", isRem)
		}
	}
	if m, ok := doc["openapi"].(map[string]any); ok {
		filter(m, "path", "openapi.path", isRem)
	}
	return out
}

// FileSourcePath is the path of a generator files entry, [key=]path, as
// kustomize's generators.ParseFileSource splits it.
func FileSourcePath(s string) string {
	if strings.Count(s, "=") == 1 {
		_, p, _ := strings.Cut(s, "=")
		return p
	}
	return s
}

// RemoteRefs lists the references in a kustomization file that kustomize
// would fetch, as kustomize decodes the file. A file kustomize cannot
// decode has none: kustomize stops there.
func RemoteRefs(data []byte, dir string) []RemoteRef {
	doc, ok := decodeKustomization(data)
	if !ok {
		return nil
	}
	return stripRemote(doc, dir)
}

// WithoutRemote is a kustomization file as kustomize should read it when
// remote content is refused: the same file when it names nothing remote,
// else kustomize's own decoding of it with the remote references removed,
// as JSON (which kustomize reads as YAML and decodes to the same values).
// originAnnotations is added to buildMetadata when inject is set.
func WithoutRemote(data []byte, dir string, inject bool) ([]byte, []RemoteRef) {
	doc, ok := decodeKustomization(data)
	if !ok {
		return data, nil
	}
	refs := stripRemote(doc, dir)
	if len(refs) == 0 {
		if inject {
			return withOriginAnnotations(data), nil
		}
		return data, nil
	}
	if inject {
		bm, _ := doc["buildMetadata"].([]any)
		has := false
		for _, v := range bm {
			has = has || v == types.OriginAnnotations
		}
		if !has {
			doc["buildMetadata"] = append(bm, types.OriginAnnotations)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return data, nil
	}
	return out, refs
}
