package helmchart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/taintlint/taintlint/internal/helmrender"
	"github.com/taintlint/taintlint/internal/memstat"
	"github.com/taintlint/taintlint/loader/internal/worker"
)

// Helm charts are rendered in a child process, as Kustomize builds are
// (worker.KustomizeEnv): Go's template engine cannot be interrupted, so a
// template that loops ({{ range until 100000 }} twice) or builds a huge
// string ({{ repeat 1000000000 "x" }}) is stopped only by ending the
// process it runs in. The worker gets the chart's files as Helm's loader
// read them, the values files' bytes and the --set assignments, and
// renders exactly as the run would have in-process; the parent kills it
// at --helm-timeout, on Ctrl-C, and it exits itself when its memory grows
// past --max-helm-mib.

// helmOverMemory is the worker's exit status when it stopped for memory.
const helmOverMemory = 3

type renderFile struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
}

type renderRequest struct {
	Files       []renderFile `json:"files"`  // Chart.Raw
	Values      []renderFile `json:"values"` // values files, in order
	Set         []string     `json:"set"`
	ReleaseName string       `json:"releaseName"`
	Namespace   string       `json:"namespace"`
	KubeVersion string       `json:"kubeVersion"`
	APIVersions []string     `json:"apiVersions"`
	MaxMemory   int64        `json:"maxMemory"`
}

type renderReply struct {
	Manifests map[string]string                `json:"manifests"`
	Unchecked []helmrender.Unchecked           `json:"unchecked,omitempty"`
	Uses      map[string][]helmrender.ValueUse `json:"uses,omitempty"`
	Err       string                           `json:"err,omitempty"`
}

// RunWorker is the worker's side: it exits when the process was
// started as one (RunKustomizeWorker calls it first).
func RunWorker() {
	if os.Getenv(worker.HelmEnv) != "1" {
		return
	}
	os.Exit(helmWorker(os.Stdin, os.Stdout))
}

func helmWorker(in io.Reader, out io.Writer) int {
	var req renderRequest
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "helm render worker: %v\n", err)
		return 2
	}
	if req.MaxMemory > 0 {
		go watchMemory(req.MaxMemory)
	}
	rep := renderReply{}
	res, err := renderRequested(req)
	if err != nil {
		rep.Err = err.Error()
	}
	if res != nil {
		rep.Manifests, rep.Unchecked, rep.Uses = res.Manifests, res.Unchecked, res.Uses
	}
	if err := json.NewEncoder(out).Encode(rep); err != nil {
		return 2
	}
	return 0
}

// renderRequested loads the chart from its files, merges the values as
// Render does, and renders.
func renderRequested(req renderRequest) (res *helmrender.Result, err error) {
	defer func() {
		if x := recover(); x != nil {
			res, err = nil, fmt.Errorf("%v", x)
		}
	}()
	files := make([]*chartloader.BufferedFile, len(req.Files))
	for i, f := range req.Files {
		files[i] = &chartloader.BufferedFile{Name: f.Name, Data: f.Data}
	}
	ch, err := chartloader.LoadFiles(files)
	if err != nil {
		return nil, err
	}
	vals := map[string]any{}
	for _, v := range req.Values {
		m := map[string]any{}
		if err := sigsyaml.Unmarshal(v.Data, &m); err != nil {
			return nil, fmt.Errorf("values file %s: %w", v.Name, err)
		}
		vals = mergeValues(vals, m)
	}
	for _, s := range req.Set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("--set %s: %w", s, err)
		}
	}
	return renderValues(ch, vals, Settings{ReleaseName: req.ReleaseName, Namespace: req.Namespace, KubeVersion: req.KubeVersion, APIVersions: req.APIVersions})
}

// watchMemory ends the worker once the memory it holds from the system
// has grown by more than limit: the total the runtime has mapped, which
// grows at the allocation itself, not at the next collection.
func watchMemory(limit int64) {
	total := memstat.Reader("/memory/classes/total:bytes")
	base := total()
	for range time.Tick(5 * time.Millisecond) {
		if total()-base > limit {
			os.Exit(helmOverMemory)
		}
	}
}

// errHelmMemory is a render stopped for its memory.
var errHelmMemory = errors.New("helm render worker: over its memory")

// renderInWorker renders ch in a worker process with the values files
// (in order) and assignments; cancelling ctx kills it. When the program
// cannot start workers (a test binary without the TestMain hook), it
// renders in-process.
func renderInWorker(ctx context.Context, ch *chart.Chart, values []valuesDoc, sets []string, ho Settings, maxMemory int64) (*helmrender.Result, error) {
	if worker.Nested() {
		return nil, worker.ErrNested
	}
	req := renderRequest{Set: sets, ReleaseName: ho.ReleaseName, Namespace: ho.Namespace, KubeVersion: ho.KubeVersion, APIVersions: ho.APIVersions, MaxMemory: maxMemory}
	for _, f := range ch.Raw {
		req.Files = append(req.Files, renderFile{Name: f.Name, Data: f.Data})
	}
	for _, v := range values {
		req.Values = append(req.Values, renderFile{Name: v.name, Data: v.data})
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("helm render worker: %w", err)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	stdout, err := worker.Run(ctx, exe, []string{worker.HelmEnv + "=1"}, body, "helm: ")
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == helmOverMemory {
			return nil, errHelmMemory
		}
		return nil, fmt.Errorf("helm render worker: %w", err)
	}
	var rep renderReply
	if err := json.Unmarshal(stdout, &rep); err != nil {
		return nil, worker.ErrNested
	}
	res := &helmrender.Result{Manifests: rep.Manifests, Unchecked: rep.Unchecked, Uses: rep.Uses}
	if rep.Err != "" {
		return res, errors.New(rep.Err)
	}
	return res, nil
}

// renderLimited renders ch as renderValues does, in a worker process
// when opts bound Helm rendering (Timeout, MaxMemory), else
// in-process. Past a bound the error is a *Limit naming the chart
// and the flag.
func renderLimited(ctx context.Context, name string, ch *chart.Chart, vals map[string]any, values []valuesDoc, sets []string, opts Options) (*helmrender.Result, error) {
	ho := opts.Settings
	if opts.Timeout <= 0 && opts.MaxMemory <= 0 {
		return renderValues(ch, vals, ho)
	}
	rctx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	res, err := renderInWorker(rctx, ch, values, sets, ho, opts.MaxMemory)
	switch {
	case errors.Is(err, worker.ErrNested):
		return renderValues(ch, vals, ho)
	case err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded):
		return nil, &Limit{Name: name, Msg: fmt.Sprintf("the Helm chart did not render within %v (--helm-timeout); stopped", opts.Timeout)}
	case errors.Is(err, errHelmMemory):
		return nil, &Limit{Name: name, Msg: fmt.Sprintf("rendering the Helm chart took more than %d MiB of memory (--max-helm-mib); stopped", opts.MaxMemory>>20)}
	}
	return res, err
}
