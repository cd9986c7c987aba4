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

	"github.com/taintlint/taintlint/internal/clitest"
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
	clitest.Expect(t, args, paths...)

	// Symbolic links and JSON cannot hold want comments: their findings
	// are listed here. A link to a directory is never followed, so a loop
	// through one cannot trap the walk.
	links := filepath.Join("testdata", "hostile", "links")
	findings, _ := clitest.RunJSON(t, append(args, links))
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
// the built binary, which must exit as the case says (never panic), stay
// under a memory bound and within a CPU-time bound. CPU time, not wall
// time, so that a loaded CI machine (two cores shared with other jobs)
// does not fail the test: each bound is about ten times what the case
// takes on such a machine, and far below what the quadratic algorithms
// the cases guard against took (each noted beside its case). Wall time
// only guards against a hang.
const (
	hostileTimeout = 120 * time.Second // wall: a hang
	hostileMaxRSS  = 1 << 30           // bytes, unless a case says less
	hostileMaxCPU  = 20 * time.Second  // user + system, unless a case says less
)

// caseFile in a case's arguments stands for the file the case writes.
const caseFile = "<case file>"

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
	tolerations := func(n int, each func(i int) string) string {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: many}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations:\n")
		for i := range n {
			b.WriteString(each(i))
		}
		return b.String()
	}
	cases := []struct {
		name   string
		write  func(path string) error
		args   []string // before the path
		code   int
		want   string // substring of the output; "" for none
		maxCPU time.Duration
		maxRSS int64
	}{
		{"nesting 20000 deep", func(p string) error {
			return os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: {k: "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"}\n"), 0o644)
		}, nil, 1, "parse-error", 0, 0},
		{"2 MB single line", func(p string) error {
			return os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: long}\ndata: {k: \""+strings.Repeat("x", 2<<20)+"\"}\n"), 0o644)
		}, nil, 0, "", 0, 0},
		{"20000 documents", func(p string) error {
			var b bytes.Buffer
			for i := range 20000 {
				b.WriteString("---\n" + pod(i))
			}
			return os.WriteFile(p, b.Bytes(), 0o644)
		}, nil, 0, "20000 object(s)", 60 * time.Second, 0}, // about 6-11 s of CPU
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
		}, nil, 1, "larger than 64 MiB", 0, 0},
		// 52 s before (the rule's first-index comprehension ran once per
		// toleration); about 1 s of CPU after.
		{"10000 tolerations, toleration-without-affinity", func(p string) error {
			return os.WriteFile(p, []byte(tolerations(10000, func(i int) string {
				return fmt.Sprintf("  - {key: k%d, operator: Equal, value: v, effect: NoSchedule}\n", i)
			})), 0o644)
		}, []string{"--enable", "all"}, 0, "[toleration-without-affinity]", 10 * time.Second, 512 << 20},
		// Over 120 s before; about 2 s of CPU after.
		{"20000 aliases of one toleration", func(p string) error {
			return os.WriteFile(p, []byte(tolerations(1, func(int) string {
				return "  - &t {key: k, operator: Equal, value: v, effect: NoSchedule}\n" + strings.Repeat("  - *t\n", 20000)
			})), 0o644)
		}, []string{"--enable", "all"}, 0, "[toleration-without-affinity]", 20 * time.Second, 512 << 20},
		// Three nodes with 10,000 distinct taints each and a DaemonSet that
		// tolerates none: daemonset-uncovered-nodes asked, for every taint,
		// every group's taint array (Rego membership), and the facts key of
		// a group copied itself for every taint. Over 300 s before; about
		// 4 s of CPU after.
		{"nodes with 10000 taints", func(p string) error {
			var b strings.Builder
			for n := range 3 {
				fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: tainted-%d}\nspec:\n  taints:\n", n)
				for i := range 10000 {
					fmt.Fprintf(&b, "  - {key: example.com/n%d-k%d, value: v, effect: NoSchedule}\n", n, i)
				}
			}
			b.WriteString("---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: a, image: a}]\n")
			return os.WriteFile(p, []byte(b.String()), 0o644)
		}, []string{"--enable", "all", "--nodes", caseFile}, 0, "example.com/n2-k9999=v:NoSchedule on 1 node", 40 * time.Second, 0},
		// One kustomization listing 5,000 objects: kustomize v0.21.2
		// compares every object with every other (5,000 took over 60 s
		// and hit --kustomize-timeout; 1,500 took 5.7 s); a kustomization
		// that only lists local files is now built directly (loader's
		// directBuild), in linear time: about 8 s of CPU and 400 MiB,
		// most of it the build worker's. (20,000, the default
		// --max-kustomize-objects, took 35 s of CPU and 921 MiB: too long
		// for every CI run.)
		{"5000 objects in one kustomization", func(p string) error {
			return writeKustomization(p, 5000, pod)
		}, nil, 0, "5000 object(s)", 60 * time.Second, 768 << 20},
		// A NodePool of 400 requirement keys against a pod selecting 400
		// other keys, each about 250 bytes (220 KB): the "typo of" hints
		// measured every pair in full, 78 s; now under a second.
		{"400 pool keys against 400 selector keys", func(p string) error {
			prefix := strings.Repeat("a", 180) + ".example.com/"
			var b strings.Builder
			b.WriteString("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: wide}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n")
			for i := range 400 {
				fmt.Fprintf(&b, "      - {key: %spool-%055d, operator: In, values: [v]}\n", prefix, i)
			}
			b.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n  nodeSelector:\n")
			for i := range 400 {
				fmt.Fprintf(&b, "    %spod-%056d: v\n", prefix, i)
			}
			return os.WriteFile(p, []byte(b.String()), 0o644)
		}, []string{"--nodes", caseFile}, 1, "0/1 node pools are available", 10 * time.Second, 0},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case-%d.yaml", i))
			if err := c.write(path); err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(path)
			var out, errb bytes.Buffer
			args := []string{bin, "check", "--config", filepath.Join(dir, "none.yaml")}
			for _, a := range c.args {
				if a == caseFile { // the case's own file, as the inventory
					a = path
				}
				args = append(args, a)
			}
			args = append(args, path)
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
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
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
			t.Logf("%s: exit %d in %v (CPU %v), peak RSS %d MiB", c.name, code, elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), rss>>20)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %.2000s\nstderr: %s", code, c.code, out.String(), errb.String())
			}
			if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine ") {
				t.Errorf("stderr shows a panic or goroutine dump: %.2000s", errb.String())
			}
			if c.want != "" && !strings.Contains(out.String(), c.want) {
				t.Errorf("output lacks %q: %.2000s", c.want, out.String())
			}
			maxRSS, maxCPU := int64(hostileMaxRSS), hostileMaxCPU
			if c.maxRSS > 0 {
				maxRSS = c.maxRSS
			}
			if c.maxCPU > 0 {
				maxCPU = c.maxCPU
			}
			if rss > maxRSS {
				t.Errorf("peak RSS %d MiB is over the %d MiB bound", rss>>20, maxRSS>>20)
			}
			if cpu > maxCPU {
				t.Errorf("CPU time %v is over the %v bound", cpu.Round(time.Millisecond), maxCPU)
			}
		})
	}
}

// writeKustomization makes dir a kustomization listing one file of n
// documents.
func writeKustomization(dir string, n int, doc func(int) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	for i := range n {
		b.WriteString("---\n" + doc(i))
	}
	if err := os.WriteFile(filepath.Join(dir, "all.yaml"), b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [all.yaml]\n"), 0o644)
}
