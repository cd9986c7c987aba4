package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/escape"
	"github.com/taintlint/taintlint/loader"
)

// Explanation is one workload's placement on the node groups of an
// inventory, as taintlint explain shows it. The command fills it from the
// placement; the writers here only lay it out.
type Explanation struct {
	Object loader.Ref
	Pos    loader.Position // the object in its source
	// Template names the pod template explained, of an object with
	// several (k8s.Workload.Template), or "".
	Template string
	// Mode is how the pods are placed: "scheduler", "nodeName" or
	// "daemonset"; ModeText says it in a sentence.
	Mode, ModeText string
	Requests       v1.ResourceList
	NodeSelector   map[string]string
	Tolerations    []ExplainedToleration
	Total, Fit     int
	// Rejected is admission's reason when it would reject the pod.
	Rejected string
	// Conflict: the pod's own terms cannot be met (no table is shown).
	Conflict bool
	// Message is why the pods fit nowhere ("" when they fit); Result is
	// the text output's closing line; Details explain Message.
	Message, Result string
	Details         []string
	Groups          []ExplainedGroup
}

// ExplainedToleration is one of the pod's tolerations: Text is how the
// text output writes it, Source where it comes from (a manifest path, or
// what added it).
type ExplainedToleration struct {
	v1.Toleration
	Text, Source string
}

// ExplainedGroup is one node group's verdict.
type ExplainedGroup struct {
	Nodes []string // names, when few enough to list
	// Source is where the node pool a group stands for is defined
	// (file:line), "" for Nodes: pools of one name from several files are
	// told apart by it.
	Source  string
	Count   int
	Filter  string // the first failing filter; "" when the pods fit
	Reasons []string
	Why     string
	// Allocatable is what a node pool's largest node offers (a pool's
	// resources not listed are unknown), AllocatableSource where that
	// comes from or why it is unknown; both empty for Nodes.
	Allocatable       v1.ResourceList
	AllocatableSource string
}

// ExplanationText writes e for people: the pod, a table of node groups,
// the result. Names, keys and values come from manifests: everything
// written goes through escape.Writer.
func ExplanationText(out io.Writer, e *Explanation) error {
	ew := escape.NewWriter(out)
	if err := explanationText(ew, e); err != nil {
		return err
	}
	return ew.Close()
}

func explanationText(out io.Writer, e *Explanation) error {
	bw := bufio.NewWriter(out)
	fmt.Fprintf(bw, "%s (%s)\n", e.Object, e.Pos)
	if e.Template != "" {
		fmt.Fprintf(bw, "pod template: %s\n", e.Template)
	}
	fmt.Fprintf(bw, "pods: %s\n", e.ModeText)
	fmt.Fprintf(bw, "requests: %s\n", formatResources(e.Requests))
	if len(e.NodeSelector) > 0 {
		fmt.Fprintf(bw, "nodeSelector: %s\n", formatSelector(e.NodeSelector))
	}
	fmt.Fprintln(bw, "tolerations:")
	if len(e.Tolerations) == 0 {
		fmt.Fprintln(bw, "  (none)")
	}
	for _, t := range e.Tolerations {
		fmt.Fprintf(bw, "  %s  (%s)\n", t.Text, t.Source)
	}
	fmt.Fprintln(bw)
	switch {
	case e.Rejected != "":
		fmt.Fprintf(bw, "admission would reject the pod: %s\n", e.Rejected)
		return bw.Flush()
	case e.Conflict:
		fmt.Fprintf(bw, "result: %s\n", e.Result)
		for _, d := range e.Details {
			fmt.Fprintf(bw, "  %s\n", d)
		}
		return bw.Flush()
	}
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	header, pools := "NODE POOLS", true
	for _, g := range e.Groups {
		if g.Source == "" {
			header, pools = "NODES", false
		}
	}
	if pools {
		// A pool's resources are those of its largest node: worth a column.
		header += "\tALLOCATABLE"
	}
	fmt.Fprintln(tw, header+"\tCOUNT\tFITS\tFILTER\tWHY")
	for _, g := range e.Groups {
		fits := "no"
		if g.Filter == "" {
			fits = "yes"
		}
		filter := g.Filter
		if filter == "" {
			filter = "-"
		}
		name := formatNames(g.Nodes, g.Count)
		if g.Source != "" {
			name += " (" + g.Source + ")"
		}
		if pools {
			alloc := "unknown"
			if len(g.Allocatable) > 0 {
				alloc = formatAllocatable(g.Allocatable)
			}
			name += "\t" + alloc
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", name, g.Count, fits, filter, g.Why)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "result: %s\n", e.Result)
	for _, d := range e.Details {
		fmt.Fprintf(bw, "  %s\n", d)
	}
	return bw.Flush()
}

// ExplanationJSON writes e as one JSON object.
func ExplanationJSON(out io.Writer, e *Explanation) error {
	type row struct {
		Nodes   []string `json:"nodes"`
		Source  string   `json:"source,omitempty"`
		Count   int      `json:"count"`
		Fits    bool     `json:"fits"`
		Filter  string   `json:"filter,omitempty"`
		Reasons []string `json:"reasons,omitempty"`
		Why     string   `json:"why"`
		// A node pool's: what its largest node offers, and from where.
		Allocatable       v1.ResourceList `json:"allocatable,omitempty"`
		AllocatableSource string          `json:"allocatableSource,omitempty"`
	}
	type toleration struct {
		v1.Toleration
		Source string `json:"source"`
	}
	doc := struct {
		Object      loader.Ref        `json:"object"`
		File        string            `json:"file"`
		Line        int               `json:"line"`
		Template    string            `json:"template,omitempty"`
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
		Object: e.Object, File: e.Pos.File, Line: e.Pos.Line, Template: e.Template,
		Mode: e.Mode, Requests: e.Requests, Selector: e.NodeSelector,
		Tolerations: []toleration{}, Total: e.Total, Fit: e.Fit, Rejected: e.Rejected, Message: e.Message, Details: e.Details, Groups: []row{},
	}
	for _, t := range e.Tolerations {
		doc.Tolerations = append(doc.Tolerations, toleration{t.Toleration, t.Source})
	}
	for _, g := range e.Groups {
		names := g.Nodes
		if names == nil {
			names = []string{}
		}
		doc.Groups = append(doc.Groups, row{Nodes: names, Source: g.Source, Count: g.Count, Fits: g.Filter == "", Filter: g.Filter, Reasons: g.Reasons, Why: g.Why, Allocatable: g.Allocatable, AllocatableSource: g.AllocatableSource})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := out.Write(escape.JSON(buf.Bytes()))
	return err
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

// formatAllocatable writes a pool's allocatable in a column: cpu in
// cores and memory in Gi, to two decimals, other resources as counted.
func formatAllocatable(rl v1.ResourceList) string {
	names := make([]string, 0, len(rl))
	for n := range rl {
		names = append(names, string(n))
	}
	sort.Strings(names)
	round := func(f float64) string {
		return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(f, 'f', 2, 64), "0"), ".")
	}
	var parts []string
	for _, n := range names {
		q := rl[v1.ResourceName(n)]
		text := q.String()
		switch v1.ResourceName(n) {
		case v1.ResourceCPU:
			text = round(float64(q.MilliValue()) / 1000)
		case v1.ResourceMemory:
			text = round(float64(q.Value())/(1<<30)) + "Gi"
		}
		parts = append(parts, n+" "+text)
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
