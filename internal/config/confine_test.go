package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestConfine(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, f := range []string{"nodes.yaml", "values.yaml", "chart/Chart.yaml", "policy/p.rego"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("token: x"), 0o644)
	links := runtime.GOOS != "windows"
	if links {
		os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(root, "leak.yaml"))
		os.Symlink(outside, filepath.Join(root, "out"))
		os.Symlink("values.yaml", filepath.Join(root, "inside-link.yaml"))
	}
	abs := filepath.Join(outside, "secret.yaml")
	for _, tc := range []struct {
		name, yaml string
		want       string // "" allowed; else in the error
		needsLinks bool
	}{
		{"inside", "nodes: [nodes.yaml]\npolicies: [policy]\nbaseline: base.json\nhelm:\n  charts:\n    chart:\n      values: [values.yaml]\n", "", false},
		{"missing but inside", "nodes: [nowhere.yaml]\n", "", false},
		{"dot", "policies: [.]\n", "", false},
		{"absolute values", "helm:\n  charts:\n    chart:\n      values: [" + abs + "]\n", ":4:16: helm.charts[chart].values[0]: \"" + abs + "\" is absolute", false},
		{"parent values", "helm:\n  charts:\n    chart:\n      values: [../x/secret.yaml]\n", ":4:16: helm.charts[chart].values[0]: \"../x/secret.yaml\" leaves the repository", false},
		{"chart outside", "helm:\n  charts:\n    ../chart: {}\n", ":3:15: helm.charts[../chart]: ", false},
		{"nodes absolute", "nodes:\n- /etc/passwd\n", ":2:3: nodes[0]: \"/etc/passwd\" is absolute", false},
		{"policy parent", "policies: [policy/../../p]\n", ":1:12: policies[0]:", false},
		{"baseline parent", "baseline: ../b.json\n", ":1:11: baseline:", false},
		{"values link out", "helm:\n  charts:\n    chart:\n      values: [leak.yaml]\n", "leads outside the repository through a symbolic link", true},
		{"directory link out", "nodes: [out/secret.yaml]\n", "leads outside the repository through a symbolic link", true},
		{"link inside", "nodes: [inside-link.yaml]\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needsLinks && !links {
				t.Skip("no symbolic links")
			}
			path := filepath.Join(root, FileName)
			f, err := Parse(path, []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			f.Dir = root
			err = f.Confine(root)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Confine = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Confine = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
