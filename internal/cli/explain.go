package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/report"
)

// explainFlags are the flags of explain.
type explainFlags struct {
	nodes        []string
	object       string
	format       string
	configPath   string
	featureGates string
	kustomize    bool
	values, set  []string
}

func newExplain(env Env) *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:   "explain [PATH...] --nodes PATH --object Kind/namespace/name",
		Short: "Show where one workload's pods can run, node group by node group",
		Long: `Show the placement of one workload on every node group of the inventory:
for each group of nodes the scheduler cannot tell apart (same labels, taints,
cordon and allocatable), whether the pods fit and, if not, the first failing
kube-scheduler filter and why.

PATH is as for check (default .). --object names the workload as
Kind/namespace/name, or Kind/name when the manifest names no namespace
(Kind/name also finds it in any namespace if that is unambiguous). An
operator's resource with several pod templates (Elasticsearch node sets,
Spark's driver and executor, Rook's components) takes the template after a
#: Elasticsearch/logs#spec.nodeSets[1].podTemplate, SparkApplication/pi#spec.executor,
or the whole name its findings begin with when two share a path
(CephCluster/rook-ceph#"spec.placement.all (the mon pods, with spec.placement.all)").

Exit status: 0 when the placement was explained, 2 when the run failed or the
object is missing or ambiguous.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return runExplain(cmd, env, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.nodes, "nodes", nil, "node inventory: file or directory of Nodes or node pool definitions (repeatable)")
	fl.StringVar(&f.object, "object", "", "the workload to explain, `Kind/namespace/name[#template]` (required)")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	fl.StringVar(&f.configPath, "config", "", "configuration `FILE` (default: .taintlint.yaml found upward from the working directory)")
	fl.StringVar(&f.featureGates, "feature-gates", "", "Kubernetes feature gates, NAME=BOOL,... (TaintTolerationComparisonOperators)")
	fl.BoolVar(&f.kustomize, "kustomize", true, "build directories that hold a kustomization file (false: walk them as plain files)")
	fl.StringArrayVar(&f.values, "values", nil, "values `FILE` for every Helm chart read, as helm template --values (repeatable)")
	fl.StringArrayVar(&f.set, "set", nil, "set a Helm chart value, as helm template --set: `KEY=VALUE`[,...] (repeatable)")
	return cmd
}

func runExplain(cmd *cobra.Command, env Env, f explainFlags, args []string) error {
	if f.object == "" {
		return failure("explain: --object Kind/namespace/name is required")
	}
	if f.format != "text" && f.format != "json" {
		return failure("--format: unknown format %q (want text or json)", f.format)
	}
	limits := defaultLimits()
	budget := loader.NewBudget(limits.inputMiB << 20)
	cfg, err := loadConfig(env, f.configPath, budget)
	if err != nil {
		return failure("%v", err)
	}
	root := repoRoot(cfg, args, env)
	if err := cfg.Confine(configRoot(cfg, args, env)); err != nil {
		return failure("%v", err)
	}
	opts, err := buildOptions(cmd, cfg, checkFlags{nodes: f.nodes, featureGates: f.featureGates, kustomize: f.kustomize, values: f.values, set: f.set, stdinName: "-", limits: limits}, env, budget)
	if err != nil {
		return err
	}
	opts.Paths = args
	opts.Loader.Root = root
	for _, a := range args {
		if a == "-" && env.Stdin == nil {
			return failure("-: no standard input")
		}
	}
	in, placer, err := checker.LoadInput(cmd.Context(), opts.Options)
	if err != nil {
		return failure("%v", err)
	}
	w, err := findWorkload(in.Workloads, f.object)
	if err != nil {
		return failure("%v", err)
	}
	if placer == nil || placer.Inventory == nil {
		return failure("explain: no node inventory: give nodes with --nodes PATH (kubectl get nodes -o yaml > nodes.yaml) or nodes: in .taintlint.yaml")
	}
	// The run's inventory, placed in full (check's placements are brief).
	e := explanation(placer.Inventory.Place(w, scheduling.PlaceOptions{}), in.Gates)
	var werr error
	if f.format == "json" {
		werr = report.ExplanationJSON(env.Stdout, e)
	} else {
		werr = report.ExplanationText(env.Stdout, e)
	}
	if werr != nil {
		return failure("writing explanation: %v", werr)
	}
	return nil
}

// findWorkload finds the one workload spec names: Kind/namespace/name or
// Kind/name, and #template for one of an object's several pod templates
// (templateIs). Kinds compare case-insensitively; a namespace of "default"
// also matches a manifest that names none.
func findWorkload(ws []*k8s.Workload, spec string) (*k8s.Workload, error) {
	spec, template, hasTemplate := strings.Cut(spec, "#")
	parts := strings.Split(spec, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("--object %q: want Kind/namespace/name or Kind/name", spec)
	}
	kind, name := parts[0], parts[len(parts)-1]
	var found []*k8s.Workload
	for _, w := range ws {
		ref := w.Object.Ref
		if !strings.EqualFold(ref.Kind, kind) || ref.Name != name {
			continue
		}
		if len(parts) == 3 && ref.Namespace != parts[1] && !(parts[1] == "default" && ref.Namespace == "") {
			continue
		}
		found = append(found, w)
	}
	if len(found) == 0 {
		names := make([]string, len(ws))
		for i, w := range ws {
			names[i] = w.Object.Ref.String()
		}
		return nil, fmt.Errorf("--object %s: no workload of that kind, namespace and name among the inputs%s", spec, textdist.DidYouMean(spec, names))
	}
	if hasTemplate {
		var named, templates []string
		var of []*k8s.Workload
		for _, w := range found {
			if w.Template != "" {
				templates = append(templates, templateName(w))
			}
			if templateIs(w, template) {
				of = append(of, w)
				named = append(named, templateName(w))
			}
		}
		switch {
		case len(templates) == 0:
			return nil, fmt.Errorf("--object %s#%s: %s has one pod spec, with no template to name: drop #%s", spec, template, spec, template)
		case len(of) == 0:
			return nil, fmt.Errorf("--object %s#%s: no pod template %q; its templates: %s%s", spec, template, template, strings.Join(templates, ", "), textdist.DidYouMean(template, templates))
		case len(of) > 1 && sameObject(of):
			return nil, fmt.Errorf("--object %s#%s is ambiguous: pod templates %s; give the whole name", spec, template, strings.Join(named, ", "))
		}
		found = of
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case sameObject(found):
		var templates []string
		for _, w := range found {
			templates = append(templates, "#"+templateName(w))
		}
		return nil, fmt.Errorf("--object %s is ambiguous: %s at %s has %d pod templates: %s; name one after a #", spec, found[0].Object.Ref, found[0].Object.Pos(), len(found), strings.Join(templates, ", "))
	}
	var where []string
	for _, w := range found {
		where = append(where, fmt.Sprintf("%s at %s", w.Object.Ref, w.Object.Pos()))
	}
	hint := "name the namespace, or check one path"
	if len(parts) == 3 {
		// The namespace was named: the same object is in several files.
		hint = "check one path"
	}
	return nil, fmt.Errorf("--object %s is ambiguous: %s; %s", spec, strings.Join(where, ", "), hint)
}

// sameObject reports whether ws are pod templates of one object.
func sameObject(ws []*k8s.Workload) bool {
	for _, w := range ws[1:] {
		if w.Object != ws[0].Object {
			return false
		}
	}
	return true
}

// templateName is how --object names w's pod template: its path, or,
// for a pod an operator merges (whose path another may share), the
// whole name its findings begin with.
func templateName(w *k8s.Workload) string {
	if w.Merged() {
		return w.Template
	}
	return templatePath(w)
}

// templatePath is the path of w's pod template: Template up to the name
// an operator's pods are given in parentheses.
func templatePath(w *k8s.Workload) string {
	path, _, _ := strings.Cut(w.Template, " (")
	return path
}

// templateIs reports whether name names w's pod template: its path, or
// the whole name its findings begin with.
func templateIs(w *k8s.Workload, name string) bool {
	return w.Template != "" && (name == w.Template || name == templatePath(w))
}

func modeText(p *scheduling.Placement) string {
	switch p.Mode {
	case scheduling.NodeName:
		return "spec.nodeName skips the scheduler; only the kubelet's admission check on that node applies"
	case scheduling.Daemon:
		return fmt.Sprintf("the DaemonSet controller creates one pod per node it picks (%d of %d), and the scheduler places each on its node", p.Picked, p.Total)
	}
	return "kube-scheduler places them"
}

// explanation is what explain shows of p; report lays it out.
func explanation(p *scheduling.Placement, gates k8s.FeatureGates) *report.Explanation {
	obj := p.Workload.Object
	e := &report.Explanation{
		Object: obj.Ref, Pos: obj.Pos(), Template: p.Workload.Template,
		Mode: [...]string{"scheduler", "nodeName", "daemonset"}[p.Mode], ModeText: modeText(p),
		Requests: p.Requests, NodeSelector: p.Pod.NodeSelector,
		Total: p.Total, Fit: p.Fit, Rejected: p.Rejected, Conflict: p.Conflict, Message: p.Message,
	}
	for _, t := range p.Pod.Tolerations {
		src := string(t.Source)
		if t.Source == k8s.FromManifest {
			src = p.Workload.SpecPath.Child("tolerations").Index(t.Index).String()
		}
		e.Tolerations = append(e.Tolerations, report.ExplainedToleration{Toleration: t.Toleration, Text: scheduling.FormatToleration(t.Toleration), Source: src})
	}
	for i := range p.Results {
		r := &p.Results[i]
		g := report.ExplainedGroup{Nodes: r.Names(), Count: len(r.Nodes), Filter: r.Filter, Reasons: r.Reasons, Why: p.Why(r, gates)}
		if n := r.Nodes; len(n) > 0 && n[0] != nil && n[0].Compatible != nil && n[0].Object != nil {
			pos := n[0].Object.Pos()
			g.Source = fmt.Sprintf("%s:%d", pos.File, pos.Line)
			g.Why = strings.Replace(g.Why, "node(s)", "node pool(s)", 1)
			g.Allocatable, g.AllocatableSource = n[0].Node.Status.Allocatable, n[0].AllocatableSource
		}
		e.Groups = append(e.Groups, g)
	}
	var details []scheduling.Detail
	switch {
	case p.RunsNowhere():
		e.Message = p.NoNodesMessage()
		e.Result = e.Message
		details = p.NoNodesDetails(gates)
	case p.Message == "" && p.Mode == scheduling.Daemon:
		e.Result = fmt.Sprintf("the DaemonSet controller picks %d of %d node(s), and every daemon pod fits its node", p.Picked, p.Total)
	case p.Message == "":
		e.Result = fmt.Sprintf("fits %d of %d node(s)", p.Fit, p.Total)
	default:
		e.Result = p.Message
		if p.PendingNode != nil && !p.Conflict {
			e.Result += fmt.Sprintf(" (daemon pod for node %s)", p.PendingNode.Node.Name)
		}
		details = p.Details(gates)
	}
	for _, d := range details {
		e.Details = append(e.Details, d.Text)
	}
	return e
}
