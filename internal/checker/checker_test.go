package checker

import (
	"context"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

func testRule(id string, def bool, sev rules.Severity, run func(*rules.Pass) error) *rules.Rule {
	return &rules.Rule{ID: id, Summary: "s", Doc: "d", URL: "u", Severity: sev, Default: def, Source: rules.Go, Run: run}
}

func TestSelect(t *testing.T) {
	nop := func(*rules.Pass) error { return nil }
	all := []*rules.Rule{
		testRule("b-rule", true, rules.Error, nop),
		testRule("a-rule", true, rules.Warning, nop),
		testRule("c-off", false, rules.Note, nop),
	}
	tests := []struct {
		name            string
		enable, disable []string
		want            string
		err             string
	}{
		{name: "defaults", want: "a-rule b-rule"},
		{name: "enable non-default", enable: []string{"c-off"}, want: "a-rule b-rule c-off"},
		{name: "enable all", enable: []string{"all"}, want: "a-rule b-rule c-off"},
		{name: "disable wins", enable: []string{"all"}, disable: []string{"b-rule"}, want: "a-rule c-off"},
		{name: "disable all", disable: []string{"all"}, want: ""},
		{name: "unknown", enable: []string{"zz-rule"}, err: `unknown rule "zz-rule"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(all, tt.enable, tt.disable)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			if strings.Join(ids, " ") != tt.want {
				t.Errorf("selected %q, want %q", strings.Join(ids, " "), tt.want)
			}
		})
	}
}

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"charts/**", "charts/a/values.yaml", true},
		{"**/values.yaml", "charts/a/values.yaml", true},
		{"**/values.yaml", "values.yaml", true},
		{"charts/*/values.yaml", "charts/a/values.yaml", true},
		{"charts/*/values.yaml", "charts/a/b/values.yaml", false},
		{"legacy/*.yaml", "legacy/x.yml", false},
		{"**", "anything/at/all", true},
	}
	for _, tt := range tests {
		if got := MatchGlob(tt.glob, tt.name); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.glob, tt.name, got, tt.want)
		}
	}
}

// TestRunPipeline runs a rule that reports every workload and checks
// suppression by annotation and configuration, de-duplication, severity
// overrides and ordering.
func TestRunPipeline(t *testing.T) {
	dir := t.TempDir()
	src := `apiVersion: v1
kind: Pod
metadata:
  name: b
---
apiVersion: v1
kind: Pod
metadata:
  name: a
  annotations:
    ignore-check.taintlint.io/pod-everything: "accepted: test"
    ignore-check.taintlint.io/no-such-rule: "typo"
---
apiVersion: v1
kind: Pod
metadata:
  name: c
  namespace: legacy
---
apiVersion: v1
kind: Pod
metadata:
  name: d
  annotations:
    taintlint.io/ignore-all: ""
`
	path := dir + "/pods.yaml"
	writeFile(t, path, src)
	everything := testRule("pod-everything", true, rules.Error, func(p *rules.Pass) error {
		for _, o := range p.Input.Objects {
			p.Reportf(o, nil, "pod %s", o.Name)
			p.Reportf(o, nil, "pod %s", o.Name) // a duplicate, dropped
		}
		return nil
	})
	res, err := Run(context.Background(), Options{
		Paths:    []string{path},
		Rules:    []*rules.Rule{everything},
		Severity: map[string]rules.Severity{"pod-everything": rules.Warning},
		Suppress: []Suppression{{Objects: []string{"Pod/legacy/*"}, Reason: "legacy namespace"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var live []rules.Finding
	var sup []string
	for _, f := range res.Findings {
		if f.Suppressed == nil {
			live = append(live, f)
			continue
		}
		sup = append(sup, f.Object.Name+"="+f.Suppressed.Kind+":"+f.Suppressed.Reason)
	}
	if len(live) != 1 || live[0].Message != "pod b" || live[0].Severity != rules.Warning {
		t.Fatalf("findings = %+v", live)
	}
	if got := strings.Join(sup, ","); got != "a=inSource:accepted: test,c=external:legacy namespace,d=inSource:" {
		t.Errorf("suppressed = %s", got)
	}
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0]+res.Warnings[1], "no-such-rule names no known rule") || !strings.Contains(res.Warnings[0]+res.Warnings[1], "has no reason") {
		t.Errorf("warnings = %q", res.Warnings)
	}
	if len(res.Checked.Objects) != 4 {
		t.Errorf("checked %d objects, want 4", len(res.Checked.Objects))
	}
}

func TestRuleErrorsAndPanics(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
	boom := testRule("pod-boom", true, rules.Error, func(p *rules.Pass) error { panic("kaboom") })
	_, err := Run(context.Background(), Options{Paths: []string{dir}, Rules: []*rules.Rule{boom}})
	if err == nil || !strings.Contains(err.Error(), "rule pod-boom: internal error") {
		t.Errorf("err = %v, want the panic as an error naming the rule", err)
	}
}

func TestLessIsTotal(t *testing.T) {
	a := rules.Finding{Rule: "x", Pos: loader.Position{File: "a", Line: 1, Column: 1}, Object: &loader.Ref{Kind: "Pod", Name: "a"}}
	b := a
	b.Object = &loader.Ref{Kind: "Pod", Name: "b"}
	if !rules.Less(&a, &b) || rules.Less(&b, &a) {
		t.Error("findings differing only in object are not ordered")
	}
}
