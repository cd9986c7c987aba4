package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/k8s"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/internal/scheduling"
	"github.com/taintlint/taintlint/loader"
)

// explainFlags are the flags of explain.
type explainFlags struct {
	nodes        []string
	object       string
	format       string
	configPath   string
	featureGates string
	kustomize    bool
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
(Kind/name also finds it in any namespace if that is unambiguous).

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
	fl.StringArrayVar(&f.nodes, "nodes", nil, "node inventory: file or directory of Node, NodeList or List objects (repeatable)")
	fl.StringVar(&f.object, "object", "", "the workload to explain, `Kind/namespace/name` (required)")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	fl.StringVar(&f.configPath, "config", "", "configuration `FILE` (default: .taintlint.yaml found upward from the working directory)")
	fl.StringVar(&f.featureGates, "feature-gates", "", "Kubernetes feature gates, NAME=BOOL,... (TaintTolerationComparisonOperators)")
	fl.BoolVar(&f.kustomize, "kustomize", true, "build directories that hold a kustomization file (false: walk them as plain files)")
	return cmd
}

func runExplain(cmd *cobra.Command, env Env, f explainFlags, args []string) error {
	if f.object == "" {
		return failure("explain: --object Kind/namespace/name is required")
	}
	if f.format != "text" && f.format != "json" {
		return failure("--format: unknown format %q (want text or json)", f.format)
	}
	cfg, err := loadConfig(env, f.configPath)
	if err != nil {
		return failure("%v", err)
	}
	opts, err := buildOptions(cmd, cfg, checkFlags{nodes: f.nodes, featureGates: f.featureGates, kustomize: f.kustomize, stdinName: "-", limits: defaultLimits()}, env)
	if err != nil {
		return err
	}
	opts.Paths = args
	for _, a := range args {
		if a == "-" && env.Stdin == nil {
			return failure("-: no standard input")
		}
	}
	in, err := lint.LoadInput(cmd.Context(), opts)
	if err != nil {
		return failure("%v", err)
	}
	w, err := findWorkload(in.Workloads, f.object)
	if err != nil {
		return failure("%v", err)
	}
	if len(in.Nodes) == 0 {
		return failure("explain: no node inventory: give nodes with --nodes PATH (kubectl get nodes -o yaml > nodes.yaml) or nodes: in .taintlint.yaml")
	}
	inv := scheduling.NewInventory(in.Nodes, scheduling.Options{Gates: in.Gates, RuntimeClasses: in.RuntimeClasses, Admission: in.Admission.WithObjects(in.Objects), RuntimeTaintKeys: in.RuntimeTaintKeys})
	p := inv.Place(w, scheduling.PlaceOptions{})
	var werr error
	if f.format == "json" {
		werr = explainJSON(env.Stdout, p, in.Gates)
	} else {
		werr = explainText(env.Stdout, p, in.Gates)
	}
	if werr != nil {
		return failure("writing explanation: %v", werr)
	}
	return nil
}

// findWorkload finds the one workload spec names: Kind/namespace/name or
// Kind/name. Kinds compare case-insensitively; a namespace of "default"
// also matches a manifest that names none.
func findWorkload(ws []*k8s.Workload, spec string) (*k8s.Workload, error) {
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
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("--object %s: no workload of that kind, namespace and name among the inputs", spec)
	case 1:
		return found[0], nil
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

func modeText(p *scheduling.Placement) string {
	switch p.Mode {
	case scheduling.NodeName:
		return "spec.nodeName skips the scheduler; only the kubelet's admission check on that node applies"
	case scheduling.Daemon:
		return fmt.Sprintf("the DaemonSet controller creates one pod per node it picks (%d of %d), and the scheduler places each on its node", p.Picked, p.Total)
	}
	return "kube-scheduler places them"
}

func explainText(out io.Writer, p *scheduling.Placement, gates k8s.FeatureGates) error {
	bw := bufio.NewWriter(out)
	obj := p.Workload.Object
	fmt.Fprintf(bw, "%s (%s)\n", obj.Ref, obj.Pos())
	fmt.Fprintf(bw, "pods: %s\n", modeText(p))
	fmt.Fprintf(bw, "requests: %s\n", formatResources(p.Requests))
	if len(p.Pod.NodeSelector) > 0 {
		fmt.Fprintf(bw, "nodeSelector: %s\n", formatSelector(p.Pod.NodeSelector))
	}
	fmt.Fprintln(bw, "tolerations:")
	if len(p.Pod.Tolerations) == 0 {
		fmt.Fprintln(bw, "  (none)")
	}
	for _, t := range p.Pod.Tolerations {
		src := string(t.Source)
		if t.Source == k8s.FromManifest {
			src = p.Workload.SpecPath.Child("tolerations").Index(t.Index).String()
		}
		fmt.Fprintf(bw, "  %s  (%s)\n", scheduling.FormatToleration(t.Toleration), src)
	}
	fmt.Fprintln(bw)
	switch {
	case p.Rejected != "":
		fmt.Fprintf(bw, "admission would reject the pod: %s\n", p.Rejected)
		return bw.Flush()
	case p.Conflict:
		fmt.Fprintf(bw, "result: %s\n", p.Message)
		for _, d := range p.Details(gates) {
			fmt.Fprintf(bw, "  %s\n", d.Text)
		}
		return bw.Flush()
	}
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODES\tCOUNT\tFITS\tFILTER\tWHY")
	for i := range p.Results {
		r := &p.Results[i]
		fits := "no"
		if r.Filter == "" {
			fits = "yes"
		}
		filter := r.Filter
		if filter == "" {
			filter = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", formatNames(r.Names(), len(r.Nodes)), len(r.Nodes), fits, filter, p.Why(r, gates))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(bw)
	switch {
	case p.RunsNowhere():
		fmt.Fprintf(bw, "result: %s\n", p.NoNodesMessage())
		for _, d := range p.NoNodesDetails(gates) {
			fmt.Fprintf(bw, "  %s\n", d.Text)
		}
	case p.Message == "" && p.Mode == scheduling.Daemon:
		fmt.Fprintf(bw, "result: the DaemonSet controller picks %d of %d node(s), and every daemon pod fits its node\n", p.Picked, p.Total)
	case p.Message == "":
		fmt.Fprintf(bw, "result: fits %d of %d node(s)\n", p.Fit, p.Total)
	default:
		msg := p.Message
		if p.PendingNode != nil {
			msg += fmt.Sprintf(" (daemon pod for node %s)", p.PendingNode.Node.Name)
		}
		fmt.Fprintf(bw, "result: %s\n", msg)
		for _, d := range p.Details(gates) {
			fmt.Fprintf(bw, "  %s\n", d.Text)
		}
	}
	return bw.Flush()
}

// formatNames lists up to three names, else the first and last.
func formatNames(names []string, count int) string {
	switch {
	case len(names) == 0:
		return fmt.Sprintf("(%d other nodes)", count)
	case len(names) <= 3:
		return strings.Join(names, ", ")
	}
	return names[0] + " … " + names[len(names)-1]
}

func formatResources(rl v1.ResourceList) string {
	if len(rl) == 0 {
		return "none"
	}
	names := make([]string, 0, len(rl))
	for n := range rl {
		names = append(names, string(n))
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		q := rl[v1.ResourceName(n)]
		parts = append(parts, n+" "+q.String())
	}
	return strings.Join(parts, ", ")
}

func formatSelector(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}

// explainJSON is the explanation as one JSON object.
func explainJSON(out io.Writer, p *scheduling.Placement, gates k8s.FeatureGates) error {
	type row struct {
		Nodes   []string `json:"nodes"`
		Count   int      `json:"count"`
		Fits    bool     `json:"fits"`
		Filter  string   `json:"filter,omitempty"`
		Reasons []string `json:"reasons,omitempty"`
		Why     string   `json:"why"`
	}
	type toleration struct {
		v1.Toleration
		Source string `json:"source"`
	}
	doc := struct {
		Object      loader.Ref        `json:"object"`
		File        string            `json:"file"`
		Line        int               `json:"line"`
		Mode        string            `json:"mode"`
		Requests    v1.ResourceList   `json:"requests,omitempty"`
		Selector    map[string]string `json:"nodeSelector,omitempty"`
		Tolerations []toleration      `json:"tolerations"`
		Total       int               `json:"nodes"`
		Fit         int               `json:"fits"`
		Rejected    string            `json:"rejected,omitempty"`
		Message     string            `json:"message,omitempty"`
		Details     []string          `json:"details,omitempty"`
		Groups      []row             `json:"groups"`
	}{
		Object: p.Workload.Object.Ref, File: p.Workload.Object.Pos().File, Line: p.Workload.Object.Pos().Line,
		Mode: [...]string{"scheduler", "nodeName", "daemonset"}[p.Mode], Requests: p.Requests, Selector: p.Pod.NodeSelector,
		Tolerations: []toleration{}, Total: p.Total, Fit: p.Fit, Rejected: p.Rejected, Message: p.Message, Groups: []row{},
	}
	for _, t := range p.Pod.Tolerations {
		src := string(t.Source)
		if t.Source == k8s.FromManifest {
			src = p.Workload.SpecPath.Child("tolerations").Index(t.Index).String()
		}
		doc.Tolerations = append(doc.Tolerations, toleration{t.Toleration, src})
	}
	switch {
	case p.RunsNowhere():
		doc.Message = p.NoNodesMessage()
		for _, d := range p.NoNodesDetails(gates) {
			doc.Details = append(doc.Details, d.Text)
		}
	case p.Message != "":
		for _, d := range p.Details(gates) {
			doc.Details = append(doc.Details, d.Text)
		}
	}
	for i := range p.Results {
		r := &p.Results[i]
		names := r.Names()
		if names == nil {
			names = []string{}
		}
		doc.Groups = append(doc.Groups, row{Nodes: names, Count: len(r.Nodes), Fits: r.Filter == "", Filter: r.Filter, Reasons: r.Reasons, Why: p.Why(r, gates)})
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
