package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/taintlint/taintlint/rules"
)

// The SARIF 2.1.0 subset taintlint writes, as small structs in output
// order (staticcheck's approach: no third-party SARIF library, no maps, so
// the bytes are deterministic).

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	ColumnKind  string            `json:"columnKind"`
	// Properties name the node inventory the run judged against
	// ("inventory"), when it had one.
	Properties *sarifRunProps `json:"properties,omitempty"`
}

type sarifRunProps struct {
	Inventory *InventorySummary `json:"inventory"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	FullName       string      `json:"fullName"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifMessage    `json:"shortDescription"`
	FullDescription      sarifMessage    `json:"fullDescription"`
	Help                 sarifMessage    `json:"help"`
	HelpURI              string          `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfig     `json:"defaultConfiguration"`
	Properties           *sarifRuleProps `json:"properties,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

// sarifRuleProps are the property-bag entries GitHub code scanning reads:
// tags, and for security rules the 0.0-10.0 score that sets an alert's
// security severity.
type sarifRuleProps struct {
	Tags             []string `json:"tags,omitempty"`
	SecuritySeverity string   `json:"security-severity,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifMessage       `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	RelatedLocations    []sarifLocation    `json:"relatedLocations,omitempty"`
	PartialFingerprints sarifFingerprints  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	// BaselineState is "new" or "unchanged" when the run compared against
	// a baseline, and absent otherwise (SARIF 2.1.0 §3.27.24).
	BaselineState string `json:"baselineState,omitempty"`
}

type sarifLocation struct {
	ID               int            `json:"id,omitempty"`
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifMessage  `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogical struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifFingerprints is result.partialFingerprints. Its one entry is
// versioned, as SARIF asks, so that a change of recipe can use a new key.
type sarifFingerprints struct {
	Taintlint string `json:"taintlint/v1"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification,omitempty"`
}

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	// srcRoot is the uriBaseId of relative artifact URIs: the directory
	// taintlint ran in, which in CI is the checkout root. The log does not
	// define it (originalUriBaseIds) because the report must not depend on
	// where it was written; code-scanning services resolve it themselves.
	srcRoot = "%SRCROOT%"
	// informationURI is the driver's home page.
	informationURI = "https://github.com/taintlint/taintlint"
)

// WriteSARIF writes a SARIF 2.1.0 log with one run. driver.rules lists
// every rule that ran, not only those with results, so that a code-scanning
// service can close alerts of rules that stopped firing. Suppressed
// findings are results too, carrying suppressions, so that they are counted
// rather than lost.
func WriteSARIF(w io.Writer, res *Result, opts Options) error {
	if err := encodeJSON(w, buildSARIF(res, opts)); err != nil {
		return fmt.Errorf("sarif output: %w", err)
	}
	return nil
}

func buildSARIF(res *Result, opts Options) sarifLog {
	ruleSet := slices.Clone(res.Rules)
	slices.SortStableFunc(ruleSet, func(a, b *rules.Rule) int { return strings.Compare(a.ID, b.ID) })
	index := make(map[string]int, len(ruleSet))
	driver := sarifDriver{
		Name:           "taintlint",
		FullName:       strings.TrimSpace("taintlint " + opts.Version),
		Version:        toolVersion(opts.Version),
		InformationURI: informationURI,
		Rules:          []sarifRule{},
	}
	for _, r := range ruleSet {
		if _, dup := index[r.ID]; dup {
			continue
		}
		index[r.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRuleOf(r))
	}

	// Baselined findings are results too, "unchanged", so that code
	// scanning keeps tracking their alerts instead of closing them as fixed;
	// only the exit status and the text leave them out.
	type item struct {
		f         rules.Finding
		baselined bool
	}
	var all []item
	for _, f := range withSuppressed(res, true) {
		all = append(all, item{f: f})
	}
	for _, f := range res.Baselined {
		all = append(all, item{f: f, baselined: true})
	}
	if len(res.Baselined) > 0 {
		sort.SliceStable(all, func(i, j int) bool { return rules.Less(&all[i].f, &all[j].f) })
	}
	results := make([]sarifResult, 0, len(all))
	seen := make(map[string]int, len(all))
	for _, it := range all {
		f := it.f
		i, ok := index[f.Rule]
		if !ok {
			// A finding of a rule the result does not list (which the
			// driver never produces) still needs a descriptor to point at.
			i = len(driver.Rules)
			index[f.Rule] = i
			driver.Rules = append(driver.Rules, sarifRuleOf(&rules.Rule{ID: f.Rule, Summary: f.Rule, Severity: f.Severity}))
		}
		r := sarifResultOf(&f, i)
		key := fingerprintKey(&f)
		if n := seen[key]; n > 0 {
			key += fmt.Sprintf("\x00%d", n)
		}
		seen[fingerprintKey(&f)]++
		r.PartialFingerprints.Taintlint = fingerprint(key)
		if res.Baseline {
			r.BaselineState = "new"
			if it.baselined {
				r.BaselineState = "unchanged"
			}
		}
		results = append(results, r)
	}

	inv := sarifInvocation{ExecutionSuccessful: true}
	for _, m := range res.Warnings {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "warning", Message: sarifMessage{Text: sentence(m)}})
	}
	for _, m := range res.Notices {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "note", Message: sarifMessage{Text: sentence(m)}})
	}

	run := sarifRun{
		Tool:        sarifTool{Driver: driver},
		Invocations: []sarifInvocation{inv},
		Results:     results,
		ColumnKind:  "unicodeCodePoints",
	}
	if res.Summary.Inventory != nil {
		run.Properties = &sarifRunProps{Inventory: res.Summary.Inventory}
	}
	return sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}
}

// toolVersion is taintlint's version as SARIF consumers compare it: it
// must start with a number (the multitool's SARIF2005), so "v1.2.3" loses
// its "v" and a build without a release version, "(devel)" or "(unknown)",
// becomes "0.0.0-devel" or "0.0.0-unknown". driver.fullName keeps the
// version as the cli gave it, commit included.
func toolVersion(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 1 && v[0] == 'v' && isDigit(v[1]) {
		v = v[1:]
	}
	if v != "" && isDigit(v[0]) {
		return v
	}
	word := "unknown"
	if f := strings.Fields(v); len(f) > 0 {
		w := strings.Trim(f[0], "()")
		if w != "" && isAlnum(w) {
			word = w
		}
	}
	return "0.0.0-" + word
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

func sarifRuleOf(r *rules.Rule) sarifRule {
	out := sarifRule{
		ID:                   r.ID,
		Name:                 pascal(r.ID),
		ShortDescription:     sarifMessage{Text: sentence(r.Summary)},
		FullDescription:      sarifMessage{Text: sentence(firstNonEmpty(r.Doc, r.Summary))},
		Help:                 sarifMessage{Text: helpText(r), Markdown: helpMarkdown(r)},
		HelpURI:              r.URL,
		DefaultConfiguration: sarifConfig{Level: sarifLevel(r.Severity)},
	}
	if len(r.Tags) > 0 {
		props := &sarifRuleProps{Tags: slices.Clone(r.Tags)}
		if slices.Contains(r.Tags, "security") {
			props.SecuritySeverity = r.SecuritySeverity
		}
		out.Properties = props
	}
	return out
}

func sarifResultOf(f *rules.Finding, ruleIndex int) sarifResult {
	loc := sarifLocation{PhysicalLocation: physical(f.Pos.File, f.Pos.Line, f.Pos.Column)}
	if f.Object != nil {
		loc.LogicalLocations = []sarifLogical{{
			Name:               f.Object.Name,
			FullyQualifiedName: f.Object.String(),
			Kind:               "resource",
		}}
	}
	out := sarifResult{
		RuleID:    f.Rule,
		RuleIndex: ruleIndex,
		Level:     sarifLevel(f.Severity),
		Message:   sarifMessage{Text: sentence(f.Message)},
		Locations: []sarifLocation{loc},
	}
	for i, rel := range f.Related {
		out.RelatedLocations = append(out.RelatedLocations, sarifLocation{
			ID:               i + 1,
			PhysicalLocation: physical(rel.Pos.File, rel.Pos.Line, rel.Pos.Column),
			Message:          &sarifMessage{Text: sentence(rel.Message)},
		})
	}
	if s := f.Suppressed; s != nil {
		kind := "inSource"
		if s.Kind == "external" {
			kind = "external"
		}
		out.Suppressions = []sarifSuppression{{Kind: kind, Status: "accepted", Justification: s.Reason}}
	}
	return out
}

func physical(file string, line, col int) *sarifPhysical {
	uri, base := artifactURI(file)
	p := &sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri, URIBaseID: base}}
	// A finding without a line is about the whole file (an unreadable
	// one); it points at line 1, since code-scanning services show a
	// result only with a region and SARIF has no "whole file" region.
	p.Region = &sarifRegion{StartLine: max(line, 1)}
	if line > 0 && col > 0 {
		p.Region.StartColumn = col
	}
	return p
}

// artifactURI turns a finding's file into a SARIF artifact URI. A relative
// path stays relative, cleaned and percent-encoded, with the %SRCROOT% base
// (GitHub code scanning wants paths relative to the checkout); an absolute
// path becomes a file:// URI with no base.
func artifactURI(file string) (uri, base string) {
	p := filepath.ToSlash(file)
	switch {
	case strings.HasPrefix(p, "/"):
		return (&url.URL{Scheme: "file", Path: p}).String(), ""
	case len(p) >= 3 && p[1] == ':' && p[2] == '/' && isASCIILetter(p[0]):
		// A Windows drive path, C:/x.
		return (&url.URL{Scheme: "file", Path: "/" + p}).String(), ""
	}
	// url.URL.String escapes what a path may not hold and prefixes "./"
	// when the first segment has a colon that would read as a scheme.
	return (&url.URL{Path: path.Clean(p)}).String(), srcRoot
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// fingerprintKey is what identifies a finding across edits of its file:
// the rule, the file, the object and the field path, never the line or
// column (which move when lines above change) nor the message (which
// quotes values and counts that change for unrelated reasons). A finding
// with no object (parse-error) is identified by rule and file.
func fingerprintKey(f *rules.Finding) string {
	obj := ""
	if f.Object != nil {
		obj = f.Object.String()
	}
	return strings.Join([]string{f.Rule, path.Clean(filepath.ToSlash(f.Pos.File)), obj, f.Path}, "\x00")
}

// fingerprint hashes a key, made unique within the run by an occurrence
// count, into the partial fingerprint.
func fingerprint(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16])
}

func sarifLevel(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "error"
	case rules.Warning:
		return "warning"
	}
	return "note"
}

// sentence ends s with a period unless it already ends a sentence: SARIF
// asks for messages written as complete sentences (the multitool's
// SARIF2001), while taintlint's messages, like Go's errors, have none.
func sentence(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// pascal turns a rule id into SARIF's friendly name:
// toleration-exists-with-value -> TolerationExistsWithValue.
func pascal(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// helpText is the rule's help as plain text: the summary, the doc and where
// to read more.
func helpText(r *rules.Rule) string {
	parts := []string{sentence(r.Summary)}
	if strings.TrimSpace(r.Doc) != "" {
		parts = append(parts, strings.TrimSpace(r.Doc))
	}
	if r.URL != "" {
		parts = append(parts, "Documentation: "+r.URL)
	}
	return strings.Join(parts, "\n\n")
}

// helpMarkdown is the rule's help as Markdown, with the bad and good
// examples as YAML blocks.
func helpMarkdown(r *rules.Rule) string {
	parts := []string{"**" + sentence(r.Summary) + "**"}
	if strings.TrimSpace(r.Doc) != "" {
		parts = append(parts, strings.TrimSpace(r.Doc))
	}
	if r.Bad != "" {
		parts = append(parts, "Problem:\n\n"+fenced(r.Bad, "yaml"))
	}
	if r.Good != "" {
		parts = append(parts, "Fix:\n\n"+fenced(r.Good, "yaml"))
	}
	if r.URL != "" {
		parts = append(parts, "[Documentation]("+r.URL+")")
	}
	return strings.Join(parts, "\n\n")
}

// fenced wraps code in a Markdown code fence longer than any backtick run
// inside it.
func fenced(code, lang string) string {
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + fence
}
