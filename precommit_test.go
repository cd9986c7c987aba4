package taintlint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// hookSpec is the part of a .pre-commit-hooks.yaml entry the tests check.
type hookSpec struct {
	ID            string   `yaml:"id"`
	Entry         string   `yaml:"entry"`
	Language      string   `yaml:"language"`
	Types         []string `yaml:"types"`
	PassFilenames *bool    `yaml:"pass_filenames"`
	RequireSerial bool     `yaml:"require_serial"`
}

// TestPreCommitHooksFile checks the hook definitions without pre-commit:
// the ids the README promises, and the settings each one depends on.
func TestPreCommitHooksFile(t *testing.T) {
	data, err := os.ReadFile(".pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []hookSpec
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	want := map[string]struct {
		language       string
		passFilenames  bool
		dockerfileNeed bool
	}{
		"taintlint":        {language: "golang", passFilenames: true},
		"taintlint-system": {language: "system", passFilenames: true},
		"taintlint-all":    {language: "golang", passFilenames: false},
		"taintlint-docker": {language: "docker", passFilenames: true, dockerfileNeed: true},
	}
	seen := map[string]bool{}
	for _, h := range hooks {
		w, ok := want[h.ID]
		if !ok {
			t.Errorf("unexpected hook %q", h.ID)
			continue
		}
		seen[h.ID] = true
		if h.Entry != "taintlint check" {
			t.Errorf("%s: entry %q, want %q", h.ID, h.Entry, "taintlint check")
		}
		if h.Language != w.language {
			t.Errorf("%s: language %q, want %q", h.ID, h.Language, w.language)
		}
		if strings.Join(h.Types, ",") != "yaml" {
			t.Errorf("%s: types %v, want [yaml]", h.ID, h.Types)
		}
		if pass := h.PassFilenames == nil || *h.PassFilenames; pass != w.passFilenames {
			t.Errorf("%s: pass_filenames %v, want %v", h.ID, pass, w.passFilenames)
		}
		if !h.RequireSerial {
			t.Errorf("%s: require_serial must be true: scheduling rules need every file in one run", h.ID)
		}
		if w.dockerfileNeed {
			if _, err := os.Stat("Dockerfile"); err != nil {
				t.Errorf("%s: language docker builds the repository's Dockerfile: %v", h.ID, err)
			}
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("hook %q is missing", id)
		}
	}
}

// TestPreCommit runs the real pre-commit against a throwaway repository
// made from testdata/integrations/repo, with the hooks taken from a snapshot
// of this working tree: the golang hooks build taintlint the way pre-commit
// does (go install ./... in a clone), offline, from the module cache.
// taintlint-docker is left out: it needs a Docker daemon.
func TestPreCommit(t *testing.T) {
	// The tests that build or run taintlint overlap: most of their time
	// is spent waiting on the linker and the disk, not on a core.
	t.Parallel()
	if testing.Short() {
		t.Skip("builds taintlint in pre-commit's environments; skipped with -short")
	}
	preCommit := lookTool(t, "pre-commit", "install it (apt-get install pre-commit, or pipx install pre-commit) to run this test")
	lookTool(t, "git", "install git")
	home := t.TempDir()
	env := toolEnv(t, "PRE_COMMIT_HOME="+home, "PRE_COMMIT_COLOR=never")

	hooks, commit := snapshotRepo(t, env)
	mustRun(t, ".", env, preCommit, "validate-manifest", filepath.Join(hooks, ".pre-commit-hooks.yaml"))

	work := filepath.Join(t.TempDir(), "work")
	copyTree(t, filepath.FromSlash("testdata/integrations/repo"), work)
	gitRepo(t, work, env)

	bin := buildTaintlint(t)
	systemEnv := toolEnv(t, "PRE_COMMIT_HOME="+home, "PRE_COMMIT_COLOR=never", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	// The README's snippet, pointed at the snapshot instead of GitHub.
	snippet, err := os.ReadFile(filepath.FromSlash("testdata/integrations/pre-commit-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := regexp.MustCompile(`(?m)^(\s*-?\s*repo:) .*$`).ReplaceAllString(string(snippet), "${1} "+filepath.ToSlash(hooks))
	cfg = regexp.MustCompile(`(?m)^(\s*rev:) .*$`).ReplaceAllString(cfg, "${1} "+commit)
	if cfg == string(snippet) || !strings.Contains(cfg, commit) {
		t.Fatalf("could not point the README snippet at the snapshot:\n%s", cfg)
	}
	cfgFile := filepath.Join(t.TempDir(), "pre-commit-config.yaml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, work, env, preCommit, "validate-config", cfgFile)
	// The golang hooks run through one configuration with the snapshot's
	// repository and revision, as the README snippet has them: pre-commit
	// builds one environment per repository and revision, so taintlint is
	// built once for every golang hook (try-repo would clone and build
	// again for each run).
	hooksCfg := filepath.Join(t.TempDir(), "hooks-config.yaml")
	hooksYAML := fmt.Sprintf("repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: taintlint\n  - id: taintlint-all\n", filepath.ToSlash(hooks), commit)
	if err := os.WriteFile(hooksCfg, []byte(hooksYAML), 0o644); err != nil {
		t.Fatal(err)
	}

	good := []string{"apps/web.yaml", "cluster/nodes.yaml", "chart/Chart.yaml", "chart/values.yaml", "chart/templates/deployment.yaml", "ci/pipeline.yml", ".taintlint.yaml"}
	tests := []struct {
		name string
		env  []string
		args []string
		code int
		out  []string // substrings of the output
		not  []string // must not appear
	}{
		{
			name: "README snippet, clean files, Helm templates and other YAML skipped",
			args: append([]string{"run", "--config", cfgFile, "--files"}, good...),
			code: 0,
		},
		{
			name: "README snippet, bad file",
			args: []string{"run", "--config", cfgFile, "--verbose", "--files", "apps/web.yaml", "apps/batch.yaml"},
			code: 1,
			// The inventory comes from .taintlint.yaml.
			out: []string{"apps/batch.yaml:18:9", "toleration-seconds-requires-noexecute", "1 node"},
		},
		{
			name: "hook taintlint, clean files",
			args: append([]string{"run", "taintlint", "--config", hooksCfg, "--files"}, good...),
			code: 0,
		},
		{
			name: "hook taintlint, bad file",
			args: []string{"run", "taintlint", "--config", hooksCfg, "--files", "apps/batch.yaml"},
			code: 1,
			out:  []string{"apps/batch.yaml:18:9", "toleration-seconds-requires-noexecute"},
		},
		{
			name: "hook taintlint-all checks the repository and honours ignore",
			args: []string{"run", "taintlint-all", "--config", hooksCfg, "--files", "apps/web.yaml"},
			code: 1,
			out:  []string{"apps/batch.yaml:18:9"},
			not:  []string{"legacy/old.yaml", "chart/templates"},
		},
		{
			name: "try-repo taintlint-system, clean files",
			env:  systemEnv,
			args: append([]string{"try-repo", hooks, "taintlint-system", "--ref", commit, "--files"}, good...),
			code: 0,
		},
		{
			name: "try-repo taintlint-system, all files",
			env:  systemEnv,
			args: []string{"try-repo", hooks, "taintlint-system", "--ref", commit, "--all-files"},
			code: 1,
			// Named explicitly, a file the configuration ignores in walks
			// is checked: use pre-commit's exclude: to leave it out.
			out: []string{"apps/batch.yaml:18:9", "legacy/old.yaml:18:9"},
			not: []string{"chart/templates"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env
			if tt.env != nil {
				e = tt.env
			}
			out, code := run(t, work, e, preCommit, tt.args...)
			if code != tt.code {
				t.Fatalf("pre-commit %s: exit %d, want %d\n%s", strings.Join(tt.args, " "), code, tt.code, out)
			}
			for _, s := range tt.out {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(out, s) {
					t.Errorf("output has %q:\n%s", s, out)
				}
			}
		})
	}
}
