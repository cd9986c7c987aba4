//go:build unix

package taintlint_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileReads runs the built binary on repositories whose files a
// run reads outside the manifests (configuration, baseline, policies,
// .helmignore, values, subchart archives) are devices, named pipes or
// compression bombs. Each must end promptly, in little memory, with
// exit status 2 and one line naming the file (or a parse-error at it),
// never hang or read without end.
func TestHostileReads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	bin := filepath.Join(buildTaintlint(t), "taintlint")
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: a}]}\n"
	chart := func(dir string) {
		must(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "templates", "pod.yaml"), []byte(pod), 0o644))
	}
	fifo := func(p string) {
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, syscall.Mkfifo(p, 0o644))
	}
	link := func(target, p string) {
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.Symlink(target, p))
	}
	write := func(p, s string) {
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(s), 0o644))
	}
	cases := []struct {
		name  string
		setup func(dir string) []string // the arguments after check
		code  int
		want  []string // in stdout + stderr
	}{
		{"configuration links to /dev/zero", func(d string) []string {
			link("/dev/zero", filepath.Join(d, ".taintlint.yaml"))
			write(filepath.Join(d, "pod.yaml"), pod)
			return []string{"pod.yaml"}
		}, 2, []string{".taintlint.yaml", "symbolic link leads outside the repository"}},
		{"--config names a link to /dev/zero", func(d string) []string {
			link("/dev/zero", filepath.Join(d, "cfg.yaml"))
			write(filepath.Join(d, "pod.yaml"), pod)
			return []string{"--config", "cfg.yaml", "pod.yaml"}
		}, 2, []string{"cfg.yaml", "character device"}},
		{"configuration is a FIFO", func(d string) []string {
			fifo(filepath.Join(d, ".taintlint.yaml"))
			write(filepath.Join(d, "pod.yaml"), pod)
			return []string{"pod.yaml"}
		}, 2, []string{".taintlint.yaml", "named pipe"}},
		{"--config names /dev/urandom", func(d string) []string {
			write(filepath.Join(d, "pod.yaml"), pod)
			return []string{"--config", "/dev/urandom", "pod.yaml"}
		}, 2, []string{"/dev/urandom", "character device"}},
		{"baseline is a FIFO", func(d string) []string {
			write(filepath.Join(d, ".taintlint.yaml"), "baseline: base.json\n")
			fifo(filepath.Join(d, "base.json"))
			write(filepath.Join(d, "pod.yaml"), pod)
			return []string{"pod.yaml"}
		}, 2, []string{"baseline", "named pipe"}},
		{"--baseline /dev/zero", func(d string) []string {
			write(filepath.Join(d, "pod.yaml"), pod)
			write(filepath.Join(d, "empty.yaml"), "")
			return []string{"--config", "empty.yaml", "--baseline", "/dev/zero", "pod.yaml"}
		}, 2, []string{"--baseline", "character device"}},
		{"policy is a FIFO", func(d string) []string {
			write(filepath.Join(d, ".taintlint.yaml"), "policies: [policy]\n")
			fifo(filepath.Join(d, "policy", "evil.rego"))
			write(filepath.Join(d, "pod.yaml"), pod)
			return []string{"pod.yaml"}
		}, 2, []string{"evil.rego", "named pipe"}},
		{"--policy names a link to /dev/zero", func(d string) []string {
			link("/dev/zero", filepath.Join(d, "evil.rego"))
			write(filepath.Join(d, "pod.yaml"), pod)
			write(filepath.Join(d, "empty.yaml"), "")
			return []string{"--config", "empty.yaml", "--policy", "evil.rego", "pod.yaml"}
		}, 2, []string{"evil.rego", "character device"}},
		{"a policy directory holds a link to /dev/zero", func(d string) []string {
			link("/dev/zero", filepath.Join(d, "policy", "evil.rego"))
			write(filepath.Join(d, "pod.yaml"), pod)
			write(filepath.Join(d, "empty.yaml"), "")
			return []string{"--config", "empty.yaml", "--policy", "policy", "pod.yaml"}
		}, 2, []string{"evil.rego", "leads outside the policy directory"}},
		{".helmignore is a FIFO", func(d string) []string {
			chart(filepath.Join(d, "chart"))
			fifo(filepath.Join(d, "chart", ".helmignore"))
			write(filepath.Join(d, "empty.yaml"), "")
			return []string{"--config", "empty.yaml", "--format", "json", "chart"}
		}, 1, []string{"chart/.helmignore", "named pipe"}},
		{"--values is a FIFO", func(d string) []string {
			chart(filepath.Join(d, "chart"))
			fifo(filepath.Join(d, "values.yaml"))
			write(filepath.Join(d, "empty.yaml"), "")
			return []string{"--config", "empty.yaml", "--values", "values.yaml", "chart"}
		}, 1, []string{"values.yaml", "not a regular file"}},
		// 20 copies of one small subchart archive that unpacks to 20 MiB:
		// charged at their compressed size, they took the run to 3.45 GB
		// under --max-input-mib 4.
		{"subchart archives unpack past the budget", func(d string) []string {
			chart(filepath.Join(d, "chart"))
			sub := subchartArchive(t)
			for i := range 20 {
				write(filepath.Join(d, "chart", "charts", fmt.Sprintf("sub%d-0.1.0.tgz", i)), string(sub))
			}
			write(filepath.Join(d, "empty.yaml"), "")
			return []string{"--config", "empty.yaml", "--max-input-mib", "4", "chart"}
		}, 2, []string{"--max-input-mib"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"check"}, c.setup(dir)...)
			var out bytes.Buffer
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Stdout, cmd.Stderr = &out, &out
			must(t, cmd.Start())
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running after 60 s: %s", out.String())
			}
			code := cmd.ProcessState.ExitCode()
			rss := int64(0)
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				rss = ru.Maxrss * 1024 // includes this process (CLONE_VM): an upper bound
			}
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q: %.3000s", w, out.String())
				}
			}
			if strings.Contains(out.String(), "panic") {
				t.Errorf("panic: %s", out.String())
			}
			if rss > 1<<30 {
				t.Errorf("peak RSS %d MiB", rss>>20)
			}
		})
	}
}

// subchartArchive is a packaged chart of a few KB whose templates unpack
// to 20 MiB (four files of almost 5 MiB, Helm's limit per file).
func subchartArchive(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	must(t, err)
	tw := tar.NewWriter(zw)
	add := func(name string, data []byte) {
		must(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}))
		_, err := tw.Write(data)
		must(t, err)
	}
	add("sub/Chart.yaml", []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n"))
	for i := range 4 {
		add(fmt.Sprintf("sub/templates/t%d.yaml", i), bytes.Repeat([]byte("#"), 5<<20-1024))
	}
	must(t, tw.Close())
	must(t, zw.Close())
	return buf.Bytes()
}

// TestHostileRoot: a repository's configuration and committed links
// cannot make a run read a file outside the repository into its report.
// The secret stands in for ~/.docker/config.json or a kubeconfig: it must
// never appear in any output, and the refusal names the setting or link.
func TestHostileRoot(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	bin := filepath.Join(buildTaintlint(t), "taintlint")
	const secret = "ghp_SECRETTOKEN0123456789"
	outside := t.TempDir()
	secretValues := filepath.Join(outside, "config.json")
	must(t, os.WriteFile(secretValues, []byte(`{"auths": {"x": {"auth": "`+secret+`"}}}`), 0o644))
	secretPod := filepath.Join(outside, "pod.yaml")
	must(t, os.WriteFile(secretPod, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: leak}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations: [{key: \""+secret+"!\", operator: Equal, value: x, effect: Nope}]\n"), 0o644))
	// A chart whose template prints all its values into a toleration key.
	chart := func(dir string) {
		must(t, os.MkdirAll(filepath.Join(dir, "chart", "templates"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "chart", "Chart.yaml"), []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "chart", "templates", "pod.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations: [{key: {{ .Values | toJson | quote }}, operator: Exists}]\n"), 0o644))
	}
	cases := []struct {
		name   string
		config string
		setup  func(dir string)
		args   []string
		code   int
		want   []string
		leaks  bool // the user named the file on the command line: it is read
	}{
		{"values file absolute", "helm:\n  charts:\n    chart:\n      values: [" + secretValues + "]\n", chart, []string{"chart"}, 2, []string{"helm.charts[chart].values[0]", "is absolute"}, false},
		{"values file up and out", "helm:\n  charts:\n    chart:\n      values: [../../../../../../../../.." + secretValues + "]\n", chart, []string{"chart"}, 2, []string{"helm.charts[chart].values[0]", "leaves the repository"}, false},
		{"values file through a committed link", "helm:\n  charts:\n    chart:\n      values: [values.yaml]\n", func(d string) {
			chart(d)
			must(t, os.Symlink(secretValues, filepath.Join(d, "values.yaml")))
		}, []string{"chart"}, 2, []string{"helm.charts[chart].values[0]", "symbolic link"}, false},
		{"values file through a linked directory", "helm:\n  charts:\n    chart:\n      values: [vendor/config.json]\n", func(d string) {
			chart(d)
			must(t, os.Symlink(outside, filepath.Join(d, "vendor")))
		}, []string{"chart"}, 2, []string{"helm.charts[chart].values[0]", "symbolic link"}, false},
		{"nodes outside", "nodes: [" + secretPod + "]\n", func(d string) { chart(d) }, []string{"chart"}, 2, []string{"nodes[0]", "is absolute"}, false},
		{"policies outside", "policies: [../../../../../../../../../tmp]\n", func(d string) { chart(d) }, []string{"chart"}, 2, []string{"policies[0]", "leaves the repository"}, false},
		{"baseline through a link", "baseline: b.json\n", func(d string) {
			chart(d)
			must(t, os.Symlink(secretValues, filepath.Join(d, "b.json")))
		}, []string{"chart"}, 2, []string{"baseline", "symbolic link"}, false},
		{"policy directory holds a link out", "policies: [policy]\n", func(d string) {
			chart(d)
			must(t, os.MkdirAll(filepath.Join(d, "policy"), 0o755))
			must(t, os.Symlink(secretValues, filepath.Join(d, "policy", "kube.rego")))
		}, []string{"chart"}, 2, []string{"kube.rego", "leads outside the policy directory"}, false},
		{"the configuration itself links out", "", func(d string) {
			chart(d)
			must(t, os.Remove(filepath.Join(d, ".taintlint.yaml")))
			must(t, os.WriteFile(filepath.Join(outside, "c.yaml"), []byte("severity: {"+secret+": error}\n"), 0o644))
			must(t, os.Symlink(filepath.Join(outside, "c.yaml"), filepath.Join(d, ".taintlint.yaml")))
		}, []string{"chart"}, 2, []string{".taintlint.yaml", "symbolic link leads outside the repository"}, false},
		{"walk meets a link out", "", func(d string) {
			must(t, os.MkdirAll(filepath.Join(d, "app"), 0o755))
			must(t, os.Symlink(secretPod, filepath.Join(d, "app", "leak.yaml")))
			must(t, os.WriteFile(filepath.Join(d, "app", "ok.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\nspec: {containers: [{name: a, image: a}]}\n"), 0o644))
		}, []string{"app"}, 1, []string{"app/leak.yaml:1:1", "symbolic link leads outside the repository", "[parse-error]", "1 object(s)"}, false},
		{"walk follows links that stay inside", "", func(d string) {
			must(t, os.MkdirAll(filepath.Join(d, "app", "sub"), 0o755))
			must(t, os.WriteFile(filepath.Join(d, "app", "ok.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\nspec: {containers: [{name: a, image: a}]}\n"), 0o644))
			must(t, os.Symlink("ok.yaml", filepath.Join(d, "app", "same.yaml")))
			must(t, os.Symlink("./ok.yaml", filepath.Join(d, "app", "dot.yaml")))
			must(t, os.Symlink("../ok.yaml", filepath.Join(d, "app", "sub", "up.yaml")))
		}, []string{"app"}, 0, []string{"0 error(s)", "4 object(s)"}, false},
		{"--values on the command line is the user's", "", chart, []string{"--values", secretValues, "chart"}, 1, []string{"toleration"}, true},
		{"a named link on the command line is the user's", "", func(d string) {
			must(t, os.Symlink(secretPod, filepath.Join(d, "named.yaml")))
		}, []string{"named.yaml"}, 1, []string{"toleration-effect-invalid"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, ".taintlint.yaml"), []byte(c.config), 0o644))
			c.setup(dir)
			for _, format := range []string{"text", "sarif"} {
				var out bytes.Buffer
				cmd := exec.Command(bin, append([]string{"check", "--format", format}, c.args...)...)
				cmd.Dir = dir
				cmd.Stdout, cmd.Stderr = &out, &out
				cmd.Run()
				if code := cmd.ProcessState.ExitCode(); code != c.code {
					t.Errorf("%s: exit %d, want %d: %.3000s", format, code, c.code, out.String())
				}
				if leaked := strings.Contains(out.String(), secret); leaked != c.leaks {
					t.Errorf("%s: secret in the output: %v, want %v: %.3000s", format, leaked, c.leaks, out.String())
				}
				if format != "text" {
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(out.String(), w) {
						t.Errorf("output lacks %q: %.3000s", w, out.String())
					}
				}
			}
		})
	}
}

// TestHostileHelm: a chart's templates cannot hold a run without bound.
// Rendering happens in a worker process the run kills at --helm-timeout
// and on Ctrl-C or SIGTERM, and that stops itself past --max-helm-mib.
func TestHostileHelm(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	bin := filepath.Join(buildTaintlint(t), "taintlint")
	dir := t.TempDir()
	chart := func(name, tpl string) string {
		d := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Join(d, "templates"), 0o755))
		must(t, os.WriteFile(filepath.Join(d, "Chart.yaml"), []byte("apiVersion: v2\nname: "+name+"\nversion: 0.1.0\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(d, "templates", "x.yaml"), []byte(tpl), 0o644))
		return d
	}
	loop := chart("loop", "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n")
	big := chart("big", "x: {{ range until 3000 }}{{ repeat 1000000 \"x\" }}{{ end }}\n")
	repeated := chart("repeated", "x: {{ repeat 1000000000 \"xxx\" }}\n")
	nested := chart("nested", "{{ range $i := until 100000 }}{{ range until 100000 }}{{ $i }}{{ end }}{{ end }}\n")
	empty := filepath.Join(dir, "empty.yaml")
	must(t, os.WriteFile(empty, nil, 0o644))
	run := func(t *testing.T, sig os.Signal, args ...string) (int, string, time.Duration, int64) {
		var out bytes.Buffer
		cmd := exec.Command(bin, append([]string{"check", "--config", empty}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &out
		must(t, cmd.Start())
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		start := time.Now()
		if sig != nil {
			time.Sleep(2 * time.Second) // well into the render
			start = time.Now()
			must(t, cmd.Process.Signal(sig))
		}
		select {
		case <-done:
		case <-time.After(90 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("still running after 90 s: %s", out.String())
		}
		rss := int64(0)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss * 1024 // this process, taintlint and its worker: an upper bound
		}
		return cmd.ProcessState.ExitCode(), out.String(), time.Since(start), rss
	}
	t.Run("loop past --helm-timeout", func(t *testing.T) {
		code, out, took, _ := run(t, nil, "--helm-timeout", "2s", loop)
		if code != 2 || !strings.Contains(out, "--helm-timeout") || !strings.Contains(out, "loop") {
			t.Errorf("exit %d: %s", code, out)
		}
		if took > 30*time.Second {
			t.Errorf("took %v for a 2 s deadline", took)
		}
	})
	t.Run("one huge repeat", func(t *testing.T) {
		// One allocation of 3 GB would outrun the memory watch, which
		// samples: repeat refuses it before allocating.
		code, out, _, rss := run(t, nil, "--format", "json", "--max-input-mib", "1", "--max-helm-mib", "256", repeated)
		if code != 1 || !strings.Contains(out, "repeat: 1000000000 copies of 3 bytes is over 256 MiB; not made") {
			t.Errorf("exit %d: %s", code, out)
		}
		if rss > 1<<30 {
			t.Errorf("peak RSS %d MiB", rss>>20)
		}
	})
	t.Run("huge string past --max-helm-mib", func(t *testing.T) {
		code, out, _, rss := run(t, nil, "--max-input-mib", "1", "--max-helm-mib", "256", big)
		if code != 2 || !strings.Contains(out, "--max-helm-mib") {
			t.Errorf("exit %d: %s", code, out)
		}
		if rss > 1<<30 {
			t.Errorf("peak RSS %d MiB", rss>>20)
		}
	})
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(fmt.Sprint(sig), func(t *testing.T) {
			code, out, took, _ := run(t, sig, nested)
			if code != 2 {
				t.Errorf("exit %d: %s", code, out)
			}
			// A second, with headroom for a loaded machine's scheduling.
			if took > 3*time.Second {
				t.Errorf("stopped %v after the signal, want within a second", took)
			}
		})
	}
}
