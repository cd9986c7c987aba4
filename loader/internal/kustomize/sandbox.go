package kustomize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/worker"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Kustomize builds run in a child process: the running executable started
// again with worker.KustomizeEnv set. krusty (sigs.k8s.io/kustomize/api
// v0.21.2) builds its loader itself and gives it no way to swap the git
// cloner (it runs the git found on PATH) or the HTTP client (a zero
// http.Client, so http.DefaultTransport); both are process-wide. In the
// child, when remote content is refused, PATH is empty (no program can be
// found, git included), http.DefaultTransport refuses every request and
// net.DefaultResolver every lookup, before kustomize starts, so no field of
// any kustomization, however spelt or however deep, can make kustomize
// reach out. The child's temporary directory is one the parent made and
// removes, so nothing a build writes is left behind.

// RunWorker is the Kustomize worker's side: it exits when the process was
// started as one (loader.RunKustomizeWorker calls it).
func RunWorker() {
	if os.Getenv(worker.KustomizeEnv) != "1" {
		return
	}
	if real := os.Getenv(helmShimEnv); real != "" {
		os.Exit(helmShim(real, os.Args[1:]))
	}
	// The reply goes to the real standard output; anything kustomize or
	// helm prints goes to standard error.
	out := os.Stdout
	os.Stdout = os.Stderr
	os.Exit(kustomizeWorker(os.Stdin, out))
}

type buildRequest struct {
	Dir         string `json:"dir"`
	Inject      bool   `json:"inject"`
	AllowRemote bool   `json:"allowRemote"`
	EnableHelm  bool   `json:"enableHelm"`
	// MaxBytes is what is left of the run's input budget (0: no limit),
	// MaxObjects the most objects the build may output (0: no limit).
	MaxBytes   int64 `json:"maxBytes,omitempty"`
	MaxObjects int   `json:"maxObjects,omitempty"`
}

type Resource struct {
	YAML   []byte           `json:"yaml"`
	Origin *resource.Origin `json:"origin,omitempty"`
}

type Reply struct {
	Resources []Resource `json:"resources"`
	Err       string     `json:"err,omitempty"`
	// Skipped are the remote references left out of kustomization files,
	// by file (absolute, as kustomize read it).
	Skipped []SkippedRef `json:"skipped,omitempty"`
	// Refused are the network requests and lookups the sandbox refused.
	Refused []string `json:"refused,omitempty"`
	// Read are the files the build read, as kustomize named them.
	Read []string `json:"read,omitempty"`
	// ReadBytes is what the build read (counted only under a budget);
	// OverBudget says it stopped for the budget, and Objects, when not
	// zero, is the output's size past MaxObjects (the output is left out).
	ReadBytes  int64 `json:"readBytes,omitempty"`
	OverBudget bool  `json:"overBudget,omitempty"`
	Objects    int   `json:"objects,omitempty"`
}

type SkippedRef struct {
	File string `json:"file"`
	RemoteRef
}

// ErrRemoteRefused is what the sandbox answers to every request.
var ErrRemoteRefused = errors.New("taintlint never reaches the network unless run with --allow-remote")

// refusals records what the sandbox refused.
type refusals struct {
	mu   sync.Mutex
	list []string
}

func (r *refusals) add(s string) {
	r.mu.Lock()
	r.list = append(r.list, s)
	r.mu.Unlock()
}

func (r *refusals) RoundTrip(req *http.Request) (*http.Response, error) {
	r.add(req.URL.String())
	return nil, fmt.Errorf("%s: %w", req.URL.Redacted(), ErrRemoteRefused)
}

func (r *refusals) dial(_ context.Context, network, addr string) (net.Conn, error) {
	r.add(network + " " + addr)
	return nil, ErrRemoteRefused
}

// kustomizeWorker reads one buildRequest, builds, and writes one buildReply.
func kustomizeWorker(in io.Reader, out io.Writer) int {
	var req buildRequest
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "kustomize worker: %v\n", err)
		return 2
	}
	helm := ""
	if req.EnableHelm {
		// Helm runs only when asked for; it is found before PATH goes.
		helm = "helm"
		if p, err := exec.LookPath("helm"); err == nil {
			helm = p
		}
		if !req.AllowRemote {
			// Kustomize runs helm pull for a chart it does not find
			// under charts/, and helm is a program of its own, outside
			// this process's sandbox: kustomize is handed this program
			// instead, which runs helm only to render (helmShim).
			exe, err := os.Executable()
			if err != nil {
				exe = "/nonexistent/taintlint-helm-shim"
			}
			os.Setenv(helmShimEnv, helm)
			helm = exe
		}
	}
	ref := &refusals{}
	if !req.AllowRemote {
		os.Setenv("PATH", "")
		http.DefaultTransport = ref
		net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: ref.dial}
	}
	fs := newBuildFS(req.Dir, req.Inject, req.AllowRemote)
	bud := input.New(req.MaxBytes)
	lfs := limitFS{FileSystem: fs, b: bud, over: new(atomic.Bool)}
	rep := Reply{}
	var m krustyResMap
	var err error
	if d, ok := directBuild(req.Dir, lfs); ok {
		m = d
	} else {
		// Start again as if the direct build had never read anything.
		fs = newBuildFS(req.Dir, req.Inject, req.AllowRemote)
		bud = input.New(req.MaxBytes)
		lfs = limitFS{FileSystem: fs, b: bud, over: new(atomic.Bool)}
		m, err = krustyRun(req.Dir, lfs, helm)
	}
	if bud != nil {
		rep.ReadBytes, rep.OverBudget = bud.Used(), lfs.over.Load()
	}
	if err == nil && req.MaxObjects > 0 && len(m.Resources()) > req.MaxObjects {
		rep.Objects = len(m.Resources())
		m = nil
	}
	if err == nil && m != nil {
		res := m.Resources()
		origins := make([]*resource.Origin, len(res))
		for i, r := range res {
			origins[i], _ = r.GetOrigin()
		}
		if req.Inject {
			err = m.RemoveOriginAnnotations()
		}
		for i, r := range res {
			if err != nil {
				break
			}
			var y []byte
			y, err = r.AsYAML()
			rep.Resources = append(rep.Resources, Resource{YAML: y, Origin: origins[i]})
		}
	}
	if err != nil && !rep.OverBudget {
		rep.Resources, rep.Err = nil, err.Error()
	}
	rep.Skipped = fs.skipped
	for p := range fs.read {
		rep.Read = append(rep.Read, p)
	}
	slices.Sort(rep.Read)
	ref.mu.Lock()
	rep.Refused = ref.list
	ref.mu.Unlock()
	if err := json.NewEncoder(out).Encode(rep); err != nil {
		return 2
	}
	return 0
}

// krustyResMap is what the worker uses of a build's output.
type krustyResMap interface {
	Resources() []*resource.Resource
	RemoveOriginAnnotations() error
}

// krustyRun is krusty's Run with every program kept out: builtin plugins
// only (no exec, container or Starlark functions, no legacy plugins), Helm
// off unless helm names the program, loads restricted to the
// kustomization root. Kustomize panics on some odd input; a panic is an
// error like any other.
func krustyRun(dir string, fs filesys.FileSystem, helm string) (m krustyResMap, err error) {
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("kustomize failed: %v", p)
		}
	}()
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	opts.PluginConfig.HelmConfig.Enabled = helm != ""
	opts.PluginConfig.HelmConfig.Command = helm
	opts.AddManagedbyLabel = false
	rm, err := krusty.MakeKustomizer(opts).Run(fs, dir)
	if err != nil {
		return nil, err
	}
	return rm, nil
}

// helmShimEnv names the helm program when the worker's own executable
// stands in for it (kustomize runs it as "helm" when Helm is enabled and
// remote content is not).
const helmShimEnv = "TAINTLINT_HELM_SHIM"

// helmProxy is where the helm a shim runs sends its HTTP requests, should
// it make any: an address nothing listens on, so every request fails
// without a DNS lookup of its host.
const helmProxy = "http://127.0.0.1:0"

// helmShim runs helm for kustomize when remote content is refused: only
// "helm version" and "helm template" run, and only with no argument that
// could make helm fetch (a URL, --repo, dependency updates); everything
// else ("helm pull" for a chart kustomize did not find locally, above
// all) is refused with a message naming helmCharts, which kustomize
// passes on in its error and taintlint reports at that line. The helm it
// runs has its HTTP proxy set to an address that refuses, as a second
// wall.
func helmShim(real string, args []string) int {
	refuse := func(why string) int {
		fmt.Fprintf(os.Stderr, "taintlint did not run `helm %s` for \"helmCharts\": %s, and taintlint never reaches the network unless run with --allow-remote (put the chart in the kustomization's charts directory)\n", strings.Join(args, " "), why)
		return 1
	}
	if len(args) == 0 {
		return refuse("no command")
	}
	switch args[0] {
	case "version":
	case "template":
		for _, a := range args[1:] {
			name, _, _ := strings.Cut(a, "=")
			switch {
			case strings.Contains(a, "://"):
				return refuse("helm would fetch " + a)
			case name == "--repo", name == "--dependency-update", name == "--dep-up", name == "--verify", name == "--keyring":
				return refuse(name + " makes helm fetch")
			}
		}
	default:
		return refuse("helm " + args[0] + " would download the chart")
	}
	cmd := exec.Command(real, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		cmd.Env = append(cmd.Env, k+"="+helmProxy)
	}
	cmd.Env = append(cmd.Env, "NO_PROXY=", "no_proxy=")
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() > 0 {
			return exit.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "helm: %v\n", err)
		return 1
	}
	return 0
}

// runKustomize builds the kustomization breq names in a worker process (see
// worker.KustomizeEnv) and returns its output resources, the remote
// references it left out, and the requests the sandbox refused.
// Cancelling ctx kills the worker.
func runKustomize(ctx context.Context, breq buildRequest) (Reply, error) {
	if worker.Nested() {
		return Reply{}, worker.ErrNested
	}
	exe, err := os.Executable()
	if err != nil {
		return Reply{}, fmt.Errorf("kustomize build worker: %w", err)
	}
	tmp, err := os.MkdirTemp("", "taintlint-kustomize-")
	if err != nil {
		return Reply{}, fmt.Errorf("kustomize build worker: %w", err)
	}
	defer os.RemoveAll(tmp)
	req, err := json.Marshal(breq)
	if err != nil {
		return Reply{}, err
	}
	env := []string{worker.KustomizeEnv + "=1", "TMPDIR=" + tmp}
	if runtime.GOOS == "windows" {
		env = append(env, "TMP="+tmp, "TEMP="+tmp)
	}
	stdout, err := worker.Run(ctx, exe, env, req, "kustomize: ")
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		return Reply{}, fmt.Errorf("kustomize build worker: %w", err)
	}
	var rep Reply
	if err := json.Unmarshal(stdout, &rep); err != nil {
		return Reply{}, worker.ErrNested
	}
	return rep, nil
}
