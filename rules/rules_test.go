package rules_test

import (
	"strings"
	"testing"

	"github.com/taintlint/taintlint/rules"
)

func TestValidate(t *testing.T) {
	good := func() *rules.Rule {
		return &rules.Rule{ID: "toleration-foo", Summary: "Foo", Doc: "d", URL: "u", Severity: rules.Error, Source: rules.Go, Run: func(*rules.Pass) error { return nil }}
	}
	if err := rules.Validate([]*rules.Rule{good()}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(*rules.Rule)
		err    string
	}{
		{"bad id", func(r *rules.Rule) { r.ID = "Foo" }, "kebab-case"},
		{"no prefix", func(r *rules.Rule) { r.ID = "foo" }, "kebab-case"},
		{"summary period", func(r *rules.Rule) { r.Summary = "Foo." }, "trailing period"},
		{"no doc", func(r *rules.Rule) { r.Doc = "" }, "missing doc"},
		{"no severity", func(r *rules.Rule) { r.Severity = 0 }, "severity"},
		{"no run", func(r *rules.Rule) { r.Run = nil }, "missing Run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good()
			tt.mutate(r)
			err := rules.Validate([]*rules.Rule{r})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err = %v, want %q", err, tt.err)
			}
		})
	}
	a := &rules.Prerequisite{Name: "a", Run: func(*rules.PrereqPass) (any, error) { return nil, nil }}
	b := &rules.Prerequisite{Name: "b", Requires: []*rules.Prerequisite{a}, Run: a.Run}
	a.Requires = []*rules.Prerequisite{b}
	for name, p := range map[string]*rules.Prerequisite{"requires itself": a, "missing name or Run": {Name: "x"}, "nil prerequisite": nil} {
		r := good()
		r.Requires = []*rules.Prerequisite{p}
		if err := rules.Validate([]*rules.Rule{r}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("prerequisite: err = %v, want %q", err, name)
		}
	}
	if err := rules.Validate([]*rules.Rule{good(), good()}); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Errorf("duplicate ids: err = %v", err)
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range []rules.Severity{rules.Note, rules.Warning, rules.Error} {
		got, err := rules.ParseSeverity(s.String())
		if err != nil || got != s {
			t.Errorf("round trip %v: %v %v", s, got, err)
		}
	}
	if _, err := rules.ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal): want an error")
	}
}
