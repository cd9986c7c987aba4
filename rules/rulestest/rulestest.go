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
// analyzer, and runs the checker (internal/checker) on its fixture
// directory testdata/rules/<rule-id>/ as taintlint check would, with only
// that rule and parse-error enabled. Its files that hold Nodes or node pools are also
// named with --nodes, so they are the inventory, unless the case's
// .taintlint.yaml names one (nodes:). A subdirectory holding a .taintlint.yaml is a
// separate case run with that configuration (feature gates, inventory,
// admission settings), read as check reads it (checker.Options.Configure).
// Unexpected findings and unmet wants both fail. Tests that run the whole
// command line compare its findings with the wants through Compare.
package rulestest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/internal/config"
	"github.com/taintlint/taintlint/loader"
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
func Run(t *testing.T, dir string, rule *rules.Rule) int {
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
			met += RunCase(t, c, rule)
		})
	}
	return met
}

// RunCase runs rule, with parse-error, on one case as taintlint check
// would (the case's configuration read as check reads it) and compares
// its findings with the wants.
func RunCase(t *testing.T, c Case, rule *rules.Rule) int {
	t.Helper()
	wants, err := readWants(c.Paths)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all, err := checker.Rules(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The rule under test joins the run's rules in place of the one of
	// its id; every other rule but parse-error is off.
	opts := checker.Options{
		Paths:  c.Paths,
		Rules:  []*rules.Rule{rule},
		Loader: loader.Options{Kustomize: true, KustomizeFileRoots: true},
	}
	for _, r := range all {
		if r.ID != rule.ID {
			opts.Rules = append(opts.Rules, r)
		}
	}
	if c.Config != "" {
		cfg, err := config.Load(c.Config, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := opts.Configure(cfg); err != nil {
			t.Fatal(err)
		}
	}
	if len(opts.Nodes) == 0 {
		if opts.Nodes, err = InventoryFiles(c.Paths); err != nil {
			t.Fatal(err)
		}
	}
	opts.Enable, opts.Disable = []string{rule.ID}, nil
	if rule.ID != "parse-error" {
		for _, r := range opts.Rules {
			if r.ID != rule.ID && r.ID != "parse-error" {
				opts.Disable = append(opts.Disable, r.ID)
			}
		}
	}
	res, err := checker.Run(ctx, opts)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	var findings []Finding
	for _, f := range res.Findings {
		if f.Suppressed != nil {
			continue
		}
		if f.Pos.File == "" || f.Pos.Line == 0 || f.Pos.Column == 0 {
			t.Errorf("finding without file, line or column: %+v", f)
		}
		findings = append(findings, Finding{Rule: f.Rule, Severity: f.Severity.String(), Message: f.Message, File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Column, Path: f.Path})
	}
	compare(t, wants, findings)
	return len(wants)
}

// Compare fails the test for every want comment in the files under paths
// that no finding meets, and for every finding no want expects: for tests
// that run taintlint's whole command line.
func Compare(t *testing.T, paths []string, findings []Finding) {
	t.Helper()
	wants, err := readWants(paths)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, wants, findings)
}

var (
	// inventoryKindRE finds a Node, a NodeList or a node pool in a
	// file's raw text, in block or flow style.
	inventoryKindRE = regexp.MustCompile(`(?m)\bkind:\s*["']?(Node|NodeList|NodePool|ClusterConfig|MachineDeployment|MachineSet|MachinePool|KubeadmControlPlane|InstanceGroup|ContainerNodePool|ManagedClustersAgentPool|ManagedCluster)["']?\s*(?:[,}#]|$)`)
)

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
