package rego

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/taintlint/taintlint/rules"
)

// PodSpecKind is the pseudo-kind that, in custom.kinds, stands for every
// object that carries a pod spec (Pod, PodTemplate, the workload
// controllers, and any kind whose spec.template.spec has containers).
const PodSpecKind = "PodSpec"

// PlacementsKind is the pseudo-kind that, in custom.kinds, stands for
// every object with placement fields outside a pod spec (input.placements:
// an operator's custom resource, or a customKinds entry's).
const PlacementsKind = "Placements"

// customKeys are the keys taintlint reads from a rule's custom metadata.
// Any other key is an error: a misspelt severity should not silently fall
// back to a default.
var customKeys = []string{"id", "severity", "default", "kinds", "tags", "security_severity", "needs_inventory", "bad", "good"}

// idRE mirrors rules.Validate, so the error can name the line.
var idRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)+$`)

// meta is what a rule's METADATA block says, checked.
type meta struct {
	rule  rules.Rule
	kinds []string // nil: every object
}

// parseMeta reads a package METADATA block into rule fields. The block is
// OPA's (https://www.openpolicyagent.org/docs/policy-reference/metadata):
// title is the summary, description the doc, related_resources[0].ref the
// URL, and custom holds taintlint's own keys (docs/policies.md).
func parseMeta(a *ast.Annotations, file string, src rules.Source) (*meta, error) {
	line := 0
	if a.Location != nil {
		line = a.Location.Row
	}
	fail := func(format string, args ...any) error {
		return &policyError{file: file, line: line, msg: fmt.Sprintf(format, args...)}
	}
	c := a.Custom
	for k := range c {
		if !slices.Contains(customKeys, k) {
			return nil, fail("METADATA: unknown custom key %q (known: %s)", k, strings.Join(customKeys, ", "))
		}
	}
	m := &meta{rule: rules.Rule{Source: src, File: file, Line: line, Default: true}}
	r := &m.rule

	id, ok := c["id"].(string)
	switch {
	case c["id"] == nil:
		return nil, fail("METADATA: missing custom.id (the rule id, like toleration-foo)")
	case !ok:
		return nil, fail("METADATA: custom.id must be a string")
	case !idRE.MatchString(id):
		return nil, fail("METADATA: rule id %q must be kebab-case with a family prefix (like toleration-foo)", id)
	}
	r.ID = id

	sev, ok := c["severity"].(string)
	if c["severity"] == nil {
		return nil, fail("METADATA: missing custom.severity (error, warning or note)")
	}
	if !ok {
		return nil, fail("METADATA: custom.severity must be error, warning or note")
	}
	var err error
	if r.Severity, err = rules.ParseSeverity(sev); err != nil {
		return nil, fail("METADATA: custom.severity: %v", err)
	}

	r.Summary = strings.TrimSpace(a.Title)
	switch {
	case r.Summary == "":
		return nil, fail("METADATA: missing title (the rule's one-line summary)")
	case strings.Contains(r.Summary, "\n") || strings.HasSuffix(r.Summary, "."):
		return nil, fail("METADATA: title must be one line without a trailing period")
	}
	r.Doc = strings.TrimSpace(a.Description)
	if r.Doc == "" {
		return nil, fail("METADATA: missing description (why the rule matters and how to fix it)")
	}
	if len(a.RelatedResources) > 0 {
		r.URL = a.RelatedResources[0].Ref.String()
	}
	if r.URL == "" {
		if src != rules.EmbeddedRego {
			return nil, fail("METADATA: missing related_resources (its first ref is the rule's documentation URL)")
		}
		r.URL = rules.RuleURL(id)
	}

	if v, ok := c["default"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fail("METADATA: custom.default must be true or false")
		}
		r.Default = b
	}
	if v, ok := c["needs_inventory"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fail("METADATA: custom.needs_inventory must be true or false")
		}
		r.NeedsInventory = b
	}
	if r.Tags, err = stringList(c, "tags"); err != nil {
		return nil, fail("METADATA: %v", err)
	}
	if m.kinds, err = stringList(c, "kinds"); err != nil {
		return nil, fail("METADATA: %v", err)
	}
	if _, ok := c["kinds"]; ok && len(m.kinds) == 0 {
		return nil, fail("METADATA: custom.kinds is empty (omit it for a rule that sees every object)")
	}
	if r.SecuritySeverity, err = securitySeverity(c["security_severity"]); err != nil {
		return nil, fail("METADATA: %v", err)
	}
	for _, k := range []string{"bad", "good"} {
		v, ok := c[k]
		if !ok {
			continue
		}
		s, isStr := v.(string)
		if !isStr {
			return nil, fail("METADATA: custom.%s must be a string (a YAML block scalar: %s: |)", k, k)
		}
		if k == "bad" {
			r.Bad = s
		} else {
			r.Good = s
		}
	}
	return m, nil
}

// stringList reads an optional list of non-empty strings.
func stringList(c map[string]any, key string) ([]string, error) {
	v, ok := c[key]
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("custom.%s must be a list of strings", key)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok || s == "" {
			return nil, fmt.Errorf("custom.%s must be a list of non-empty strings", key)
		}
		out = append(out, s)
	}
	return out, nil
}

// securitySeverity reads GitHub's security-severity score, "0.0" to
// "10.0", given as a string or a number.
func securitySeverity(v any) (string, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		s = x
	case int:
		s = strconv.Itoa(x) + ".0"
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
	default:
		return "", fmt.Errorf("custom.security_severity must be a number from 0.0 to 10.0")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 10 {
		return "", fmt.Errorf("custom.security_severity %q must be a number from 0.0 to 10.0", s)
	}
	return s, nil
}

// matchesKind reports whether a rule with kinds looks at an object of
// kind that does or does not carry a pod spec or placements; DaemonSet
// also stands for an operator's template it makes a DaemonSet of
// (daemonSet).
func matchesKind(kinds []string, kind string, daemonSet, hasPodSpec, hasPlacements bool) bool {
	if kinds == nil {
		return true
	}
	for _, k := range kinds {
		if k == kind || k == "DaemonSet" && daemonSet || k == PodSpecKind && hasPodSpec || k == PlacementsKind && hasPlacements {
			return true
		}
	}
	return false
}
