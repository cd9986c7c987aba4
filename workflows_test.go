package taintlint_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// workflowFiles are the workflows the tests check: the project's own and
// the README's example.
func workflowFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(".github", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no workflows under .github/workflows")
	}
	return append(files, filepath.FromSlash("testdata/integrations/workflow.yml"))
}

// TestActionlint runs actionlint (with shellcheck on run: scripts when that
// is installed) on every workflow. Through the workflows' uses: ./, it also
// validates action.yml's metadata and the inputs the workflows pass.
func TestActionlint(t *testing.T) {
	actionlint := lookTool(t, "actionlint", "go install github.com/rhysd/actionlint/cmd/actionlint@latest to run this test")
	out, code := run(t, ".", toolEnv(t), actionlint, append([]string{"-no-color"}, workflowFiles(t)...)...)
	if code != 0 {
		t.Errorf("actionlint: exit %d\n%s", code, out)
	}
}

// TestShellcheck checks action.sh, which actionlint does not see.
func TestShellcheck(t *testing.T) {
	shellcheck := lookTool(t, "shellcheck", "apt-get install shellcheck to run this test")
	out, code := run(t, ".", toolEnv(t), shellcheck, "--shell=bash", "action.sh")
	if code != 0 {
		t.Errorf("shellcheck action.sh: exit %d\n%s", code, out)
	}
}

// workflow is the part of a workflow file the tests read.
type workflow struct {
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []actionStep      `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestWorkflowsUseTheAction checks what actionlint cannot know: a job that
// uploads taintlint's SARIF has the permissions the upload needs, the inputs
// it passes exist, and Go comes from go.mod.
func TestWorkflowsUseTheAction(t *testing.T) {
	a := readAction(t)
	usesAction := 0
	for _, file := range workflowFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var w workflow
		if err := yaml.Unmarshal(data, &w); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for name, job := range w.Jobs {
			perms := w.Permissions
			if job.Permissions != nil {
				perms = job.Permissions
			}
			if perms == nil {
				t.Errorf("%s: job %s: no permissions: the default token may be read-write", file, name)
			}
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] != "go.mod" {
					t.Errorf("%s: job %s: setup-go without go-version-file: go.mod", file, name)
				}
				if s.Uses != "./" && !strings.HasPrefix(s.Uses, "taintlint/taintlint@") {
					continue
				}
				usesAction++
				for k := range s.With {
					if _, ok := a.Inputs[k]; !ok {
						t.Errorf("%s: job %s: input %q is not in action.yml", file, name, k)
					}
				}
				if s.With["upload-sarif"] == "false" {
					continue
				}
				for perm, level := range map[string]string{"security-events": "write", "contents": "read", "actions": "read"} {
					if got := perms[perm]; got != level && !(level == "read" && got == "write") {
						t.Errorf("%s: job %s uploads SARIF: permission %s is %q, want %s", file, name, perm, got, level)
					}
				}
			}
		}
	}
	if usesAction < 2 {
		t.Errorf("the action is used in %d workflows, want the example workflow and the README's", usesAction)
	}
	ci, err := os.ReadFile(filepath.Join(".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ubuntu-latest", "macos-latest", "go build ./...", "go vet ./...", "go test ./..."} {
		if !strings.Contains(string(ci), want) {
			t.Errorf("ci.yml lacks %q", want)
		}
	}
}
