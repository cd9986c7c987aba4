//go:build unix

package taintlint_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileSignals runs the built binary where a run is interrupted:
// SIGTERM (what CI sends a cancelled job) and Ctrl-C stop a run held by a
// slow repository policy within a second, with exit status 2; a run
// killed outright while it writes its report leaves the previous report
// whole.
func TestHostileSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	bin := filepath.Join(buildTaintlint(t), "taintlint")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	pod := filepath.Join(dir, "pod.yaml")
	policy := filepath.Join(dir, "policy")
	must(t, os.WriteFile(empty, nil, 0o644))
	must(t, os.WriteFile(pod, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n"), 0o644))
	must(t, os.MkdirAll(policy, 0o755))
	must(t, os.WriteFile(filepath.Join(policy, "slow.rego"), []byte(`# METADATA
# title: Slow rule
# description: Loops for minutes in little memory.
# related_resources:
#   - ref: https://example.com/slow
# custom:
#   id: acme-slow
#   severity: note
package acme.slow

deny contains {"msg": "never", "path": ""} if {
	some i in numbers.range(1, 100000)
	some j in numbers.range(1, 100000)
	i + j < 0
}
`), 0o644))

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "check", "--config", empty, "--policy", policy, "--policy-timeout", "0", pod)
			cmd.Stderr = &stderr
			must(t, cmd.Start())
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			time.Sleep(2 * time.Second) // well into the policy
			sent := time.Now()
			must(t, cmd.Process.Signal(sig))
			select {
			case <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				<-done
				t.Fatal("still running a minute after the signal")
			}
			took := time.Since(sent)
			t.Logf("%v: exit %d %v after the signal: %s", sig, cmd.ProcessState.ExitCode(), took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			// A second, with headroom for a loaded machine's scheduling.
			if took > 3*time.Second {
				t.Errorf("stopped %v after the signal, want within a second", took)
			}
		})
	}

	t.Run("killed while writing", func(t *testing.T) {
		out := filepath.Join(dir, "report.sarif")
		previous := []byte("the previous report\n")
		must(t, os.WriteFile(out, previous, 0o644))
		fifo := filepath.Join(dir, "summary.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		// The step summary is a FIFO nobody reads: the run blocks there,
		// after it has begun its report and before it ends.
		cmd := exec.Command(bin, "check", "--config", empty, "--format", "github", "-o", out, pod)
		cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+fifo)
		must(t, cmd.Start())
		deadline := time.Now().Add(time.Minute)
		for {
			m, _ := filepath.Glob(filepath.Join(dir, ".report.sarif.tmp-*"))
			fi, err := os.Stat(out)
			if len(m) > 0 || err == nil && fi.Size() == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, err := os.ReadFile(out)
		if err != nil || !bytes.Equal(got, previous) {
			t.Errorf("report after a killed run: %q, %v; want the previous report", got, err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
