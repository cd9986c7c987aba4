// Package taintlint_test tests the files at the repository root that put
// taintlint where users run linters: the pre-commit hooks, the GitHub Action,
// the workflows and the README's copy-paste snippets. The tests run the real
// tools (pre-commit, git, bash, jq) when they are installed and skip, saying
// what is missing, when they are not; .ci/run installs them and lists them in
// TAINTLINT_REQUIRE_TOOLS, which turns those skips into failures.
package taintlint_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/taintlint/taintlint/loader"
)

// lookTool returns the path of an external program, or skips the test when
// it is not installed; it fails the test instead when TAINTLINT_REQUIRE_TOOLS
// (a comma-separated list of tool names, or "all") names the tool.
func lookTool(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := name + " is not on PATH; " + install
	if req := os.Getenv("TAINTLINT_REQUIRE_TOOLS"); req == "all" || slices.Contains(strings.Split(req, ","), name) {
		t.Fatalf("%s (TAINTLINT_REQUIRE_TOOLS=%s)", msg, req)
	}
	t.Skip(msg)
	return ""
}

// toolEnv is the environment for the tools the tests run: the module cache
// that the test binary's own build filled, and no network for Go (a hook
// that builds taintlint must not need one); nothing from an enclosing git
// hook, which would point git at another repository.
func toolEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	modcache := goEnv(t, "GOMODCACHE")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GIT_"), k == "GOFLAGS", k == "GOPROXY", k == "GOMODCACHE", k == "GOTOOLCHAIN", k == "PRE_COMMIT_HOME":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"GOMODCACHE="+modcache,
		"GOPROXY=off",
		"GOFLAGS=-mod=readonly",
		"GOTOOLCHAIN=local",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=taintlint test", "GIT_AUTHOR_EMAIL=test@taintlint.invalid",
		"GIT_COMMITTER_NAME=taintlint test", "GIT_COMMITTER_EMAIL=test@taintlint.invalid",
	)
	return append(env, extra...)
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	goTool := lookTool(t, "go", "install Go")
	out, err := exec.Command(goTool, "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// run runs a command in dir and returns its combined output and exit status;
// a command that cannot start fails the test.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return out.String(), ee.ExitCode()
		}
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return out.String(), 0
}

// mustRun is run for commands that must succeed.
func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, code := run(t, dir, env, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
	return out
}

// TestMain removes the binary buildTaintlint shares between the tests.
func TestMain(m *testing.M) {
	loader.RunKustomizeWorker() // in-process checks build kustomizations in this binary
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the taintlint binary of this test run: linking it takes half a
// minute on a busy two-core machine, so the tests build it once.
var built struct {
	once sync.Once
	dir  string
	err  error
}

// buildFlags are the flags action.yml builds with, so that the action's
// own go build finds the shared binary up to date (see runAction).
var buildFlags = []string{"-buildvcs=false"}

// buildTaintlint builds cmd/taintlint, once per test run, and returns the
// directory that holds it. Tests must not change the directory.
func buildTaintlint(t *testing.T) string {
	t.Helper()
	goTool := lookTool(t, "go", "install Go")
	env := toolEnv(t)
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "taintlint-test-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		args := append(append([]string{"build"}, buildFlags...), "-o", filepath.Join(dir, "taintlint"+exeSuffix()), "./cmd/taintlint")
		cmd := exec.Command(goTool, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

func exeSuffix() string {
	if filepath.Separator == '\\' {
		return ".exe"
	}
	return ""
}

// copyTree copies the regular files under src into dst, keeping modes.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, fi.Mode().Perm())
}

// gitRepo turns dir into a git repository with everything in it committed
// and returns the commit.
func gitRepo(t *testing.T, dir string, env []string) string {
	t.Helper()
	gitTool := lookTool(t, "git", "install git")
	mustRun(t, dir, env, gitTool, "init", "-q", "-b", "main")
	mustRun(t, dir, env, gitTool, "add", "-A")
	mustRun(t, dir, env, gitTool, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot")
	return strings.TrimSpace(mustRun(t, dir, env, gitTool, "rev-parse", "HEAD"))
}

// snapshotRepo copies this checkout as it is on disk, uncommitted changes
// and new files included, into a fresh git repository, so that tools that
// clone a commit (pre-commit) test the working tree and not the last commit.
func snapshotRepo(t *testing.T, env []string) (dir, commit string) {
	t.Helper()
	gitTool := lookTool(t, "git", "install git")
	out, code := run(t, ".", env, gitTool, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if code != 0 {
		t.Skipf("not a git checkout (git ls-files: %s); the snapshot needs one", strings.TrimSpace(out))
	}
	dir = filepath.Join(t.TempDir(), "taintlint")
	for _, name := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		if name == "" {
			continue
		}
		fi, err := os.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		if err := copyFile(name, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir, gitRepo(t, dir, env)
}
