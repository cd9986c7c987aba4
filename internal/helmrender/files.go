package helmrender

import (
	"encoding/base64"
	"path"
	"strings"

	"github.com/gobwas/glob"
	"helm.sh/helm/v3/pkg/chart"
)

// Files is .Files: a chart's files other than templates, values and
// Chart.yaml, by name, with the methods Helm's engine gives templates.
type Files map[string][]byte

func newFiles(from []*chart.File) Files {
	f := make(Files, len(from))
	for _, x := range from {
		f[x.Name] = x.Data
	}
	return f
}

// GetBytes is a file's content, empty when there is no such file.
func (f Files) GetBytes(name string) []byte {
	if v, ok := f[name]; ok {
		return v
	}
	return []byte{}
}

// Get is a file's content as a string.
func (f Files) Get(name string) string { return string(f.GetBytes(name)) }

// Glob is the files whose names match a glob ('/' separates; "**" crosses
// it). A pattern that does not compile matches everything, as in Helm.
func (f Files) Glob(pattern string) Files {
	g, err := glob.Compile(pattern, '/')
	if err != nil {
		g, _ = glob.Compile("**")
	}
	out := Files{}
	for name, data := range f {
		if g.Match(name) {
			out[name] = data
		}
	}
	return out
}

// AsConfig is the files as the data of a ConfigMap: base name to content,
// in YAML.
func (f Files) AsConfig() string {
	if f == nil {
		return ""
	}
	m := make(map[string]string, len(f))
	for k, v := range f {
		m[path.Base(k)] = string(v)
	}
	return toYAML(m)
}

// AsSecrets is the files as the data of a Secret: base name to base64
// content, in YAML.
func (f Files) AsSecrets() string {
	if f == nil {
		return ""
	}
	m := make(map[string]string, len(f))
	for k, v := range f {
		m[path.Base(k)] = base64.StdEncoding.EncodeToString(v)
	}
	return toYAML(m)
}

// Lines is a file's lines, without a final newline's empty line.
func (f Files) Lines(name string) []string {
	if f == nil || len(f[name]) == 0 {
		return []string{}
	}
	s := string(f[name])
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}
