// Package cli is taintlint's command line: it parses flags and the
// configuration file into lint.Options, runs, renders and maps the outcome
// to an exit status. Run is the whole program, so tests drive it in-process.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/config"
	"github.com/taintlint/taintlint/internal/escape"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/report"
	"github.com/taintlint/taintlint/rules"
)

// Exit statuses (contract: Exit status).
const (
	ExitOK       = 0 // no finding at or above --fail-on
	ExitFindings = 1 // at least one
	ExitFailure  = 2 // the run itself failed
)

// Env is the process environment Run may use: nothing else reaches it.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Dir is the working directory for finding .taintlint.yaml ("" for the
	// process's).
	Dir string
	// options, when set, receives the options check would run with, and
	// check stops there (CheckOptions).
	options func(lint.Options)
}

// runError carries an exit status through cobra's error returns.
type runError struct {
	code int
	err  error
}

func (e *runError) Error() string { return e.err.Error() }

func failure(format string, args ...any) error {
	return &runError{code: ExitFailure, err: fmt.Errorf(format, args...)}
}

// Run runs taintlint with args (without the program name) and returns the
// exit status.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	code := ExitOK
	root := newRoot(ctx, env, &code)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		var re *runError
		if errors.As(err, &re) {
			fmt.Fprintf(env.Stderr, "taintlint: %s\n", escape.Line(oneLine(re.err.Error())))
			return re.code
		}
		// cobra's own errors: unknown command or flag, bad flag value.
		fmt.Fprintf(env.Stderr, "taintlint: %s\n", escape.Line(oneLine(err.Error())))
		return ExitFailure
	}
	return code
}

// CheckOptions returns the lint.Options that taintlint check would run
// with for args (without the program name, "check" first): configuration,
// flags and defaults read exactly as check reads them, and nothing run.
// It is for harnesses that run the driver on rule values themselves
// (rules/rulestest). The error holds what check would print.
func CheckOptions(ctx context.Context, args []string, env Env) (lint.Options, error) {
	var opts lint.Options
	got := false
	var stderr strings.Builder
	env.Stderr = &stderr
	env.options = func(o lint.Options) { opts, got = o, true }
	if code := Run(ctx, args, env); code != ExitOK || !got {
		return opts, fmt.Errorf("taintlint %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(stderr.String()))
	}
	return opts, nil
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " (" + strings.Join(strings.Fields(s[i+1:]), " ") + ")"
	}
	return s
}

func newRoot(ctx context.Context, env Env, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:   "taintlint",
		Short: "Find taint and toleration problems in Kubernetes manifests before they deploy",
		Long: `taintlint reads Kubernetes manifests (files, directories, standard input,
Kustomize trees) and a node inventory, and reports taints and tolerations the
API server would reject, pods that can land on no node, DaemonSets that skip
nodes, and toleration hygiene problems.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newCheck(env, code), newExplain(env), newRules(env), newVersion(env))
	return root
}

// flagError adds the nearest flag of the command to pflag's "unknown
// flag: --node", as cobra does for mistyped commands.
func flagError(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if n := textdist.Nearest(name, names); n != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, n)
	}
	return err
}

// checkFlags are the flags of check.
type checkFlags struct {
	nodes          []string
	nodeState      string
	format         string
	output         string
	failOn         string
	enable         []string
	disable        []string
	policies       []string
	configPath     string
	featureGates   string
	showSuppressed bool
	verbose        bool
	kustomize      bool
	allowRemote    bool
	enableHelm     bool
	stdinName      string
	color          string
	baseline       string
	writeBaseline  string
	limits         limitFlags
	values         []string
	set            []string
}

// limitFlags bound what a run may hold and how long its parts may take
// (README: Security). Flags only: .taintlint.yaml belongs to the
// repository under check, which must not be able to lift them.
type limitFlags struct {
	policyTimeout    time.Duration
	kustomizeTimeout time.Duration
	inputMiB         int64
	kustomizeObjects int
	policyMiB        int64
	helmTimeout      time.Duration
	helmMiB          int64
}

// Defaults of the limits: above what a large repository needs (the
// realistic 100,000-document benchmark with 5,000 nodes reads 240 MiB),
// far below what would exhaust a CI runner.
const (
	defaultPolicyTimeout    = 10 * time.Second
	defaultKustomizeTimeout = 60 * time.Second
	defaultInputMiB         = 256
	defaultKustomizeObjects = 20000
	defaultPolicyMiB        = 1024
	defaultHelmTimeout      = 60 * time.Second
	defaultHelmMiB          = 1024
)

// defaultLimits are the limits of explain, which has no flags for them.
func defaultLimits() limitFlags {
	return limitFlags{defaultPolicyTimeout, defaultKustomizeTimeout, defaultInputMiB, defaultKustomizeObjects, defaultPolicyMiB, defaultHelmTimeout, defaultHelmMiB}
}

func (l limitFlags) loader() loader.Limits {
	return loader.Limits{InputBytes: l.inputMiB << 20, KustomizeTimeout: l.kustomizeTimeout, KustomizeObjects: l.kustomizeObjects, HelmTimeout: l.helmTimeout, HelmMemory: l.helmMiB << 20}
}

func (l limitFlags) rego() rego.Limits {
	return rego.Limits{EvalTimeout: l.policyTimeout, Memory: l.policyMiB << 20}
}

func newCheck(env Env, code *int) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [flags] [PATH|-]...",
		Short: "Check manifests and report findings",
		Long: `Check manifests and report findings.

PATH is a file (.yaml, .yml, .json), a directory (walked recursively; a
directory with a kustomization file is built with Kustomize), or - for
standard input. No PATH means the current directory.

Exit status: 0 when no finding is at or above --fail-on, 1 when one is,
2 when the run itself failed.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			c, err := runCheck(cmd, env, f, args)
			*code = c
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.nodes, "nodes", nil, "node inventory: file or directory of Nodes (kubectl get nodes -o yaml) or node pool definitions: Karpenter NodePool, eksctl ClusterConfig, Cluster API MachineDeployment/MachineSet, kOps InstanceGroup, OpenShift MachineSet (repeatable)")
	fl.StringVar(&f.nodeState, "node-state", "stable", "inventory nodes' transient taints and cordons: stable (left out) or as-is")
	fl.StringVar(&f.format, "format", "text", "output format: text, json, sarif or github")
	fl.StringVarP(&f.output, "output", "o", "", "write the report to `FILE` instead of standard output")
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 when a finding is at or above: error, warning, note or never (default error)")
	fl.StringSliceVar(&f.enable, "enable", nil, "turn on rules by id (comma-separated; all for every rule)")
	fl.StringSliceVar(&f.disable, "disable", nil, "turn off rules by id (comma-separated)")
	fl.StringArrayVar(&f.policies, "policy", nil, "directory of extra Rego rules (repeatable)")
	fl.StringVar(&f.configPath, "config", "", "configuration `FILE` (default: .taintlint.yaml found upward from the working directory)")
	fl.StringVar(&f.featureGates, "feature-gates", "", "Kubernetes feature gates, NAME=BOOL,... (TaintTolerationComparisonOperators)")
	fl.BoolVar(&f.showSuppressed, "show-suppressed", false, "list suppressed findings too (text, json and github; sarif always marks them)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "say what was checked: the objects by kind and by source (file, kustomize, helm) after the text summary; JSON always has them")
	fl.BoolVar(&f.kustomize, "kustomize", true, "build directories that hold a kustomization file (false: walk them as plain files)")
	// Flags only, never .taintlint.yaml: a configuration file in the
	// repository under check must not be able to open the network or run
	// a program.
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "let Kustomize fetch remote bases and files (git clone, HTTP)")
	fl.BoolVar(&f.enableHelm, "enable-helm", false, "let Kustomize inflate helmCharts by running helm from PATH")
	fl.StringArrayVar(&f.values, "values", nil, "values `FILE` for every Helm chart checked, as helm template --values (repeatable)")
	fl.StringArrayVar(&f.set, "set", nil, "set a Helm chart value, as helm template --set: `KEY=VALUE`[,...] (repeatable)")
	fl.StringVar(&f.stdinName, "stdin-filename", "-", "name to give standard input in findings")
	fl.StringVar(&f.color, "color", "auto", "colour text output: auto, always or never (NO_COLOR is honoured)")
	fl.StringVar(&f.baseline, "baseline", "", "report only findings not in the baseline `FILE` (written by --write-baseline)")
	fl.StringVar(&f.writeBaseline, "write-baseline", "", "record today's findings in `FILE` as accepted, and exit 0")
	l := &f.limits
	fl.DurationVar(&l.policyTimeout, "policy-timeout", defaultPolicyTimeout, "longest evaluation of one Rego policy on one object; 0 for none")
	fl.DurationVar(&l.kustomizeTimeout, "kustomize-timeout", defaultKustomizeTimeout, "longest Kustomize build of one kustomization; 0 for none")
	fl.Int64Var(&l.inputMiB, "max-input-mib", defaultInputMiB, "most MiB of input one run reads (files, standard input, files Kustomize reads); 0 for no limit")
	fl.IntVar(&l.kustomizeObjects, "max-kustomize-objects", defaultKustomizeObjects, "most objects one Kustomize build may output; 0 for no limit")
	fl.Int64Var(&l.policyMiB, "max-policy-mib", defaultPolicyMiB, "most MiB the heap may grow while Rego policies run; 0 for no limit")
	fl.DurationVar(&l.helmTimeout, "helm-timeout", defaultHelmTimeout, "longest rendering of one Helm chart; 0 for none")
	fl.Int64Var(&l.helmMiB, "max-helm-mib", defaultHelmMiB, "most MiB of memory rendering one Helm chart may take; 0 for no limit")
	return cmd
}

func runCheck(cmd *cobra.Command, env Env, f checkFlags, args []string) (int, error) {
	ctx := cmd.Context()
	// One input budget for the whole run: the configuration, baseline
	// and policies are charged to it, as every file the loader reads.
	budget := loader.NewBudget(f.limits.inputMiB << 20)
	cfg, err := loadConfig(env, f.configPath, budget)
	if err != nil {
		return ExitFailure, failure("%v", err)
	}
	root := repoRoot(cfg, args, env)
	if err := cfg.Confine(configRoot(cfg, args, env)); err != nil {
		return ExitFailure, failure("%v", err)
	}
	format, err := report.ParseFormat(f.format)
	if err != nil {
		return ExitFailure, failure("--format: %v", err)
	}
	if colors := []string{"auto", "always", "never"}; !slices.Contains(colors, f.color) {
		return ExitFailure, failure("--color: unknown mode %q%s (want auto, always or never)", f.color, textdist.DidYouMean(f.color, colors))
	}
	failOnName := f.failOn
	if failOnName == "" {
		failOnName = cfg.FailOn
	}
	threshold, err := parseFailOn(failOnName)
	if err != nil {
		return ExitFailure, failure("--fail-on: %v", err)
	}
	opts, err := buildOptions(cmd, cfg, f, env, budget)
	if err != nil {
		return ExitFailure, err
	}
	// --write-baseline records every finding, so no baseline applies.
	if f.writeBaseline == "" {
		baseline := f.baseline
		if baseline == "" && cfg.Baseline != "" {
			baseline = cfg.Resolve(cfg.Baseline)
		}
		if baseline != "" {
			b, err := lint.ReadBaseline(baseline, budget)
			if err != nil {
				if f.baseline == "" {
					return ExitFailure, failure("%s: baseline: %v", cfg.WhereValue("baseline"), err)
				}
				return ExitFailure, failure("--baseline: %v", err)
			}
			opts.Baseline, opts.BaselineFile = b, baseline
		}
	}
	opts.Paths = args
	opts.Loader.Root = root
	for _, a := range args {
		if a == "-" && env.Stdin == nil {
			return ExitFailure, failure("-: no standard input")
		}
	}
	if env.options != nil {
		env.options(opts)
		return ExitOK, nil
	}

	res, err := lint.Run(ctx, opts)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return ExitFailure, failure("interrupted: %v", context.Cause(ctx))
		}
		return ExitFailure, failure("%v", err)
	}
	if f.writeBaseline != "" {
		if err := lint.WriteBaseline(f.writeBaseline, lint.NewBaseline(res.Findings)); err != nil {
			return ExitFailure, failure("--write-baseline: %v", err)
		}
		fmt.Fprintf(env.Stderr, "taintlint: wrote %d finding(s) to %s; --baseline %s reports only new ones\n", len(res.Findings), escape.Line(f.writeBaseline), escape.Line(f.writeBaseline))
		threshold = 0
	}
	// Warnings quote annotation keys and comments of the manifests: one
	// escaped line each, so none can start a workflow command (the runner
	// reads standard error too) or reach the terminal as an escape.
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "taintlint: warning: %s\n", escape.Line(w))
	}

	out := env.Stdout
	var file *reportFile
	if f.output != "" {
		file, err = createReport(f.output)
		if err != nil {
			return ExitFailure, failure("--output: %v", err)
		}
		defer file.discard()
		out = file.f
	}
	ropts := report.Options{
		Color:          format == report.Text && f.output == "" && useColor(f.color, env),
		ShowSuppressed: f.showSuppressed,
		Verbose:        f.verbose,
		Version:        Version(),
	}
	var summary *os.File
	if format == report.GitHub {
		if p := env.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			summary, err = os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return ExitFailure, failure("GITHUB_STEP_SUMMARY: %v", err)
			}
			ropts.StepSummary = summary
		}
	}
	werr := report.Write(out, format, res, ropts)
	if summary != nil {
		if cerr := summary.Close(); werr == nil {
			werr = cerr
		}
	}
	if werr != nil {
		return ExitFailure, failure("writing report: %v", werr)
	}
	if file != nil {
		if err := file.commit(); err != nil {
			return ExitFailure, failure("--output: %v", err)
		}
	}
	return res.ExitCode(threshold), nil
}

func parseFailOn(s string) (rules.Severity, error) {
	switch s {
	case "", "error":
		return rules.Error, nil
	case "never":
		return 0, nil
	}
	sev, err := rules.ParseSeverity(s)
	if err != nil {
		return 0, fmt.Errorf("unknown level %q%s (want error, warning, note or never)", s, textdist.DidYouMean(s, []string{"error", "warning", "note", "never"}))
	}
	return sev, nil
}

func useColor(mode string, env Env) bool {
	if env.Getenv("NO_COLOR") != "" {
		return false
	}
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if fd, ok := env.Stdout.(interface{ Fd() uintptr }); ok {
		return term.IsTerminal(int(fd.Fd())) && env.Getenv("TERM") != "dumb"
	}
	return false
}

func loadConfig(env Env, path string, budget *loader.Budget) (*config.File, error) {
	if path == "" {
		dir := env.Dir
		if dir == "" {
			dir = "."
		}
		path = config.Find(dir)
		if path == "" {
			return &config.File{}, nil
		}
		// Found, not named: it is the repository's, and a link from it
		// to a file elsewhere (a kubeconfig) would quote that file's keys
		// in the errors.
		if why := outsideOwnDir(path); why != "" {
			return nil, fmt.Errorf("%s: %s; not read (name a configuration with --config to read it)", path, why)
		}
	}
	return config.Load(path, budget)
}

// buildOptions applies the flags over the configuration file.
func buildOptions(cmd *cobra.Command, cfg *config.File, f checkFlags, env Env, budget *loader.Budget) (lint.Options, error) {
	ctx := cmd.Context()
	var opts lint.Options
	policies := f.policies
	for i, p := range cfg.Policies {
		p = cfg.Resolve(p)
		if _, err := os.Stat(p); err != nil {
			return opts, failure("%s: policies[%d]: %v", cfg.WhereValue("policies", i), i, err)
		}
		policies = append(policies, p)
	}
	lim := f.limits.rego()
	lim.Input = budget
	all, err := checker.RulesLimited(ctx, policies, lim)
	if err != nil {
		return opts, failure("%v", err)
	}
	opts.Rules = all
	opts.Loader.Kustomize = f.kustomize
	if err := opts.Configure(cfg); err != nil {
		return opts, failure("%v", err)
	}
	if err := opts.Gates.Parse(f.featureGates); err != nil {
		return opts, failure("--feature-gates: %v", err)
	}
	opts.Enable = append(opts.Enable, f.enable...)
	opts.Disable = append(opts.Disable, f.disable...)
	if cmd.Flags().Changed("node-state") || cfg.NodeState == "" {
		if opts.NodeState, err = checker.ParseNodeState(f.nodeState); err != nil {
			return opts, failure("--node-state: %v", err)
		}
	}
	opts.Nodes = append(append([]string(nil), f.nodes...), opts.Nodes...)
	if cmd.Flags().Changed("kustomize") {
		opts.Loader.Kustomize = f.kustomize
	}
	// Standard input is kept as it is read, so that inline suppression
	// comments in it can be found after loading.
	var stdinCopy bytes.Buffer
	stdin := env.Stdin
	if stdin != nil {
		stdin = io.TeeReader(stdin, &stdinCopy)
	}
	opts.OpenFile = func(name string) (io.ReadCloser, error) {
		if name == f.stdinName && stdinCopy.Len() > 0 {
			return io.NopCloser(bytes.NewReader(stdinCopy.Bytes())), nil
		}
		return checker.OpenRegular(name)
	}
	opts.Loader.KustomizeFileRoots = true
	opts.Loader.AllowRemote = f.allowRemote
	opts.Loader.EnableHelm = f.enableHelm
	opts.Loader.Stdin, opts.Loader.StdinName = stdin, f.stdinName
	opts.Loader.Limits = f.limits.loader()
	opts.Loader.Budget = budget
	opts.Loader.Helm = helmOptions(cfg, f)
	return opts, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// helmOptions are the chart rendering settings: the configuration file's
// helm: section, with --values and --set for every chart.
func helmOptions(cfg *config.File, f checkFlags) loader.HelmOptions {
	ho := loader.HelmOptions{ValuesFiles: f.values, Set: f.set}
	h := cfg.Helm
	if h == nil {
		return ho
	}
	ho.ReleaseName, ho.Namespace = h.ReleaseName, h.Namespace
	ho.KubeVersion, ho.APIVersions = h.KubeVersion, h.APIVersions
	if len(h.Charts) == 0 {
		return ho
	}
	charts := map[string]config.HelmChart{}
	for p, c := range h.Charts {
		for i, v := range c.Values {
			c.Values[i] = cfg.Resolve(v)
		}
		charts[absPath(cfg.Resolve(p))] = c
	}
	ho.Chart = func(p string) ([]string, []string) {
		c := charts[absPath(p)]
		return c.Values, c.Set
	}
	return ho
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// Version is the module version and VCS revision from build info.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		return fmt.Sprintf("%s (commit %s%s)", v, rev, modified)
	}
	return v
}

func newVersion(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print taintlint's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bi, _ := debug.ReadBuildInfo()
			goVersion := ""
			if bi != nil {
				goVersion = bi.GoVersion
			}
			_, err := fmt.Fprintf(env.Stdout, "taintlint %s %s\n", Version(), goVersion)
			return err
		},
	}
}
