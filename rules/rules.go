// Package rules defines what a taintlint rule is: a value with an id, a
// one-line summary, a doc, a default severity and a run function, in the
// spirit of golang.org/x/tools/go/analysis.Analyzer. Go rules and Rego rules
// are both *Rule values; the driver selects and runs them and never needs to
// know which engine is behind one.
//
// A rule reports an object and a field path; the Pass turns that into a
// file, line and column, so no rule ever handles positions.
package rules

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/loader"
)

// Severity is how much a finding matters. The zero value is invalid.
type Severity int

const (
	Note Severity = iota + 1
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Note:
		return "note"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ParseSeverity reads "error", "warning" or "note".
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "error":
		return Error, nil
	case "warning":
		return Warning, nil
	case "note":
		return Note, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or note)", s)
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Source says which engine runs a rule.
type Source int

const (
	Go Source = iota + 1
	EmbeddedRego
	CustomRego
)

func (s Source) String() string {
	switch s {
	case Go:
		return "go"
	case EmbeddedRego:
		return "rego"
	case CustomRego:
		return "custom"
	}
	return "unknown"
}

func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Rule is one check.
type Rule struct {
	ID       string   // stable kebab-case id with a family prefix: taint-, toleration-, pod-, daemonset-
	Summary  string   // one line, sentence case, no trailing period
	Doc      string   // why it matters and how to fix it; Markdown paragraphs
	URL      string   // where the rule is documented
	Severity Severity // default severity
	Default  bool     // on without --enable
	Source   Source
	// File is where a Rego rule is defined (empty for Go rules), and Line
	// the line of its metadata there, so errors about the rule (a
	// duplicate id) can point at it.
	File string
	Line int
	// Tags label the rule in SARIF (for example "security").
	Tags []string
	// SecuritySeverity is the GitHub code-scanning security-severity score
	// ("0.0" to "10.0") for rules tagged security.
	SecuritySeverity string
	// Bad and Good are short example manifests for the docs.
	Bad, Good string
	// NeedsInventory marks rules that say nothing without a node
	// inventory; the driver does not run them without one.
	NeedsInventory bool
	// Requires are the prerequisites whose results the rule reads from
	// Pass.ResultOf.
	Requires []*Prerequisite
	// Run reports findings through the pass. An error means the rule itself
	// broke, never that it found something.
	Run func(*Pass) error
}

// DocsURL is where rule documentation lives.
const DocsURL = "https://github.com/taintlint/taintlint/blob/main/docs/rules.md"

// RuleURL is the documentation anchor of a rule id.
func RuleURL(id string) string { return DocsURL + "#" + id }

var idRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)+$`)

// Validate checks a set of rules the way analysis.Validate checks
// analyzers: ids well-formed and unique, metadata present, Run set.
func Validate(all []*Rule) error {
	seen := make(map[string]*Rule, len(all))
	var errs []string
	for _, r := range all {
		where := r.ID
		switch {
		case r.File != "" && r.Line > 0:
			where = fmt.Sprintf("%s:%d: %s", r.File, r.Line, r.ID)
		case r.File != "":
			where = r.File + ": " + r.ID
		}
		switch {
		case !idRE.MatchString(r.ID):
			errs = append(errs, fmt.Sprintf("%s: rule id must be kebab-case with a family prefix (like toleration-foo)", where))
		case seen[r.ID] != nil:
			prev := seen[r.ID]
			errs = append(errs, fmt.Sprintf("%s: rule id %q is already used by a %s rule", where, r.ID, prev.Source))
		}
		seen[r.ID] = r
		if strings.TrimSpace(r.Summary) == "" {
			errs = append(errs, where+": missing summary")
		} else if strings.Contains(r.Summary, "\n") || strings.HasSuffix(r.Summary, ".") {
			errs = append(errs, where+": summary must be one line without a trailing period")
		}
		if strings.TrimSpace(r.Doc) == "" {
			errs = append(errs, where+": missing doc")
		}
		if r.URL == "" {
			errs = append(errs, where+": missing URL")
		}
		if r.Severity < Note || r.Severity > Error {
			errs = append(errs, where+": missing or unknown severity")
		}
		if r.Source == 0 {
			errs = append(errs, where+": missing source")
		}
		if r.Run == nil {
			errs = append(errs, where+": missing Run")
		}
		if err := validatePrereqs(r.Requires, nil); err != nil {
			errs = append(errs, where+": "+err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid rules:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}

// validatePrereqs checks prerequisites as analysis.Validate checks
// Requires: each named, with a Run, and none requiring itself through
// others (path is the chain that leads to ps).
func validatePrereqs(ps []*Prerequisite, path []*Prerequisite) error {
	for _, p := range ps {
		switch {
		case p == nil:
			return fmt.Errorf("nil prerequisite")
		case p.Name == "" || p.Run == nil:
			return fmt.Errorf("prerequisite %q: missing name or Run", p.Name)
		}
		for _, q := range path {
			if q == p {
				return fmt.Errorf("prerequisite %q requires itself", p.Name)
			}
		}
		if err := validatePrereqs(p.Requires, append(path[:len(path):len(path)], p)); err != nil {
			return err
		}
	}
	return nil
}

// Input is what every rule of a run sees. It is shared and read-only.
type Input struct {
	// Objects are the objects under check, in load order.
	Objects []*loader.Object
	// Workloads are the objects under check that carry a pod spec.
	Workloads []*k8s.Workload
	// Nodes is the inventory: the nodes --nodes and nodes: name, as
	// placement judges them (without their transient taints and cordons
	// unless --node-state as-is).
	Nodes []*k8s.Node
	// NodeObjects are every Node object read, in the inventory or among
	// the checked paths, as written: validation rules check these.
	NodeObjects []*k8s.Node
	// PoolTaints are the taint lists of the node pool definitions read
	// (Karpenter, eksctl, Cluster API, kOps, OpenShift), as written: the
	// validation rules check them as they check Node taints.
	PoolTaints []k8s.TaintList
	// Placements are the placement fields of operators' custom resources
	// and the user's custom kinds outside a pod spec that Workloads hold:
	// the validation rules check them as a pod spec's.
	Placements []k8s.Placement
	// RuntimeClasses are the RuntimeClass objects among the inputs.
	RuntimeClasses []*k8s.RuntimeClass
	// LoadErrors are the files and documents that could not be read.
	LoadErrors []*loader.Error
	// DecodeIssues are fields whose values do not fit their types.
	DecodeIssues []*k8s.DecodeIssue
	// Gates are the feature gates in force.
	Gates k8s.FeatureGates
	// Admission says which admission plugins that are off by default to
	// model.
	Admission k8s.Admission
	// RuntimeTaintKeys are taint keys nodes carry only at run time, from
	// .taintlint.yaml runtimeTaints (toleration-unmatched exempts them).
	RuntimeTaintKeys []string
}

// UndecodedPodSpecs are the objects whose pod spec holds a value of the
// wrong type (DecodeIssue.InView): placement and scheduling facts would
// rest on a partly decoded spec (tolerations: "x" leaves none), not the
// pod a person wrote, so the rules that read them skip these objects and
// parse-error reports them.
func (in *Input) UndecodedPodSpecs() map[*loader.Object]bool {
	out := map[*loader.Object]bool{}
	for _, d := range in.DecodeIssues {
		if d.InView {
			out[d.Object] = true
		}
	}
	return out
}

// HasInventory reports whether there are nodes to place workloads on.
func (in *Input) HasInventory() bool { return len(in.Nodes) > 0 }

// Finding is one problem at one place.
type Finding struct {
	Rule     string          `json:"rule"`
	Severity Severity        `json:"severity"`
	Message  string          `json:"message"`
	Pos      loader.Position `json:"-"`
	Object   *loader.Ref     `json:"object,omitempty"`
	Path     string          `json:"path,omitempty"`
	// Related are secondary places, such as the Node taint a pod fails
	// to tolerate.
	Related []Related `json:"related,omitempty"`
	// Suppressed holds the reason when an annotation or the configuration
	// suppressed the finding.
	Suppressed *Suppression `json:"suppressed,omitempty"`
}

// Related is a secondary location of a finding. A rule names a field
// (Object and Path, RelatedAt); the driver sets Pos.
type Related struct {
	Pos     loader.Position `json:"-"`
	Message string          `json:"message"`
	Object  *loader.Object  `json:"-"`
	Path    string          `json:"-"`
}

// Suppression says why a finding was suppressed.
type Suppression struct {
	Kind   string `json:"kind"` // "inSource" (annotation) or "external" (configuration)
	Reason string `json:"reason"`
}

// MarshalJSON writes the contract's flat shape: file, line and column
// beside the rule.
func (f Finding) MarshalJSON() ([]byte, error) {
	type related struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Column  int    `json:"column"`
		Message string `json:"message"`
	}
	out := struct {
		Rule       string       `json:"rule"`
		Severity   Severity     `json:"severity"`
		Message    string       `json:"message"`
		File       string       `json:"file"`
		Line       int          `json:"line"`
		Column     int          `json:"column"`
		Object     *loader.Ref  `json:"object,omitempty"`
		Path       string       `json:"path,omitempty"`
		Related    []related    `json:"related,omitempty"`
		Suppressed *Suppression `json:"suppressed,omitempty"`
	}{f.Rule, f.Severity, f.Message, f.Pos.File, f.Pos.Line, f.Pos.Column, f.Object, f.Path, nil, f.Suppressed}
	for _, r := range f.Related {
		out.Related = append(out.Related, related{r.Pos.File, r.Pos.Line, r.Pos.Column, r.Message})
	}
	return json.Marshal(out)
}

// Diagnostic is a finding as a rule reports it: a field of an object
// (Object and Path) and what is wrong there. The driver locates it, and
// its related places, in the sources: rules never handle positions.
type Diagnostic struct {
	// Object is the object the finding is on; nil only for a finding on
	// no object, at Pos (a file that is not valid YAML).
	Object *loader.Object
	// Path is the field, in apimachinery field.Path form; "" is the object
	// itself.
	Path string
	// AtValue places the finding at the field's value instead of its key:
	// where a person fixes a value of the wrong type.
	AtValue bool
	Pos     loader.Position
	Message string
	// Related are secondary places (RelatedAt).
	Related []Related
}

// Prerequisite is work that several rules share, computed once per run,
// as a go/analysis Analyzer that others list in Requires: a rule names
// its prerequisites in Rule.Requires and reads their results from
// Pass.ResultOf. The driver runs each prerequisite the run's rules need
// once, after the prerequisites it requires and in parallel with the
// others, and lets go of the result once every rule that needs it is
// done. A Prerequisite is identified by its pointer, so rules that share
// one must share the value.
type Prerequisite struct {
	Name     string // for errors: "taint validation", "rego evaluation"
	Requires []*Prerequisite
	Run      func(*PrereqPass) (any, error)
}

// PrereqPass is a prerequisite's view of a run.
type PrereqPass struct {
	Input *Input
	// ResultOf holds the results of the prerequisites it requires.
	ResultOf map[*Prerequisite]any
	// Dependents are the rules of the run that need it, directly or
	// through another prerequisite, in id order: an engine that evaluates
	// several rules in one pass over the objects (Rego) evaluates these.
	Dependents []*Rule
	runs       func(id string) bool
}

// Runs reports whether the run runs rule id, for a rule that yields to
// another when that one reports the same cause (one cause, one finding).
func (p *PrereqPass) Runs(id string) bool { return p.runs(id) }

// Pass is one rule's view of a run.
type Pass struct {
	Rule  *Rule
	Input *Input
	// ResultOf holds the results of the rule's prerequisites (Requires).
	ResultOf map[*Prerequisite]any
	report   func(Diagnostic)
	runs     func(id string) bool
}

// NewPass is for drivers: it binds a rule to an input, its prerequisites'
// results, the rules of the run (runs) and a sink for its diagnostics.
func NewPass(r *Rule, in *Input, resultOf map[*Prerequisite]any, runs func(id string) bool, report func(Diagnostic)) *Pass {
	return &Pass{Rule: r, Input: in, ResultOf: resultOf, report: report, runs: runs}
}

// NewPrereqPass is for drivers, as NewPass.
func NewPrereqPass(in *Input, resultOf map[*Prerequisite]any, dependents []*Rule, runs func(id string) bool) *PrereqPass {
	return &PrereqPass{Input: in, ResultOf: resultOf, Dependents: dependents, runs: runs}
}

// Runs reports whether the run runs rule id (see PrereqPass.Runs).
func (p *Pass) Runs(id string) bool { return p.runs(id) }

// Report reports a diagnostic.
func (p *Pass) Report(d Diagnostic) { p.report(d) }

// Reportf reports a finding on a field of obj. path may be nil for the
// object itself.
func (p *Pass) Reportf(obj *loader.Object, path *field.Path, format string, args ...any) {
	p.report(Diagnostic{Object: obj, Path: pathString(path), Message: fmt.Sprintf(format, args...)})
}

// RelatedAt is a related place on a field of obj, for Diagnostic.Related.
func RelatedAt(obj *loader.Object, path *field.Path, format string, args ...any) Related {
	return Related{Object: obj, Path: pathString(path), Message: fmt.Sprintf(format, args...)}
}

func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return p.String()
}
