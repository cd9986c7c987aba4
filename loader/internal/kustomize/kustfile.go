package kustomize

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
)

// Names are the file names kustomize accepts, in its order.
var Names = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

var (
	schemeRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)
	scpUserRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*@`)
	gitForceRE = regexp.MustCompile(`(?i)^git::`)
)

// IsRemote reports whether kustomize would fetch s over the network
// (HTTP, or git clone), erring on the side of yes: kustomize treats
// anything its repository-URL parser accepts as a repository, and that
// parser accepts any scheme, SCP-style user@host:path and bare github.com
// paths. A string that names an existing local regular file is local,
// because kustomize tries a file before a repository.
func IsRemote(s, dir string) bool {
	v := strings.TrimSpace(s)
	if v == "" || strings.ContainsAny(v, "\n") {
		return false
	}
	if gitForceRE.MatchString(v) || schemeRE.MatchString(v) {
		return true
	}
	lower := strings.ToLower(v)
	if scpUserRE.MatchString(v) || strings.HasPrefix(lower, "github.com/") || strings.HasPrefix(lower, "github.com:") {
		if !filepath.IsAbs(v) {
			if fi, err := os.Stat(filepath.Join(dir, v)); err == nil && fi.Mode().IsRegular() {
				return false
			}
		}
		return true
	}
	return false
}

// Field finds key in mapping m the way kustomize's JSON decoding does: an
// exact match first, else a match without regard to case.
func Field(m *yaml.Node, key string) (k, v *yaml.Node) {
	m = yamltree.Deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	if k, v := yamltree.Lookup(m, key, 0); k != nil {
		return k, v
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if kn := m.Content[i]; kn.Kind == yaml.ScalarNode && strings.EqualFold(kn.Value, key) {
			return kn, m.Content[i+1]
		}
	}
	return nil, nil
}

// FieldString is field for a string scalar.
func FieldString(m *yaml.Node, key string) string {
	_, v := Field(m, key)
	if v = yamltree.Deref(v); v != nil && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!null" {
		return v.Value
	}
	return ""
}

// Strs lists the scalar elements of a sequence (or the scalar itself).
func Strs(v *yaml.Node) []*yaml.Node {
	v = yamltree.Deref(v)
	if v == nil {
		return nil
	}
	if v.Kind == yaml.ScalarNode {
		return []*yaml.Node{v}
	}
	if v.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, c := range v.Content {
		if c = yamltree.Deref(c); c != nil && c.Kind == yaml.ScalarNode {
			out = append(out, c)
		}
	}
	return out
}
