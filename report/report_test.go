package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/report"
	"github.com/taintlint/taintlint/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// rendered is every output of one input: each format, and the step summary
// the github format writes beside its log.
type rendered map[string][]byte

// render writes res in every format; keys are the golden file suffixes.
func render(t *testing.T, res *lint.Result, opts report.Options) rendered {
	t.Helper()
	out := rendered{}
	for _, tc := range []struct {
		suffix string
		format report.Format
	}{
		{"txt", report.Text},
		{"json", report.JSON},
		{"sarif", report.SARIF},
		{"github", report.GitHub},
	} {
		var buf, md bytes.Buffer
		o := opts
		if tc.format == report.GitHub {
			o.StepSummary = &md
		}
		if err := report.Write(&buf, tc.format, res, o); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		out[tc.suffix] = buf.Bytes()
		if tc.format == report.GitHub {
			out["md"] = md.Bytes()
		}
	}
	return out
}

// goldenOptions are the options of the golden files: suppressed findings
// shown, so every format shows them, and a fixed version.
func goldenOptions() report.Options {
	return report.Options{ShowSuppressed: true, Version: "1.2.3"}
}

func TestGolden(t *testing.T) {
	out := render(t, goldenResult(), goldenOptions())
	for _, suffix := range []string{"txt", "json", "sarif", "github", "md"} {
		t.Run(suffix, func(t *testing.T) {
			file := filepath.Join("testdata", "golden."+suffix)
			if *update {
				if err := os.WriteFile(file, out[suffix], 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test ./report -update writes it)", err)
			}
			if !bytes.Equal(out[suffix], want) {
				t.Errorf("%s differs from the output (go test ./report -update rewrites it); got:\n%s", file, out[suffix])
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  func() *lint.Result
		opts report.Options
	}{
		{name: "golden", res: goldenResult, opts: goldenOptions()},
		{name: "golden without suppressed", res: goldenResult, opts: report.Options{Version: "1.2.3"}},
		{name: "colour", res: goldenResult, opts: report.Options{Color: true}},
		{name: "clean", res: cleanResult},
		{name: "edge", res: edgeResult, opts: goldenOptions()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := render(t, tc.res(), tc.opts)
			second := render(t, tc.res(), tc.opts)
			for suffix, b := range first {
				if !bytes.Equal(b, second[suffix]) {
					t.Errorf("%s: two runs differ:\n%s\n---\n%s", suffix, b, second[suffix])
				}
			}
		})
	}
}

func TestClean(t *testing.T) {
	out := render(t, cleanResult(), report.Options{Version: "1.2.3"})
	for _, tc := range []struct {
		suffix string
		want   []string
		not    []string
	}{
		{suffix: "txt", want: []string{"0 error(s), 0 warning(s), 0 note(s) in 2 file(s), 3 object(s), 0 node(s)\n"}},
		{suffix: "json", want: []string{`"findings": [],`, `"error": 0`}, not: []string{`"suppressed": [`}},
		{suffix: "sarif", want: []string{`"results": []`, `"id": "toleration-unmatched"`}},
		{suffix: "github", want: []string{"0 error(s)"}, not: []string{"::error", "::warning", "::notice"}},
		{suffix: "md", want: []string{"No findings in 2 file(s)"}, not: []string{"| Severity"}},
	} {
		t.Run(tc.suffix, func(t *testing.T) {
			got := string(out[tc.suffix])
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %q in:\n%s", n, got)
				}
			}
		})
	}
}

func TestShowSuppressed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		show   bool
		suffix string
		want   string
		absent bool
	}{
		{name: "text hidden", suffix: "txt", want: "(suppressed:", absent: true},
		{name: "text hint", suffix: "txt", want: "2 suppressed (--show-suppressed lists them)"},
		{name: "text shown", show: true, suffix: "txt", want: "(suppressed: legacy chart, fixed in v2 (see #12))"},
		{name: "json hidden", suffix: "json", want: `"suppressed": [`, absent: true},
		{name: "json count", suffix: "json", want: `"suppressed": 2`},
		{name: "json shown", show: true, suffix: "json", want: `"suppressed": [`},
		{name: "sarif always", suffix: "sarif", want: `"justification": "legacy chart, fixed in v2 (see #12)"`},
		{name: "github never annotated", show: true, suffix: "github", want: "::error file=deploy/app.yaml,line=40", absent: true},
		{name: "markdown shown", show: true, suffix: "md", want: "### Suppressed"},
		{name: "markdown hidden", suffix: "md", want: "### Suppressed", absent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, goldenResult(), report.Options{ShowSuppressed: tc.show})
			if got := strings.Contains(string(out[tc.suffix]), tc.want); got == tc.absent {
				t.Errorf("contains %q = %v, want %v:\n%s", tc.want, got, !tc.absent, out[tc.suffix])
			}
		})
	}
}

func TestColor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		color bool
	}{
		{name: "off", color: false},
		{name: "on", color: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WriteText(&buf, goldenResult(), report.Options{Color: tc.color}); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if has := strings.Contains(got, "\x1b[1;31merror\x1b[0m"); has != tc.color {
				t.Errorf("coloured severity = %v, want %v:\n%q", has, tc.color, got)
			}
			// The escape sequence inside a message is never passed through.
			if strings.Contains(got, "\x1b[2J") {
				t.Errorf("raw escape sequence from a message reached the output:\n%q", got)
			}
		})
	}
}

// TestSARIFShape checks the structural promises the golden file alone
// would not make obvious.
func TestSARIFShape(t *testing.T) {
	res := goldenResult()
	var buf bytes.Buffer
	if err := report.WriteSARIF(&buf, res, report.Options{Version: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID         string         `json:"id"`
						Properties map[string]any `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID              string            `json:"ruleId"`
				RuleIndex           int               `json:"ruleIndex"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Suppressions        []struct {
					Kind string `json:"kind"`
				} `json:"suppressions"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	run := log.Runs[0]
	t.Run("every rule", func(t *testing.T) {
		if len(run.Tool.Driver.Rules) != len(res.Rules) {
			t.Fatalf("%d rules in driver.rules, want %d", len(run.Tool.Driver.Rules), len(res.Rules))
		}
		for i, r := range res.Rules {
			if got := run.Tool.Driver.Rules[i].ID; got != r.ID {
				t.Errorf("driver.rules[%d] = %s, want %s", i, got, r.ID)
			}
		}
	})
	t.Run("security severity", func(t *testing.T) {
		for _, r := range run.Tool.Driver.Rules {
			_, has := r.Properties["security-severity"]
			if want := r.ID == "toleration-wildcard"; has != want {
				t.Errorf("%s: security-severity present = %v, want %v", r.ID, has, want)
			}
		}
	})
	t.Run("results", func(t *testing.T) {
		if want := len(res.Findings) + len(res.Suppressed); len(run.Results) != want {
			t.Fatalf("%d results, want %d", len(run.Results), want)
		}
		suppressed := 0
		prints := map[string]bool{}
		for i, r := range run.Results {
			if got := run.Tool.Driver.Rules[r.RuleIndex].ID; got != r.RuleID {
				t.Errorf("results[%d]: ruleIndex points at %s, ruleId is %s", i, got, r.RuleID)
			}
			if len(r.Suppressions) > 0 {
				suppressed++
			}
			fp := r.PartialFingerprints["taintlint/v1"]
			if fp == "" || prints[fp] {
				t.Errorf("results[%d]: fingerprint %q empty or repeated", i, fp)
			}
			prints[fp] = true
			loc := r.Locations[0].PhysicalLocation.ArtifactLocation
			switch {
			case strings.HasPrefix(loc.URI, "file:///"):
				if loc.URIBaseID != "" {
					t.Errorf("results[%d]: absolute %s has uriBaseId %s", i, loc.URI, loc.URIBaseID)
				}
			case loc.URIBaseID != "%SRCROOT%" || strings.ContainsAny(loc.URI, `\ `) || strings.HasPrefix(loc.URI, "/"):
				t.Errorf("results[%d]: uri %q base %q: want a relative, escaped uri with %%SRCROOT%%", i, loc.URI, loc.URIBaseID)
			}
		}
		if suppressed != len(res.Suppressed) {
			t.Errorf("%d results with suppressions, want %d", suppressed, len(res.Suppressed))
		}
	})
}

// TestSARIFFingerprint pins what the partial fingerprint depends on: moving
// a finding to another line or rewording it keeps it; another object, rule,
// file or field path changes it.
func TestSARIFFingerprint(t *testing.T) {
	base := goldenResult()
	fp := func(t *testing.T, res *lint.Result) string {
		t.Helper()
		res.Suppressed = nil
		var buf bytes.Buffer
		if err := report.WriteSARIF(&buf, res, report.Options{}); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID              string            `json:"ruleId"`
					PartialFingerprints map[string]string `json:"partialFingerprints"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		for _, r := range log.Runs[0].Results {
			if r.RuleID == "toleration-exists-with-value" {
				return r.PartialFingerprints["taintlint/v1"]
			}
		}
		t.Fatal("no toleration-exists-with-value result")
		return ""
	}
	want := fp(t, base)
	for _, tc := range []struct {
		name   string
		edit   func(res *lint.Result)
		stable bool
	}{
		{name: "line moves", edit: func(res *lint.Result) { res.Findings[2].Pos.Line += 40 }, stable: true},
		{name: "column moves", edit: func(res *lint.Result) { res.Findings[2].Pos.Column = 3 }, stable: true},
		{name: "message changes", edit: func(res *lint.Result) { res.Findings[2].Message = "reworded" }, stable: true},
		{name: "file spelled with ./", edit: func(res *lint.Result) { res.Findings[2].Pos.File = "./deploy/app.yaml" }, stable: true},
		{name: "other object", edit: func(res *lint.Result) { res.Findings[2].Object.Name = "web2" }},
		{name: "other path", edit: func(res *lint.Result) { res.Findings[2].Path = "spec.template.spec.tolerations[1].value" }},
		{name: "other file", edit: func(res *lint.Result) { res.Findings[2].Pos.File = "deploy/other.yaml" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := goldenResult()
			tc.edit(res)
			if got := fp(t, res); (got == want) != tc.stable {
				t.Errorf("fingerprint %s, before %s; want stable = %v", got, want, tc.stable)
			}
		})
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := report.Write(&bytes.Buffer{}, report.Format("xml"), goldenResult(), report.Options{}); err == nil {
		t.Fatal("no error for an unknown format")
	}
	if _, err := report.ParseFormat("xml"); err == nil {
		t.Fatal("ParseFormat accepted xml")
	}
}

var errFull = errors.New("disk full")

// failWriter accepts n bytes, then fails.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	n := w.n
	w.n = 0
	return n, errFull
}

func TestWriteErrors(t *testing.T) {
	for _, f := range report.Formats() {
		t.Run(string(f), func(t *testing.T) {
			var full bytes.Buffer
			if err := report.Write(&full, f, goldenResult(), goldenOptions()); err != nil {
				t.Fatal(err)
			}
			// Fail at once, in the middle, and on the very last byte.
			for _, n := range []int{0, full.Len() / 2, full.Len() - 1} {
				err := report.Write(&failWriter{n: n}, f, goldenResult(), goldenOptions())
				if !errors.Is(err, errFull) {
					t.Errorf("failing after %d of %d bytes: error %v, want %v", n, full.Len(), err, errFull)
				}
			}
		})
	}
	t.Run("step summary", func(t *testing.T) {
		opts := goldenOptions()
		opts.StepSummary = &failWriter{n: 10}
		err := report.Write(&bytes.Buffer{}, report.GitHub, goldenResult(), opts)
		if !errors.Is(err, errFull) {
			t.Errorf("error %v, want %v", err, errFull)
		}
	})
}

// TestSARIFEdges covers what the golden run does not: findings that share
// rule, file, object and path still get distinct fingerprints, a finding
// without a line points at line 1, and a finding of an unlisted rule gets a
// descriptor that its ruleIndex points at.
func TestSARIFEdges(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteSARIF(&buf, edgeResult(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string `json:"version"`
					Rules   []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID              string            `json:"ruleId"`
				RuleIndex           int               `json:"ruleIndex"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Locations           []struct {
					PhysicalLocation struct {
						Region *struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	res := edgeResult()
	if got, want := run.Tool.Driver.Version, "0.0.0-unknown"; got != want {
		t.Errorf("driver.version = %q, want %q", got, want)
	}
	prints := map[string]int{}
	for i, r := range run.Results {
		if got := run.Tool.Driver.Rules[r.RuleIndex].ID; got != r.RuleID {
			t.Errorf("results[%d]: ruleIndex points at %s, ruleId is %s", i, got, r.RuleID)
		}
		fp := r.PartialFingerprints["taintlint/v1"]
		if j, dup := prints[fp]; dup {
			t.Errorf("results[%d] and [%d] share fingerprint %s", j, i, fp)
		}
		prints[fp] = i
		region := r.Locations[0].PhysicalLocation.Region
		f := res.Findings[i]
		switch {
		case region == nil:
			t.Errorf("results[%d]: no region", i)
		case region.StartLine != max(f.Pos.Line, 1):
			t.Errorf("results[%d]: startLine %d for line %d", i, region.StartLine, f.Pos.Line)
		case f.Pos.Column == 0 && region.StartColumn != 0:
			t.Errorf("results[%d]: startColumn %d for an unknown column", i, region.StartColumn)
		}
	}
}

// TestStepSummaryCap pins the cap on the step summary's table: GitHub
// rejects summaries over 1 MiB, and the log keeps every finding anyway.
func TestStepSummaryCap(t *testing.T) {
	res := goldenResult()
	one := res.Findings[2]
	res.Findings = nil
	for i := range 600 {
		f := one
		f.Pos.Line = i + 1
		res.Findings = append(res.Findings, f)
	}
	var log, md bytes.Buffer
	if err := report.WriteGitHub(&log, res, report.Options{StepSummary: &md}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(md.String(), "\n| error | deploy/app.yaml:"); got != 500 {
		t.Errorf("%d table rows, want 500", got)
	}
	if !strings.Contains(md.String(), "\nAnd 100 more in the log.\n") {
		t.Errorf("no note of the rows left out:\n%s", md.String()[md.Len()-200:])
	}
	if got := strings.Count(log.String(), "::error file=deploy/app.yaml,"); got != 600 {
		t.Errorf("%d annotations, want 600", got)
	}
}

// TestGitHubCommandInjection feeds manifest text that the runner would read
// as workflow commands and checks that only taintlint's own commands are
// outside the ::stop-commands:: block.
func TestGitHubCommandInjection(t *testing.T) {
	res := goldenResult()
	res.Findings[2].Message = "value \"x\n::add-mask::y\n  ::error file=evil.yaml::forged\" is bad"
	res.Findings[2].Related = []rules.Related{{Pos: loader.Position{File: "::warning::evil.yaml", Line: 1, Column: 1}, Message: "see\n::endgroup::"}}
	var buf bytes.Buffer
	if err := report.WriteGitHub(&buf, res, report.Options{}); err != nil {
		t.Fatal(err)
	}
	token := ""
	for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		cmd := strings.TrimLeft(line, " \t")
		switch {
		case token != "":
			if cmd == "::"+token+"::" {
				token = ""
			}
		case strings.HasPrefix(cmd, "::stop-commands::"):
			token = strings.TrimPrefix(cmd, "::stop-commands::")
		case strings.HasPrefix(cmd, "::error file=evil"), strings.HasPrefix(cmd, "::add-mask"), strings.HasPrefix(cmd, "::endgroup"):
			t.Errorf("line %d: forged command outside the stopped block: %q", i+1, line)
		case strings.HasPrefix(cmd, "::") && !strings.HasPrefix(cmd, "::error file=") && !strings.HasPrefix(cmd, "::warning ") && !strings.HasPrefix(cmd, "::notice "):
			t.Errorf("line %d: unexpected command: %q", i+1, line)
		}
	}
	if token != "" {
		t.Errorf("commands still stopped at the end of the output")
	}
}

// TestTextFileNameInjection: a file name is one line in the text report. A
// newline in it (a legal file name byte) would start a line of its own: a
// workflow command in an Actions log, or a forged finding. It is escaped as
// the other formats escape it.
func TestTextFileNameInjection(t *testing.T) {
	res := goldenResult()
	res.Findings[0].Pos.File = "evil\n::error file=x.yaml::forged\n.yaml"
	res.Findings[1].Related = []rules.Related{{Pos: loader.Position{File: "rel\n::add-mask::y.yaml", Line: 1, Column: 1}, Message: "see"}}
	var buf bytes.Buffer
	if err := report.WriteText(&buf, res, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			t.Errorf("line %d starts a workflow command: %q", i+1, line)
		}
	}
	if !strings.Contains(buf.String(), `evil\n::error file=x.yaml::forged\n.yaml:`) {
		t.Errorf("escaped file name missing:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), `rel\n::add-mask::y.yaml:1:1: see`) {
		t.Errorf("escaped related file name missing:\n%s", buf.String())
	}
}
