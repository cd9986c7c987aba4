package taintlint_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taintlint/taintlint/rules/rulestest"
)

// TestHostileTree checks every case of testdata/hostile with all default
// rules: each broken file is a finding at its line (written beside it as a
// want comment), the run goes on, and nothing panics.
func TestHostileTree(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--format", "json", "--fail-on", "never", "--config", cfg}
	var paths []string
	entries, err := os.ReadDir(filepath.Join("testdata", "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "links" {
			paths = append(paths, filepath.Join("testdata", "hostile", e.Name()))
		}
	}
	rulestest.Expect(t, args, paths...)

	// Symbolic links and JSON cannot hold want comments: their findings
	// are listed here. A link to a directory is never followed, so a loop
	// through one cannot trap the walk.
	links := filepath.Join("testdata", "hostile", "links")
	findings, _ := rulestest.RunJSON(t, append(args, links))
	var got []string
	for _, f := range findings {
		got = append(got, fmt.Sprintf("%s:%d: %s", filepath.Base(f.File), f.Line, f.Message))
	}
	want := []string{
		"dangling.yaml:1: dangling symbolic link (-> does-not-exist.yaml)",
		"invalid.json:3: invalid YAML: did not find expected node content",
		"loop-a.yaml:1: symbolic link loop (-> loop-b.yaml)",
		"loop-b.yaml:1: symbolic link loop (-> loop-a.yaml)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("links: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Hostile inputs too large to commit are generated here and run through
// the built binary, which must finish within a time bound, stay under a
// memory bound and exit 0 or 1 (never 2, never a panic).
const (
	hostileTimeout = 60 * time.Second
	hostileMaxRSS  = 1 << 30 // bytes
)

func TestHostileLarge(t *testing.T) {
	// The tests that build or run taintlint overlap: most of their time
	// is spent waiting on the linker and the disk, not on a core.
	t.Parallel()
	if testing.Short() {
		t.Skip("large generated inputs: skipped with -short")
	}
	bin := filepath.Join(buildTaintlint(t), "taintlint"+exeSuffix())
	dir := t.TempDir()
	pod := func(i int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations:\n  - {key: dedicated, operator: Equal, value: v%d, effect: NoSchedule}\n", i, i)
	}
	cases := []struct {
		name  string
		write func(path string) error
		code  int
		want  string // substring of the output; "" for none
	}{
		{"nesting 20000 deep", func(p string) error {
			return os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: {k: "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"}\n"), 0o644)
		}, 1, "parse-error"},
		{"2 MB single line", func(p string) error {
			return os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: long}\ndata: {k: \""+strings.Repeat("x", 2<<20)+"\"}\n"), 0o644)
		}, 0, ""},
		{"20000 documents", func(p string) error {
			var b bytes.Buffer
			for i := range 20000 {
				b.WriteString("---\n" + pod(i))
			}
			return os.WriteFile(p, b.Bytes(), 0o644)
		}, 0, "20000 object(s)"},
		{"100 MB file", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			chunk := []byte(strings.Repeat("# padding padding padding padding padding padding padding padding\n", 1<<14))
			for written := 0; written < 100<<20; written += len(chunk) {
				if _, err := f.Write(chunk); err != nil {
					f.Close()
					return err
				}
			}
			return f.Close()
		}, 1, "larger than 64 MiB"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case-%d.yaml", i))
			if err := c.write(path); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(path)
			var out, errb bytes.Buffer
			args := []string{bin, "check", "--config", filepath.Join(dir, "none.yaml"), path}
			// Go starts children with CLONE_VM, so a direct child's
			// ru_maxrss includes this test process; /usr/bin/time forks
			// from a small process and measures taintlint alone.
			timeTool, timeErr := exec.LookPath("time")
			if p, err := exec.LookPath("/usr/bin/time"); err == nil {
				timeTool, timeErr = p, nil
			}
			rssFile := filepath.Join(dir, "rss")
			if timeErr == nil {
				args = append([]string{timeTool, "-f", "%M", "-o", rssFile}, args...)
			}
			cmd := exec.Command(args[0], args[1:]...)
			if err := os.WriteFile(filepath.Join(dir, "none.yaml"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd.Stdout, cmd.Stderr = &out, &errb
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(hostileTimeout):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running after %v", hostileTimeout)
			}
			elapsed := time.Since(start)
			code := cmd.ProcessState.ExitCode()
			var rss int64
			if data, err := os.ReadFile(rssFile); err == nil {
				// The last field: a non-zero exit adds a line before it.
				if f := strings.Fields(string(data)); len(f) > 0 {
					fmt.Sscan(f[len(f)-1], &rss)
				}
				rss *= 1024 // kilobytes
			} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				rss = ru.Maxrss * 1024 // an upper bound: includes this process
			}
			t.Logf("%s: exit %d in %v, peak RSS %d MiB", c.name, code, elapsed.Round(time.Millisecond), rss>>20)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %.2000s\nstderr: %s", code, c.code, out.String(), errb.String())
			}
			if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine ") {
				t.Errorf("stderr shows a panic or goroutine dump: %.2000s", errb.String())
			}
			if c.want != "" && !strings.Contains(out.String(), c.want) {
				t.Errorf("output lacks %q: %.2000s", c.want, out.String())
			}
			if rss > hostileMaxRSS {
				t.Errorf("peak RSS %d MiB is over the %d MiB bound", rss>>20, hostileMaxRSS>>20)
			}
		})
	}
}
