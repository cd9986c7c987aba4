package rulestest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/clitest"
)

// TestParseErrorAtValue: a value of the wrong type is reported at the
// value itself (line and column, which # want comments cannot say), in
// YAML, in JSON, and in a Kustomize build traced back to the resource or
// the patch; every such value of an object is reported, and a key given
// twice is reported at its second occurrence.
func TestParseErrorAtValue(t *testing.T) {
	root := filepath.Join("..", "..", "testdata")
	yamlDir := filepath.Join(root, "rules", "parse-error")
	tests := []struct {
		path string
		want []string // file:line:col path: the value written there
	}{
		{filepath.Join(root, "parse-errors", "several.json"), []string{
			`several.json:4:40 <no path>: "name": "json-last"`,
			`several.json:6:76 spec.containers[0].ports[0].containerPort: "80"`,
			`several.json:8:63 spec.tolerations[0].tolerationSeconds: "10"`,
			`several.json:10:50 spec.tolerations[2].value: 1`,
			`several.json:12:17 spec.priority: "high"`,
		}},
		{filepath.Join(yamlDir, "several.yaml"), []string{
			`several.yaml:9:11 metadata.labels[tier]: 3`,
			`several.yaml:11:13 spec.replicas: true`,
			`several.yaml:14:17 spec.strategy.rollingUpdate.maxSurge: [1]`,
			`several.yaml:26:16 spec.template.spec.containers[1].ports: "8080"`,
			`several.yaml:31:18 spec.template.spec.containers[1].env[1].value: 5`,
			`several.yaml:34:18 spec.template.spec.containers[1].resources.limits[cpu]: lots`,
			`several.yaml:39:28 spec.template.spec.tolerations[0].tolerationSeconds: "10"`,
			`several.yaml:46:16 spec.template.spec.volumes[0].fc.lun: "abc"`,
			`several.yaml:47:21 spec.template.spec.volumes[0].fc.readOnly: "true"`,
			`several.yaml:51:17 spec.template.spec.priority: 3000000000`,
		}},
		{filepath.Join(yamlDir, "types.yaml"), []string{ // several documents
			`types.yaml:9:20 spec.template.spec.tolerations: "x"`,
			`types.yaml:19:12 spec.tolerations[0].value: 123`,
			`types.yaml:29:12 spec.tolerations[0].value: yes`,
			`types.yaml:40:12 spec.volumes[0].fc.lun: "abc"`,
		}},
		{filepath.Join(yamlDir, "duplicate.yaml"), []string{
			`duplicate.yaml:10:5 <no path>: app: b`,
			`duplicate.yaml:18:5 <no path>: operator: Exists`,
		}},
		{filepath.Join(yamlDir, "kustomize-types"), []string{
			`deploy.yaml:6:13 spec.replicas: "two"`,
			`deploy.yaml:17:26 spec.template.spec.containers[0].ports[0].containerPort: http`,
			`patch.yaml:8:38 spec.template.spec.terminationGracePeriodSeconds: "30"`,
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), ".taintlint.yaml")
			if err := os.WriteFile(cfg, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			findings, _ := clitest.RunJSON(t, []string{"check", "--format", "json", "--config", cfg, "--fail-on", "never", tt.path})
			var got []string
			for _, f := range findings {
				if f.Rule != "parse-error" {
					continue
				}
				src, err := os.ReadFile(f.File)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(string(src), "\n")
				at := "<line out of range>"
				if f.Line-1 < len(lines) && f.Column-1 <= len(lines[f.Line-1]) {
					at = token(lines[f.Line-1][f.Column-1:])
				}
				path := f.Path
				if path == "" {
					path = "<no path>"
				}
				got = append(got, fmt.Sprintf("%s:%d:%d %s: %s", filepath.Base(f.File), f.Line, f.Column, path, at))
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("parse-error findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// token is the YAML or JSON value (or key: value) a line holds from its
// start, without a trailing comment or the JSON punctuation after it.
func token(s string) string {
	s, _, _ = strings.Cut(s, " #")
	if strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s[1:], '"') + 2
		tok, rest := s[:end], s[end:]
		if strings.HasPrefix(rest, ": ") { // a key given twice: with its value
			return tok + ": " + token(rest[2:])
		}
		return tok
	}
	if i := strings.IndexAny(s, ",}"); i >= 0 {
		s = s[:i]
	}
	return s
}
