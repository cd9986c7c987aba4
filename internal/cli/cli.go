// Package cli is taintlint's command line: it parses flags and the
// configuration file into lint.Options, runs, renders and maps the outcome
// to an exit status. Run is the whole program, so tests drive it in-process.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/taintlint/taintlint/internal/config"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rego"
	"github.com/taintlint/taintlint/report"
	"github.com/taintlint/taintlint/rules"
	"github.com/taintlint/taintlint/rules/builtin"
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
			fmt.Fprintf(env.Stderr, "taintlint: %s\n", oneLine(re.err.Error()))
			return re.code
		}
		// cobra's own errors: unknown command or flag, bad flag value.
		fmt.Fprintf(env.Stderr, "taintlint: %s\n", oneLine(err.Error()))
		return ExitFailure
	}
	return code
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
	root.AddCommand(newCheck(env, code), newExplain(env), newRules(env), newVersion(env))
	return root
}

// checkFlags are the flags of check.
type checkFlags struct {
	nodes          []string
	format         string
	output         string
	failOn         string
	enable         []string
	disable        []string
	policies       []string
	configPath     string
	featureGates   string
	showSuppressed bool
	kustomize      bool
	allowRemote    bool
	enableHelm     bool
	stdinName      string
	color          string
	values         []string
	set            []string
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
	fl.StringArrayVar(&f.nodes, "nodes", nil, "node inventory: file or directory of Node, NodeList or List objects (repeatable)")
	fl.StringVar(&f.format, "format", "text", "output format: text, json, sarif or github")
	fl.StringVarP(&f.output, "output", "o", "", "write the report to `FILE` instead of standard output")
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 when a finding is at or above: error, warning, note or never (default error)")
	fl.StringSliceVar(&f.enable, "enable", nil, "turn on rules by id (comma-separated; all for every rule)")
	fl.StringSliceVar(&f.disable, "disable", nil, "turn off rules by id (comma-separated)")
	fl.StringArrayVar(&f.policies, "policy", nil, "directory of extra Rego rules (repeatable)")
	fl.StringVar(&f.configPath, "config", "", "configuration `FILE` (default: .taintlint.yaml found upward from the working directory)")
	fl.StringVar(&f.featureGates, "feature-gates", "", "Kubernetes feature gates, NAME=BOOL,... (TaintTolerationComparisonOperators)")
	fl.BoolVar(&f.showSuppressed, "show-suppressed", false, "list suppressed findings too (text, json and github; sarif always marks them)")
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
	return cmd
}

func runCheck(cmd *cobra.Command, env Env, f checkFlags, args []string) (int, error) {
	ctx := cmd.Context()
	cfg, err := loadConfig(env, f.configPath)
	if err != nil {
		return ExitFailure, failure("%v", err)
	}
	format, err := report.ParseFormat(f.format)
	if err != nil {
		return ExitFailure, failure("--format: %v", err)
	}
	failOnName := f.failOn
	if failOnName == "" {
		failOnName = cfg.FailOn
	}
	threshold, err := parseFailOn(failOnName)
	if err != nil {
		return ExitFailure, failure("--fail-on: %v", err)
	}
	opts, err := buildOptions(cmd, cfg, f, env)
	if err != nil {
		return ExitFailure, err
	}
	opts.Paths = args
	for _, a := range args {
		if a == "-" && env.Stdin == nil {
			return ExitFailure, failure("-: no standard input")
		}
	}

	res, err := lint.Run(ctx, opts)
	if err != nil {
		return ExitFailure, failure("%v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "taintlint: warning: %s\n", w)
	}

	out := env.Stdout
	var file *os.File
	if f.output != "" {
		file, err = os.Create(f.output)
		if err != nil {
			return ExitFailure, failure("--output: %v", err)
		}
		out = file
	}
	ropts := report.Options{
		Color:          format == report.Text && f.output == "" && useColor(f.color, env),
		ShowSuppressed: f.showSuppressed,
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
	for _, f := range []*os.File{file, summary} {
		if f == nil {
			continue
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
	}
	if werr != nil {
		return ExitFailure, failure("writing report: %v", werr)
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
		return 0, fmt.Errorf("unknown level %q (want error, warning, note or never)", s)
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

func loadConfig(env Env, path string) (*config.File, error) {
	if path == "" {
		dir := env.Dir
		if dir == "" {
			dir = "."
		}
		path = config.Find(dir)
		if path == "" {
			return &config.File{}, nil
		}
	}
	return config.Load(path)
}

// buildOptions merges flags over the configuration file.
func buildOptions(cmd *cobra.Command, cfg *config.File, f checkFlags, env Env) (lint.Options, error) {
	ctx := cmd.Context()
	var opts lint.Options
	for name, on := range cfg.FeatureGates {
		if err := opts.Gates.Set(name, on); err != nil {
			return opts, failure("%s: featureGates: %v", cfg.Path, err)
		}
	}
	if err := opts.Gates.Parse(f.featureGates); err != nil {
		return opts, failure("--feature-gates: %v", err)
	}
	policies := f.policies
	for _, p := range cfg.Policies {
		policies = append(policies, cfg.Resolve(p))
	}
	all, err := AllRules(ctx, policies)
	if err != nil {
		return opts, failure("%v", err)
	}
	opts.Rules = all
	opts.Enable = append(append([]string(nil), cfg.Enable...), f.enable...)
	opts.Disable = append(append([]string(nil), cfg.Disable...), f.disable...)
	if len(cfg.Severity) > 0 {
		opts.Severity = map[string]rules.Severity{}
		for id, s := range cfg.Severity {
			sev, err := rules.ParseSeverity(s)
			if err != nil {
				return opts, failure("%s: severity.%s: %v", cfg.Path, id, err)
			}
			opts.Severity[id] = sev
		}
	}
	for _, s := range cfg.Suppress {
		opts.Suppress = append(opts.Suppress, lint.Suppression{Rules: s.Rules, Paths: s.Paths, Objects: s.Objects, Reason: s.Reason})
	}
	if opts.Admission, err = cfg.Admission.K8s(cfg.Path); err != nil {
		return opts, failure("%v", err)
	}
	opts.RuntimeTaintKeys = cfg.RuntimeTaints
	opts.Nodes = append(opts.Nodes, f.nodes...)
	for _, n := range cfg.Nodes {
		opts.Nodes = append(opts.Nodes, cfg.Resolve(n))
	}
	kustomize := f.kustomize
	if cfg.Kustomize != nil && !cmd.Flags().Changed("kustomize") {
		kustomize = *cfg.Kustomize
	}
	ignore := cfg.Ignore
	opts.Loader = loader.Options{
		Kustomize:          kustomize,
		KustomizeFileRoots: true,
		AllowRemote:        f.allowRemote,
		EnableHelm:         f.enableHelm,
		Stdin:              env.Stdin,
		StdinName:          f.stdinName,
		Helm:               helmOptions(cfg, f),
	}
	if len(ignore) > 0 {
		opts.Loader.Ignore = func(p string, dir bool) bool {
			for _, g := range ignore {
				if lint.MatchGlob(g, p) || lint.MatchGlob(g, strings.TrimPrefix(p, "./")) {
					return true
				}
			}
			return false
		}
	}
	return opts, nil
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

// AllRules is every rule: built-in Go rules, embedded Rego rules and the
// custom Rego rules in policyDirs, validated together.
func AllRules(ctx context.Context, policyDirs []string) ([]*rules.Rule, error) {
	all := builtin.Rules()
	regoRules, err := rego.Load(ctx, policyDirs)
	if err != nil {
		return nil, err
	}
	all = append(all, regoRules...)
	if err := rules.Validate(all); err != nil {
		return nil, err
	}
	return all, nil
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
