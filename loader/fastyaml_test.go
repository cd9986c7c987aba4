package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/loader/internal/fastyaml"
	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/stream"
	yaml "go.yaml.in/yaml/v3"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/loader/internal/yamltree"
)

// fastSeeds are documents in the subset the fast path reads, and just
// outside it.
var fastSeeds = []string{
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {app: a, tier: \"web\"}\nspec:\n  containers:\n  - name: c\n    image: x:1\n    args: [\"sh\", \"-c\", 'echo hi']\n    env:\n    - {name: A, value: \"1\"}\n    ports: []\n  tolerations:\n  - key: k\n    operator: Exists\n    effect: NoSchedule\n    tolerationSeconds: 300\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: |\n    line 1\n\n      more\n    end\n  b: >-\n    folded\n    text\n\n    para\n  c: |+\n    keep\n\n  d: |2-\n     two\n  e: >\n\n   x\n  f: |\n",
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n- 3\n- [a]\n- kind: Node\n  metadata:\n    name: n2\n",
	"apiVersion: v1\nkind: NodeList\nitems:\n- metadata: {name: n1}\n  spec:\n    taints:\n    - {key: a, effect: NoSchedule}\n",
	"a: yes\nb: No\nc: ~\nd: null\ne: 0x1F\nf: 0o17\ng: 017\nh: +12\ni: -1_000\nj: 1e3\nk: .5\no: 2001-12-14\np: 2001-12-14t21:59:43.10-05:00\nq: 1.0\nr: 9223372036854775808\ns: 18446744073709551616\nt: 0b101\nu: y\nv: True\nw: \"\\x41\\u00e9\\U0001F600\\t\\\\\\\"\\N\\_\\L\\P\\0\"\nx: 'it''s'\nyy: <<a\nz: -\"q\"\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: é\n  annotations:\n    \"ü\": [é, ü, \"x\"]\n    k: {é: [1, 2], b: {c: d}}\n",
	"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - - x\n    - y\n  -   name: z\n      x: 1\n",
	"--- # c\n  apiVersion: v1\n  kind: Pod # t\n  metadata:\n    name: a\n",
	"apiVersion: v1\nkind: Pod\nx: |1\n  a\n y\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n",
	"apiVersion: v1\nkind: Pod\nmetadata: &m\n  name: a\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  x: this is\n    continued\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"a\n    b\"\n",
	"apiVersion: v1\nkind: Pod\nspec:\n\tx: 1\n",
	"apiVersion: v1\r\nkind: Pod\r\n",
	"- a\n- b\n",
	"a: .inf\nb: -.Inf\nc: .nan\nd: +.INF\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  yes: a\n  0x10: b\n  010: c\n  ~: d\n  1e3: e\n  on: f\n",
	"just a string\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  b: c: d\n",
	"apiVersion: v1\nkind: Pod\nx:\n- a\n-\n- b\n",
	"apiVersion: v1\nkind: Pod\nx: !!str a\n",
	"apiVersion: v1\nkind: Pod\nx: [a, b,]\ny: {a: 1, a: 2}\n",
	"apiVersion: v1\nkind: Pod\nx: \"\\/\"\n",
	"apiVersion: v1\nkind: Pod\nx: <<\n",
	"apiVersion: v1\nkind: Pod\nx: [a, <<]\n",
	"apiVersion: v1\nkind: Pod\nx:\n- <<\n",
	"apiVersion: v1\nkind: Pod\nx: {<<: a}\n",
	"apiVersion: \"\"\nkind: Pod\n",
	"kind: Pod\n",
	"apiVersion: v1\nkind: List\nitems: []\n",
	"apiVersion: v1\nkind: List\nitems: {}\n",
	"apiVersion: v1\nkind: PodList\nitems:\n",
	"# only a comment\n\n   # another\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: 12\n  namespace: ~\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: >\n    one\n      more\n    two\n\n\n    three\n   \n  b: |+\n\n  c: >2\n     x\n    y\n  d:\n  - |-\n    s\n  - >+\n    t\n\n  e: |\n      \n    u\n  f: |\n    v",
	"a:\n- b\n- c: d\n  e:\n  - f\n  g: [h, 'i', \"j\", {k: l}, [m]]\nn: {o: [], p: {}, q: \"\", 'r': ''}\n",
}

// FuzzFastYAML holds the fast path to yaml.v3: every document of any
// input that the fast path reads gives what parseDocument gives it (whole
// streams, where runs of documents the fast path leaves go to one
// decoder, are FuzzParseRuns's).
func FuzzFastYAML(f *testing.F) {
	seedFromTestdata(f)
	seedFrom(f, filepath.Join("..", "examples"))
	for _, s := range append(fastSeeds, streams...) {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	if err := benchgen.Write(dir, benchgen.Spec{Docs: 12, Files: 4, Nodes: 6, Pools: 3, Seed: 7, BadPercent: 20, Realistic: true}); err == nil {
		seedFrom(f, dir)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > input.MaxFileSize || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		p := fastyaml.NewParser(nil, true, 0)
		for i, d := range stream.Documents(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
			if !p.Parse(d.Data) {
				continue
			}
			got, want := &Result{}, &Result{}
			addFast(got, "f.yaml", i, d, p.Read(d))
			parseDocument(want, "f.yaml", i, d)
			if diff := samePaths(got, want, 20); diff != "" {
				t.Fatalf("document %d %q: %s", i, d.Data, diff)
			}
		}
	})
}

// seedFrom adds every manifest file under root as a seed.
func seedFrom(f *testing.F, root string) {
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifestName(d.Name()) {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
		return nil
	})
}

// TestFastYAMLMatchesYAML reads every manifest of the repository and a
// realistic benchgen corpus both ways and requires the same result; it
// reports the share of documents the fast path read.
func TestFastYAMLMatchesYAML(t *testing.T) {
	fixtures := manifestFiles(t, filepath.Join("..", "testdata"), filepath.Join("..", "examples"))
	corpus := t.TempDir()
	if err := benchgen.Write(corpus, benchgen.Small); err != nil {
		t.Fatal(err)
	}
	realistic := manifestFiles(t, corpus)
	for _, set := range []struct {
		name  string
		files []string
		want  float64 // least share of documents read by the fast path
	}{
		{"testdata and examples", fixtures, 0.5},
		{"benchgen realistic small", realistic, 1},
	} {
		fast, total := 0, 0
		for _, file := range set.files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.ToSlash(file)
			if diff := samePaths(parseStream(name, data, true), parseStream(name, data, false), 300); diff != "" {
				t.Errorf("%s: %s", file, diff)
			}
			if strings.EqualFold(filepath.Ext(file), ".json") {
				continue
			}
			p := fastyaml.NewParser(nil, true, 0)
			for _, d := range stream.Documents(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
				if blank(d.Data) {
					continue
				}
				total++
				if p.Parse(d.Data) {
					fast++
				}
			}
		}
		share := float64(fast) / float64(max(total, 1))
		t.Logf("%s: %d files, the fast path read %d of %d documents (%.1f%%)", set.name, len(set.files), fast, total, 100*share)
		if total == 0 || share < set.want {
			t.Errorf("%s: the fast path read %.1f%% of the documents; want at least %.0f%%", set.name, 100*share, 100*set.want)
		}
	}
}

func manifestFiles(t *testing.T, roots ...string) []string {
	var files []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Type().IsRegular() && isManifestName(d.Name()) {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestFastYAMLSeeds: the seeds in the subset are read by the fast path,
// and every seed gives what yaml.v3 gives.
func TestFastYAMLSeeds(t *testing.T) {
	for i, s := range fastSeeds {
		if diff := samePaths(parseStream("f.yaml", []byte(s), true), parseStream("f.yaml", []byte(s), false), 300); diff != "" {
			t.Errorf("seed %d %q: %s", i, s, diff)
		}
	}
	for i := range 9 {
		p := fastyaml.NewParser(nil, true, 0)
		if !p.Parse([]byte(fastSeeds[i])) {
			t.Errorf("seed %d is not read by the fast path: %q", i, fastSeeds[i])
		}
	}
	// Keys about as long as yaml.v3's simple keys may be.
	for _, n := range []int{998, 1000, 1001, 1020, 1021, 1022, 1023, 1024, 1025, 1100} {
		k := strings.Repeat("k", n)
		for _, s := range []string{k + ": v\n", "\"" + k + "\": v\n", "x: {" + k + ": v}\n", "x: {'" + k + "': v}\n", "x: [" + k + "]\n"} {
			s = "apiVersion: v1\nkind: Pod\n" + s
			if diff := samePaths(parseStream("f.yaml", []byte(s), true), parseStream("f.yaml", []byte(s), false), 10); diff != "" {
				t.Errorf("%d-byte key %.40q: %s", n, s, diff)
			}
		}
	}
	p := fastyaml.NewParser(nil, true, 0)
	for i := 9; i < 26; i++ {
		if p.Parse([]byte(fastSeeds[i])) {
			t.Errorf("seed %d is read by the fast path: %q", i, fastSeeds[i])
		}
	}
}

// samePaths is sameResult, and also the same file names, document
// sources and positions of every field (Locate, LocateValue, LocateAll)
// and of some that are absent: up to limit paths an object.
func samePaths(got, want *Result, limit int) string {
	if diff := sameResult(got, want); diff != "" {
		return diff
	}
	for i, g := range got.Objects {
		w := want.Objects[i]
		if g.File != w.File || !bytes.Equal(g.src.document().raw, w.src.document().raw) || g.src.document().keep != w.src.document().keep || (g.src.jsonErr() == nil) != (w.src.jsonErr() == nil) {
			return fmt.Sprintf("object %d: file %s keep %v; want %s keep %v", i, g.File, g.src.document().keep, w.File, w.src.document().keep)
		}
		paths := append(fieldPaths(formJSON(g), limit), "", "spec.nope", "metadata.labels[a/b]", "spec.containers[99]", "items[0]")
		for _, p := range paths {
			gp, ge := g.Locate(p)
			wp, we := w.Locate(p)
			if gp != wp || ge != we {
				return fmt.Sprintf("object %d: Locate(%q) = %v %v; want %v %v", i, p, gp, ge, wp, we)
			}
			gp, ge = g.LocateValue(p)
			wp, we = w.LocateValue(p)
			if gp != wp || ge != we {
				return fmt.Sprintf("object %d: LocateValue(%q) = %v %v; want %v %v", i, p, gp, ge, wp, we)
			}
		}
		gps, ges := g.LocateAll(paths)
		wps, wes := w.LocateAll(paths)
		if !slices.Equal(gps, wps) || !slices.Equal(ges, wes) {
			return fmt.Sprintf("object %d: LocateAll differs", i)
		}
	}
	return ""
}

// fieldPaths lists up to limit field paths of the JSON object data, in
// field.Path form.
func fieldPaths(data []byte, limit int) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var out []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				c := v[k]
				if len(out) >= limit {
					return
				}
				p := prefix + "." + k
				if prefix == "" {
					p = k
				}
				if strings.ContainsAny(k, ".[]") || k == "" {
					p = prefix + "[" + k + "]"
				}
				out = append(out, p)
				walk(p, c)
			}
		case []any:
			for i, c := range v {
				if len(out) >= limit {
					return
				}
				p := prefix + "[" + strconv.Itoa(i) + "]"
				out = append(out, p)
				walk(p, c)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	return out
}

// BenchmarkParseRealistic parses the documents of a realistic benchgen
// corpus with the fast path and with yaml.v3 alone.
func BenchmarkParseRealistic(b *testing.B) {
	dir := b.TempDir()
	if err := benchgen.Write(dir, benchgen.Small); err != nil {
		b.Fatal(err)
	}
	var files [][]byte
	size := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, err := os.ReadFile(p)
			files = append(files, data)
			size += len(data)
			return err
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, fast := range []bool{true, false} {
		name := "yaml.v3"
		if fast {
			name = "fast"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, data := range files {
					parseStream("f.yaml", data, fast)
				}
			}
		})
	}
}

// TestFastYAMLGenerated compares the two paths on documents built from
// the pieces manifests are made of, tricky scalars among them, in random
// shapes: where byte fuzzing seldom reaches a meaningful variation, this
// makes thousands.
func TestFastYAMLGenerated(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(18, 25))
	fast := 0
	for i := range n {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: Pod\n")
		if r.IntN(8) == 0 {
			b.WriteString("# c\n")
		}
		genMapping(&b, r, 0, 0, true)
		doc := b.String()
		if r.IntN(10) == 0 {
			doc = "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n- [x]\n"
		}
		data := []byte(doc)
		if diff := samePaths(parseStream("f.yaml", data, true), parseStream("f.yaml", data, false), 50); diff != "" {
			t.Fatalf("document %d:\n%s\n%s", i, doc, diff)
		}
		p := fastyaml.NewParser(nil, true, 0)
		if p.Parse(data) {
			fast++
		}
	}
	t.Logf("the fast path read %d of %d generated documents", fast, n)
	if fast < n/5 {
		t.Errorf("the fast path read only %d of %d generated documents", fast, n)
	}
}

var (
	genScalars = []string{"a", "0", "012", "0x1F", "-1", "+1", "1_000", "1e3", "1.5", ".5", "1.", "-.inf", ".NaN", "~", "null", "Null", "NULL", "true", "True", "FALSE", "yes", "No", "on", "Off", "y", "n", "2001-12-14", "2001-12-14 21:59:43.10", "2001-12-14T21:59:43Z", "9223372036854775807", "9223372036854775808", "18446744073709551616", "-9223372036854775809", "0b1010", "-0b11", "0o17", "-0o17", "1:30", "http://x:80/y", "a b", "a  b", "a #b", "a#b", "é", "ü ö", "<b>&", "-x", "--", "a,b", "x]", "x}", "a\"b", "a'b", "'q'", "\"dq\"", "''", "\"\"", "'it''s'", "'a\"b'", "\"\\x41\\u00e9\\t\\U0001F600\"", "\"a\\\"b\\\\\"", "\"\\N\\_\\L\\P\\e\\0\\ \"", "\"\\/\"", "\"\\q\"", "\"\\uD800\"", "<<", "!x", "!!str 1", "&a x", "*a", "a: b", "a:", "@x", "`x", "%x", "?x", ":x", "'open", "\"open", "x:y", "x: ", "1.0e+3", "+.5", "0.", "00", "-0", "+0", "0_1", "1__2", "0x_1", "1e", "e1", ".", "3920m", "16Gi", "14902104Ki", "10.0.0.1", "1.2.3", "1..2", "1.2.", "1.2e3.4", "1e3x", "2001-12-14x", "2001-12-14 x", "0x1Fg", "0b12", "0o8", "1_000k", "1:2:3", "1 a", "1é", "1.2.3-b", "1T", "1z", "6f1c0000-0d1e-4b6a-9c1f-000000000000", "0b7c00000000-1c2d", "0f1", "0e1", "1e1-2", "1f", "12e5f", "1-2", "2001-1f", "2001-12-1f", "200-1f", "20011-1f", "0x1f-2", "0X1g", "0o1f", "0O9", "0b1f", "0B2", "1_f", "0_x1f", "1f_", "9.9.9a", "1 f", "1é"}
	genKeys    = []string{"a", "b", "c", "k1", "x.y/z", "\"q k\"", "'s'", "1", "true", "~", "é", "a b", "-k", "<<", "\"\"", "k#", "k: x"}
	genBlocks  = []string{"|", "|-", "|+", ">", ">-", ">+", "|2", ">1-", "|+3", "|-1", "| # c", ">#c", "|0"}
	genFlows   = []string{"[]", "{}", "[a, b]", "[a,b]", "[ a ]", "[\"sh\", \"-c\", 'echo hi']", "{a: 1, b: [x, y]}", "{a: {b: c}}", "[{a: b}, [c]]", "[a, ]", "{a}", "{a: }", "{a: 1, a: 2}", "[a: b]", "[-1, -x]", "[é, ü]", "{é: ü, 'x': \"y\"}", "[a # c]", "[a]#c", "[a] # c", "{\"a\":1}", "[a, [b, [c]]]", "[,]"}
)

func genScalar(r *rand.Rand) string { return genScalars[r.IntN(len(genScalars))] }

func genComment(r *rand.Rand) string {
	if r.IntN(6) == 0 {
		return " # c"
	}
	return ""
}

// genMapping writes a block mapping at indent; first, when the first key
// is already on a line ("- " written).
func genMapping(b *strings.Builder, r *rand.Rand, indent, depth int, first bool) {
	pad := strings.Repeat(" ", indent)
	for i := range 1 + r.IntN(4) {
		if i > 0 || !first {
			b.WriteString(pad)
		}
		if r.IntN(12) == 0 {
			b.WriteString("# x\n" + pad)
		}
		b.WriteString(genKeys[r.IntN(len(genKeys))] + ":")
		genValue(b, r, indent, depth)
	}
}

// genValue writes the value of a key at indent, from right after its ':'.
func genValue(b *strings.Builder, r *rand.Rand, indent, depth int) {
	k := r.IntN(10)
	if depth > 3 && k >= 5 {
		k = 0
	}
	switch k {
	case 0, 1, 2:
		b.WriteString(" " + genScalar(r) + genComment(r) + "\n")
	case 3:
		b.WriteString(" " + genFlows[r.IntN(len(genFlows))] + genComment(r) + "\n")
	case 4:
		b.WriteString(" " + genBlocks[r.IntN(len(genBlocks))] + "\n")
		genBlockBody(b, r, indent+1+r.IntN(3))
	case 5:
		b.WriteString(genComment(r) + "\n")
	case 6, 7:
		b.WriteString("\n")
		genMapping(b, r, indent+2+r.IntN(2)*2, depth+1, false)
	default:
		b.WriteString("\n")
		genSeq(b, r, indent+r.IntN(2)*2, depth+1)
	}
}

func genSeq(b *strings.Builder, r *rand.Rand, indent, depth int) {
	pad := strings.Repeat(" ", indent)
	for range 1 + r.IntN(3) {
		b.WriteString(pad + "-")
		switch k := r.IntN(9); {
		case k < 3:
			b.WriteString(" " + genScalar(r) + genComment(r) + "\n")
		case k == 3:
			b.WriteString(" " + genFlows[r.IntN(len(genFlows))] + "\n")
		case k == 4:
			b.WriteString(" " + genBlocks[r.IntN(len(genBlocks))] + "\n")
			genBlockBody(b, r, indent+1+r.IntN(3))
		case k == 5 && depth < 4:
			b.WriteString(" ")
			genSeq(b, r, indent+2, depth+1)
		case k == 6:
			b.WriteString("\n")
		default:
			b.WriteString(strings.Repeat(" ", 1+r.IntN(2)))
			genMapping(b, r, indent+1+strings.Count(b.String()[strings.LastIndexByte(b.String(), '-')+1:], " "), depth+1, true)
		}
	}
}

// genBlockBody writes the lines of a block scalar, at about indent.
func genBlockBody(b *strings.Builder, r *rand.Rand, indent int) {
	for range r.IntN(5) {
		switch r.IntN(6) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString(strings.Repeat(" ", r.IntN(indent+3)) + "\n")
		case 2:
			b.WriteString(strings.Repeat(" ", indent+1+r.IntN(2)) + "more " + genScalar(r) + "\n")
		default:
			b.WriteString(strings.Repeat(" ", indent) + genScalar(r) + genComment(r) + "\n")
		}
	}
}

// FuzzDigitWord holds yamltree.DigitString and yamltree.DigitWord to yaml.v3: a plain
// scalar either calls a string is one yaml.v3 resolves to a string.
func FuzzDigitWord(f *testing.F) {
	for _, s := range genScalars {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !yamltree.DigitString([]byte(v)) && !yamltree.DigitWord([]byte(v)) {
			return
		}
		if tag := (&yaml.Node{Kind: yaml.ScalarNode, Value: v}).ShortTag(); tag != "!!str" {
			t.Errorf("%q: yaml.v3 resolves it as %s", v, tag)
		}
	})
}
