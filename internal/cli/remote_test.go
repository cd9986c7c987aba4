package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/testnet"
)

// TestRemoteBaseNotFetched checks an overlay whose base is remote, with
// check and explain, without --allow-remote: nothing is fetched (a git on
// PATH that records being run never runs, a loopback listener that the URL
// names sees no connection, the temporary directory stays empty), the
// remote base is named at its line in a notice (not a finding: the run
// fails only for the local patch's own error), and the overlay's local
// resources and patches are still checked.
func TestRemoteBaseNotFetched(t *testing.T) {
	bin, tmp, work := t.TempDir(), t.TempDir(), t.TempDir()
	gitLog := filepath.Join(bin, "git-ran")
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\necho \"$@\" >> "+gitLog+"\nexit 1\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TMPDIR", tmp)
	addr, conns := testnet.Listen(t)
	overlay := filepath.Join(work, "overlay")
	base := "http://" + addr + "/org/manifests.git//base?ref=v1"
	write(t, filepath.Join(overlay, "kustomization.yaml"), "resources:\n- "+base+"\n- deployment.yaml\npatches:\n- path: tolerations.yaml\n")
	write(t, filepath.Join(overlay, "deployment.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: web\n")
	write(t, filepath.Join(overlay, "tolerations.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      tolerations:\n      - key: dedicated\n        operator: Exists\n        value: gpu\n")
	nodes := filepath.Join(work, "nodes.yaml")
	write(t, nodes, "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nspec:\n  taints:\n  - {key: dedicated, value: gpu, effect: NoSchedule}\n")
	noConfig := filepath.Join(work, "empty.yaml")
	write(t, noConfig, "")

	code, out, errs := run(t, "", "check", "--config", noConfig, "--format", "json", overlay)
	if code != 1 {
		t.Errorf("check exit %d, want 1; stderr %s", code, errs)
	}
	var rep struct {
		Findings []struct {
			Rule, Message, File string
			Line                int
		}
		Notices []string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var refused, patched bool
	for _, n := range rep.Notices {
		if strings.HasPrefix(n, filepath.ToSlash(overlay)+"/kustomization.yaml:2:") && strings.Contains(n, base) && strings.Contains(n, "is not fetched") {
			refused = true
		}
	}
	for _, f := range rep.Findings {
		switch {
		case f.Rule == "toleration-exists-with-value" && strings.HasSuffix(f.File, "overlay/tolerations.yaml") && f.Line == 11:
			patched = true
		case f.Rule == "parse-error":
			t.Errorf("unexpected parse-error: %+v", f)
		}
	}
	if !refused || !patched {
		t.Errorf("remote base named at its line in a notice: %v, local patch checked: %v; findings %+v, notices %q", refused, patched, rep.Findings, rep.Notices)
	}

	code, out, errs = run(t, "", "explain", "--config", noConfig, "--nodes", nodes, "--object", "Deployment/web", overlay)
	if code == 2 || !strings.Contains(out, "Deployment/web") {
		t.Errorf("explain exit %d, stdout %s, stderr %s; want the local Deployment explained", code, out, errs)
	}

	if data, err := os.ReadFile(gitLog); err == nil {
		t.Errorf("git ran: %s", data)
	}
	if n := conns.Load(); n > 0 {
		t.Errorf("%d connections to the loopback listener", n)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary directory: %d entries", len(left))
	}
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
