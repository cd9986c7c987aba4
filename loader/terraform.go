package loader

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// TerraformFile is a Terraform file a walk met (Options.Terraform): a
// configuration file (.tf, .tf.json), a variable definitions file
// (.tfvars, .tfvars.json) or the
// JSON of terraform show -json (a plan or a state). The loader only reads
// it, through the run's budget; reading Terraform is not its job.
type TerraformFile struct {
	Name string // as named in positions
	Data []byte
}

// isTerraformName reports whether a file is Terraform configuration or
// variable definitions by its name, in native syntax (.tf, .tfvars) or
// JSON syntax (.tf.json, .tfvars.json).
func isTerraformName(name string) bool {
	lower := strings.ToLower(name)
	switch filepath.Ext(lower) {
	case ".tf", ".tfvars":
		return true
	}
	return strings.HasSuffix(lower, ".tf.json") || strings.HasSuffix(lower, ".tfvars.json")
}

// isTerraformJSON reports whether data is the JSON terraform show -json
// writes: one object whose members include format_version and
// terraform_version (internal/command/jsonplan and jsonstate), which no
// Kubernetes object has.
func isTerraformJSON(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' || !bytes.Contains(data, []byte(`"terraform_version"`)) {
		return false
	}
	var head struct {
		FormatVersion    *string `json:"format_version"`
		TerraformVersion *string `json:"terraform_version"`
		Kind             *string `json:"kind"`
	}
	if json.Unmarshal(data, &head) != nil {
		return false
	}
	return head.FormatVersion != nil && head.TerraformVersion != nil && head.Kind == nil
}

// NewTreeObject is an object that was not read from a manifest: tree
// holds its fields at the positions in file where they were written
// (a node pool read from Terraform, each field at its line in the .tf
// file), so that findings on it point there. doc tells objects of one
// file apart (Object.Doc); source is what Object.Source says.
func NewTreeObject(ref Ref, file string, doc int, tree *yaml.Node, source string) *Object {
	return &Object{Ref: ref, File: file, Doc: doc, Item: -1, src: &treeBacking{root: tree, from: source}}
}

// treeBacking is an object made in memory with its tree (NewTreeObject).
type treeBacking struct {
	root *yaml.Node
	from string
}

func (b *treeBacking) form(*Object) ([]byte, yamltree.Marks) { return nil, nil }
func (b *treeBacking) jsonErr() error                        { return nil }
func (b *treeBacking) tree(*Object) *yaml.Node               { return b.root }
func (b *treeBacking) locatesByTree(*Object) bool            { return true }
func (b *treeBacking) document() *docSource                  { return nil }
func (b *treeBacking) docLine() int                          { return 0 }
func (b *treeBacking) source() string                        { return b.from }
func (b *treeBacking) locate(o *Object, path string) (Position, Exactness) {
	steps, err := jsonscan.ParsePath(path)
	if err != nil {
		steps = nil
	}
	return locateTree(b.root, o.File, 0, steps)
}

func (b *treeBacking) locateValue(o *Object, steps []step, pos Position) Position {
	return valueInTree(b.root, o.File, 0, steps, pos)
}
