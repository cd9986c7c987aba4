// Package rulestest checks rules against YAML fixtures whose expected
// findings are written beside the offending line, as analysistest does for
// Go analyzers:
//
//	  effect: noschedule   # want "taint-effect-invalid"
//	  value: x             # want "toleration-value-invalid" "toleration-exists-with-value"
//	# want +1 "pod-unschedulable: 0/3 nodes are available"
//
// Each quoted string is a rule id, optionally followed by ": " and a
// regular expression the message must match. "+N" moves the expectation N
// lines down, for lines that cannot hold a comment. Wants are read from the
// raw text, so fixtures that are not valid YAML work too.
//
// Run takes the rule value under test, as analysistest.Run takes an
// analyzer, and runs the driver (internal/lint) on its fixture directory
// testdata/rules/<rule-id>/ as taintlint check would, with only that rule
// and parse-error enabled. Its files that hold Nodes or node pools are also
// named with --nodes, so they are the inventory, unless the case's
// .taintlint.yaml names one (nodes:). A subdirectory holding a .taintlint.yaml is a
// separate case run with that configuration (feature gates, inventory,
// admission settings). Unexpected findings and unmet wants both fail.
package rulestest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/cli"
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/rules"
)

// Finding is a finding as the JSON report gives it.
type Finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Path     string `json:"path"`
}

// want is one expectation.
type want struct {
	file string
	line int
	rule string
	msg  *regexp.Regexp
	text string
}

var (
	wantRE  = regexp.MustCompile(`#\s*want\s+(?:\+(\d+)\s+)?((?:"(?:[^"\\]|\\.)*"\s*)+)\s*$`)
	quoteRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// Case is one taintlint run over fixture paths.
type Case struct {
	Name   string
	Paths  []string
	Config string // .taintlint.yaml of the case, or ""
}

// Cases splits a rule's fixture directory into runs: one for the
// directory itself, one per subdirectory holding a .taintlint.yaml.
func Cases(dir string) ([]Case, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	top := Case{Name: filepath.Base(dir)}
	if _, err := os.Stat(filepath.Join(dir, ".taintlint.yaml")); err == nil {
		return []Case{{Name: top.Name, Paths: []string{dir}, Config: filepath.Join(dir, ".taintlint.yaml")}}, nil
	}
	var cases []Case
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.IsDir() {
			cfg := filepath.Join(p, ".taintlint.yaml")
			if _, err := os.Stat(cfg); err == nil {
				cases = append(cases, Case{Name: e.Name(), Paths: []string{p}, Config: cfg})
				continue
			}
		}
		top.Paths = append(top.Paths, p)
	}
	if len(top.Paths) > 0 {
		cases = append([]Case{top}, cases...)
	}
	return cases, nil
}

// Run checks rule against every case of its fixture directory, as
// analysistest.Run checks an analyzer, and returns how many wants it met.
// extraArgs are check flags every case is read with (--policy DIR,
// --feature-gates ...).
func Run(t *testing.T, dir string, rule *rules.Rule, extraArgs ...string) int {
	t.Helper()
	cases, err := Cases(dir)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no fixtures", dir)
	}
	met := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			met += RunCase(t, c, rule, extraArgs...)
		})
	}
	return met
}

// RunCase runs rule, with parse-error, on one case as taintlint check
// would (the case's configuration read as check reads it) and compares
// its findings with the wants.
func RunCase(t *testing.T, c Case, rule *rules.Rule, extraArgs ...string) int {
	t.Helper()
	wants, err := readWants(c.Paths)
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.Config
	if cfg == "" {
		cfg = filepath.Join(t.TempDir(), ".taintlint.yaml")
		if err := os.WriteFile(cfg, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	args := []string{"check", "--config", cfg}
	if data, _ := os.ReadFile(cfg); !configNodesRE.Match(data) {
		args = append(args, InventoryArgs(t, c.Paths)...)
	}
	args = append(args, extraArgs...)
	opts, err := cli.CheckOptions(ctx, append(args, c.Paths...), cli.Env{Stdin: strings.NewReader("")})
	if err != nil {
		t.Fatal(err)
	}
	// The rule under test joins the run's rules in place of the one of
	// its id; every other rule but parse-error is off.
	all := []*rules.Rule{rule}
	for _, r := range opts.Rules {
		if r.ID != rule.ID {
			all = append(all, r)
		}
	}
	opts.Rules, opts.Enable, opts.Disable = all, []string{rule.ID}, nil
	if rule.ID != "parse-error" {
		for _, r := range all {
			if r.ID != rule.ID && r.ID != "parse-error" {
				opts.Disable = append(opts.Disable, r.ID)
			}
		}
	}
	res, err := lint.Run(ctx, opts)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	var findings []Finding
	for _, f := range res.Findings {
		if f.Pos.File == "" || f.Pos.Line == 0 || f.Pos.Column == 0 {
			t.Errorf("finding without file, line or column: %+v", f)
		}
		findings = append(findings, Finding{Rule: f.Rule, Severity: f.Severity.String(), Message: f.Message, File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Column, Path: f.Path})
	}
	compare(t, wants, findings)
	return len(wants)
}

// Expect runs taintlint with args (which must ask for JSON output) on
// paths and compares its findings with the want comments in the files
// under paths, whatever rules args enable.
func Expect(t *testing.T, args []string, paths ...string) {
	t.Helper()
	wants, err := readWants(paths)
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string(nil), args...)
	if !slices.Contains(args, "--nodes") {
		args = append(args, InventoryArgs(t, paths)...)
	}
	findings, _ := RunJSON(t, append(args, paths...))
	compare(t, wants, findings)
}

var (
	configNodesRE = regexp.MustCompile(`(?m)^nodes:`)
	// inventoryKindRE finds a Node, a NodeList or a node pool in a
	// file's raw text, in block or flow style.
	inventoryKindRE = regexp.MustCompile(`(?m)\bkind:\s*["']?(Node|NodeList|NodePool|ClusterConfig|MachineDeployment|MachineSet|MachinePool|KubeadmControlPlane|InstanceGroup|ContainerNodePool|ManagedClustersAgentPool|ManagedCluster)["']?\s*(?:[,}#]|$)`)
)

// InventoryArgs are --nodes flags naming every file under paths that holds
// a Node or a node pool, so that a fixture's nodes are its inventory.
func InventoryArgs(t *testing.T, paths []string) []string {
	t.Helper()
	files, err := InventoryFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, f := range files {
		args = append(args, "--nodes", f)
	}
	return args
}

// InventoryFiles are the YAML and JSON files under paths that hold a Node
// or a node pool, found in their raw text.
func InventoryFiles(paths []string) ([]string, error) {
	var files []string
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if d.IsDir() || !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" && ext != ".json" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if inventoryKindRE.Match(data) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// compare fails the test for every want no finding meets and every
// finding no want expects.
func compare(t *testing.T, wants []want, findings []Finding) {
	t.Helper()
	matched := make([]bool, len(findings))
	for _, w := range wants {
		ok := false
		for i, f := range findings {
			if matched[i] || f.File != w.file || f.Line != w.line || f.Rule != w.rule {
				continue
			}
			if w.msg != nil && !w.msg.MatchString(f.Message) {
				continue
			}
			matched[i], ok = true, true
			break
		}
		if !ok {
			var near []string
			for _, f := range findings {
				if f.File == w.file && f.Line == w.line {
					near = append(near, fmt.Sprintf("%s: %s", f.Rule, f.Message))
				}
			}
			extra := ""
			if len(near) > 0 {
				extra = "; findings on that line: " + strings.Join(near, " | ")
			}
			t.Errorf("%s:%d: no finding matched want %s%s", w.file, w.line, w.text, extra)
		}
	}
	for i, f := range findings {
		if !matched[i] {
			t.Errorf("%s:%d:%d: unexpected finding [%s] %s", f.File, f.Line, f.Column, f.Rule, f.Message)
		}
	}
}

// RunJSON runs taintlint in-process with args that ask for JSON output and
// returns the findings and standard error.
func RunJSON(t *testing.T, args []string) ([]Finding, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	if code == cli.ExitFailure {
		t.Fatalf("taintlint %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	var out struct {
		Findings []Finding `json:"findings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("decoding JSON report: %v\n%s", err, stdout.String())
	}
	for _, f := range out.Findings {
		if f.File == "" || f.Line == 0 || f.Column == 0 {
			t.Errorf("finding without file, line or column: %+v", f)
		}
	}
	return out.Findings, stderr.String()
}

// readWants collects the want comments of every file under paths.
func readWants(paths []string) ([]want, error) {
	var wants []want
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			ws, err := parseWants(filepath.ToSlash(p), data)
			if err != nil {
				return err
			}
			wants = append(wants, ws...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(wants, func(i, j int) bool {
		if wants[i].file != wants[j].file {
			return wants[i].file < wants[j].file
		}
		return wants[i].line < wants[j].line
	})
	return wants, nil
}

func parseWants(file string, data []byte) ([]want, error) {
	var wants []want
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1024*1024), 4*1024*1024)
	for line := 1; sc.Scan(); line++ {
		m := wantRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at := line
		if m[1] != "" {
			n, _ := strconv.Atoi(m[1])
			at += n
		}
		for _, q := range quoteRE.FindAllString(m[2], -1) {
			s, err := strconv.Unquote(q)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad want %s: %v", file, line, q, err)
			}
			w := want{file: file, line: at, text: q}
			id, rest, hasMsg := strings.Cut(s, ": ")
			w.rule = id
			if hasMsg {
				re, err := regexp.Compile(rest)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: bad want regexp %q: %v", file, line, rest, err)
				}
				w.msg = re
			}
			wants = append(wants, w)
		}
	}
	return wants, sc.Err()
}
