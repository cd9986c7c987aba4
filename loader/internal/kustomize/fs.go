package kustomize

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// errReadOnly is what every write through buildFS returns: a build only
// reads, and a kustomization that makes kustomize write is refused.
var errReadOnly = errors.New("taintlint builds kustomizations read-only")

// buildFS is the file system kustomize builds from: the disk, read-only,
// with every read capped at input.MaxFileSize, and with originAnnotations added
// to the root kustomization's buildMetadata so that each output object names
// its source file, without the user's file being touched.
type buildFS struct {
	filesys.FileSystem
	// rootDir is the symlink-resolved root directory: kustomize's loader
	// resolves symlinks before it reads the kustomization file.
	rootDir string
	inject  bool
	// remote lets kustomize fetch remote bases and files, and remove the
	// temporary clones it made (and nothing else) once the build is done.
	// Without it, every kustomization file kustomize reads is handed over
	// without its remote references (withoutRemote), so the local rest
	// still builds; those left out are recorded in skipped.
	remote  bool
	skipped []SkippedRef
	// kustFiles are the files kustomize asked for under a kustomization
	// file name, symlinks resolved: kustomize reads the resolved path.
	kustFiles map[string]bool
	// read are the files the build read: those of the walk that no build
	// read are included by no kustomization (leftovers, Load).
	read map[string]bool
}

var _ filesys.FileSystem = (*buildFS)(nil)

func newBuildFS(rootDir string, inject, remote bool) *buildFS {
	real, err := filepath.EvalSymlinks(rootDir)
	if err != nil {
		real = rootDir
	}
	return &buildFS{FileSystem: filesys.MakeFsOnDisk(), rootDir: filepath.Clean(real), inject: inject, remote: remote, kustFiles: map[string]bool{}, read: map[string]bool{}}
}

// CleanedAbs is the disk's, and notes where a kustomization file name
// leads: kustomize checks each path it loads with CleanedAbs and then
// reads the symlink-resolved result, so a kustomization.yaml that is a
// symlink to another name is still read as a kustomization.
func (f *buildFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	d, name, err := f.FileSystem.CleanedAbs(p)
	if err == nil && name != "" && slices.Contains(Names, filepath.Base(p)) {
		f.kustFiles[d.Join(name)] = true
	}
	return d, name, err
}

func (f *buildFS) ReadFile(p string) ([]byte, error) {
	data, err := ReadRegular(p)
	if err != nil {
		return nil, err
	}
	f.read[p] = true
	if !slices.Contains(Names, filepath.Base(p)) && !f.kustFiles[p] {
		return data, nil
	}
	inject := f.inject && filepath.Dir(p) == f.rootDir
	if f.remote {
		if inject {
			return withOriginAnnotations(data), nil
		}
		return data, nil
	}
	data, refs := WithoutRemote(data, filepath.Dir(p), inject)
	for _, r := range refs {
		f.skipped = append(f.skipped, SkippedRef{File: p, RemoteRef: r})
	}
	return data, nil
}

func (*buildFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (*buildFS) Mkdir(string) error                  { return errReadOnly }
func (*buildFS) MkdirAll(string) error               { return errReadOnly }
func (f *buildFS) RemoveAll(p string) error {
	if f.remote && isCloneDir(p) {
		return os.RemoveAll(p)
	}
	return errReadOnly
}

// isCloneDir reports whether p is a directory kustomize made for a clone
// of a remote base: kyaml's filesys.NewTmpConfirmedDir names them
// kustomize-* directly under the temporary directory.
func isCloneDir(p string) bool {
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		tmp = os.TempDir()
	}
	p = filepath.Clean(p)
	return filepath.Dir(p) == filepath.Clean(tmp) && strings.HasPrefix(filepath.Base(p), "kustomize-")
}
func (*buildFS) WriteFile(string, []byte) error { return errReadOnly }

// ReadRegular reads a regular file of at most input.MaxFileSize bytes. A FIFO or
// device named by a kustomization (or reached through a symlink) would
// block or never end, so only regular files are read.
func ReadRegular(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	data, err := input.ReadFile(p, nil) // charged by limitFS
	if err != nil {
		return nil, err
	}
	if len(data) > input.MaxFileSize {
		return nil, fmt.Errorf("%s: file is larger than %d MiB; not read", p, input.MaxFileSize>>20)
	}
	return data, nil
}

// HasOriginAnnotations reports whether a kustomization asks for origin
// annotations itself; then they are part of its output and stay.
func HasOriginAnnotations(doc *yaml.Node) bool {
	_, v := Field(doc, "buildMetadata")
	for _, s := range Strs(v) {
		if s.Value == types.OriginAnnotations {
			return true
		}
	}
	return false
}

// withOriginAnnotations adds originAnnotations to a kustomization's
// buildMetadata. Content it cannot read as a mapping is returned as it is,
// so kustomize reports the problem in its own words.
func withOriginAnnotations(data []byte) []byte {
	var doc yaml.Node
	if yamltree.Unmarshal(data, &doc) != nil {
		return data
	}
	root := yamltree.Deref(&doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return data
	}
	entry := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: types.OriginAnnotations}
	_, v := Field(root, "buildMetadata")
	v = yamltree.Deref(v)
	switch {
	case v == nil:
		root.Content = append(root.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "buildMetadata"},
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{entry}})
	case v.Kind == yaml.SequenceNode:
		if HasOriginAnnotations(root) {
			return data
		}
		v.Content = append(v.Content, entry)
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		*v = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{entry}}
	default:
		return data
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return data
	}
	return out
}
