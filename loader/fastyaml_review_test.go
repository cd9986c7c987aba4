package loader

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/taintlint/taintlint/loader/internal/fastyaml"
)

// reviewProbes are hand-written documents at the edges of the fast path:
// plain scalars yaml.v3 resolves specially, keys that are not strings,
// duplicates after resolution, block scalar corners, compact nesting,
// comments without a space, markers in block scalars, Lists, Unicode.
var reviewProbes = []string{
	"apiVersion: v1\nkind: Pod\na: 2001-12-14\nb: 2001-12-14 21:59:43.10 -5\nc: 2001-12-14T21:59:43Z\nd: 1_000\ne: 0o17\nf: 0x_1F\ng: 0b1_0\nh: .5\ni: +.inf\nj: -0\nk: +0\nl: -0.0\nm: 00\nn: 0.\no: 1e\np: 1e+3\nq: 1E3\nr: 0x\ns: 0o\nt: 0b\n",
	"apiVersion: v1\nkind: Pod\na: 123456789012345678\nb: 1234567890123456789\nc: 99999999999999999999999999999999\nd: -9223372036854775808\ne: -9223372036854775809\nf: 12345678901234567890123456789012345678901234567890.5\ng: 0000000000000000001\n",
	"apiVersion: v1\nkind: Pod\na: =\nb: <<<\nc: a<<\nd: '<<'\ne: \"<<\"\n",
	"apiVersion: v1\nkind: Pod\nx:\n  <<: {a: 1}\n",
	"apiVersion: v1\nkind: Pod\nx:\n  '<<': {a: 1}\n",
	"apiVersion: v1\nkind: Pod\n=: a\n",
	"apiVersion: v1\nkind: Pod\nx:\n  1: a\n  true: b\n  null: c\n  ~: d\n  1.5: e\n  0x1: f\n",
	"apiVersion: v1\nkind: Pod\nx:\n  1: a\n  01: b\n",
	"apiVersion: v1\nkind: Pod\nx:\n  0x1: a\n  1: b\n",
	"apiVersion: v1\nkind: Pod\nx:\n  a: 1\n  \"a\": 2\n",
	"apiVersion: v1\nkind: Pod\nx:\n  a: 1\n  'a': 2\n",
	"apiVersion: v1\nkind: Pod\nx:\n  true: 1\n  True: 2\n",
	"apiVersion: v1\nkind: Pod\nx:\n  ~: 1\n  null: 2\n",
	"apiVersion: v1\nkind: Pod\nx:\n  \"\\x41\": 1\n  A: 2\n",
	"apiVersion: v1\nkind: Pod\nkind: Node\n",
	"apiVersion: v1\n\"kind\": Pod\n",
	"apiVersion: v1\nkind: 'Pod'\nmetadata:\n  name: \"\"\n",
	"apiVersion: 1\nkind: true\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: ~\n  namespace: null\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: Null\n  namespace: NULL\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |2\n      x\n    y\n  b: |-2\n     z\n\n  c: |+\n    k\n\n\n  d: >-\n    a\n    # not a comment\n    b\n  # a comment\n  e: |\n    body\n  # trailing\n\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |\n    ---\n    ...\n    x\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |\n---\nkind: Pod\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |1\n   x\n  b: |9\n           x\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |-  # c\n    x\n  b: >+1\n    x\n  c: |10\n    x\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |\n\n\n\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: >\n    x\n\n      y\n    z\n",
	"apiVersion: v1\nkind: Pod\nx:\n-   a: 1\n    b: 2\n-  - c\n   - d: e\n     f: g\n- - - h\n",
	"apiVersion: v1\nkind: Pod\nx:\n - a: 1\n   b:\n   - c\n - d\n",
	"apiVersion: v1\nkind: Pod\nx:\n- a: 1\n b: 2\n",
	"apiVersion: v1\nkind: Pod\nx:\n- a: 1\n   b: 2\n",
	"apiVersion: v1\nkind: Pod\na: b#c\nd: e #f\ng: 'h'#i\nj: [k]#l\n",
	"apiVersion: v1\nkind: Pod\na:b\nc: d:e\nf: http://x:80/y\ng: a :b\n",
	"apiVersion: v1\nkind: Pod\na: b:\n",
	"apiVersion: v1\nkind: Pod\na: -b\nc: - d\n",
	"apiVersion: v1\nkind: Pod\na: ?b\nc: ? d\ne: :f\n",
	"apiVersion: v1\nkind: Pod\na: b\n...\n",
	"apiVersion: v1\nkind: Pod\na: b\n... # c\n",
	"apiVersion: v1\nkind: List\nitems:\n- 1\n- a\n- ~\n- [x]\n- kind: Pod\n- apiVersion: v1\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n",
	"apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n- kind: ''\n  metadata: {name: b}\n- apiVersion: v2\n  metadata: {name: c}\n- kind: Node\n",
	"apiVersion: v1\nkind: List\nitems: ~\n",
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Pod\n",
	"apiVersion: v1\nkind: XList\nitems: [{apiVersion: v1, kind: Pod}, {metadata: {name: q}}]\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: éü\n  labels: {ünï: cödé, \"😀\": [ä, 😀, 'ö'], x: \"é\"}\n  annotations:\n    😀😀: 😀 # é\n    é: - x\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {a: b, c: d}   \n  x: [ ]\n  y: { }\n  z: [a , b]\n",
	"apiVersion: v1\nkind: Pod\nx: {a: b: c}\n",
	"apiVersion: v1\nkind: Pod\nx: {a, b: c}\ny: [a: b]\n",
	"apiVersion: v1\nkind: Pod\nx: [\"a\" , 'b' ]\ny: {\"a\":b}\nz: {a:b}\n",
	"apiVersion: v1\nkind: Pod\nx: [a]]\n",
	"apiVersion: v1\nkind: Pod\nx: 'a' b\n",
	"apiVersion: v1\nkind: Pod\nx: \"a\\\n  b\"\n",
	"apiVersion: v1\nkind: Pod\n  x: 1\n",
	"apiVersion: v1\nkind: Pod\nx:\n    a: 1\n  b: 2\n",
	"apiVersion: v1\nkind: Pod\nx: 1\n y: 2\n",
	"apiVersion: v1\nkind: Pod\n- a\n",
	"apiVersion: v1\nkind: Pod\nx: |\n  a\n y: 1\n",
	"apiVersion: v1\nkind: Pod\nx: >\n a\ny: 1\n",
	"apiVersion: v1\nkind: Pod\nx: |-\ny: 1\n",
	"apiVersion: v1\nkind: Pod\nx: .\ny: ..\nz: +\nw: -.\nv: .e1\nu: 1.e1\n",
	"apiVersion: v1\nkind: Pod\nx: yes\ny: on\nz: Off\nw: n\nv: NO\n",
	"apiVersion: v1\nkind: Pod\nx: 0755\ny: 08\nz: 0o8\nw: 0b2\nv: 0xG\n",
	"apiVersion: v1\nkind: Pod\nx: +1_0\ny: -0x1\nz: +0b1\nw: -0o7\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |+\n    x\n\n\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  b: |+\n    y\n\n# c\n\n...\n# d\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  c: >+\n    z\n\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |+\n    x\n  \n   \n",
	"apiVersion: v1\nkind: Pod\na: \"\\e\\a\\v\\ \\b\\f\\r\\n\"\nb: \"\\u00E9\\xFF\"\n",
	"apiVersion: v1\nkind: Pod\na: \"\\ud800\"\n",
	"apiVersion: v1\nkind: Pod\na: \"\\U00110000\"\n",
	"apiVersion: v1\nkind: Pod\na: \"\\x4\"\n",
	"apiVersion: v1\nkind: Pod\na: \"\\q\"\n",
	"apiVersion: v1\nkind: Pod\na: \"x\\\"\n",
	"apiVersion: v1\nkind: Pod\na: 'x''\n",
	"apiVersion: v1\nkind: Pod\na: b\u00a0\nc: \u00a0d\n\u00a0e: f\n",
	"apiVersion: v1\nkind: Pod\na: |\nx\n",
	"apiVersion: v1\nkind: Pod\na: |\n  x\n    y\n z\n",
	"apiVersion: v1\nkind: Pod\na: |\n      \n    x\n",
	"apiVersion: v1\nkind: Pod\na: |\n    \n  x\n",
	"apiVersion: v1\nkind: Pod\na: |x\n  y\n",
	"apiVersion: v1\nkind: Pod\na: |#c\n  y\n",
	"apiVersion: v1\nkind: Pod\na: | #c\n  y\n",
	"apiVersion: v1\nkind: Pod\na: >\n  ---\n  b\n",
	"apiVersion: v1\nkind: Pod\na: b\n...x: 1\n",
	"apiVersion: v1\nkind: Pod\na: b\n---x: 1\n",
	"---   \napiVersion: v1\nkind: Pod\n",
	"--- |\n  x\n",
	"--- # c\n# d\napiVersion: v1\nkind: Pod\n",
	"apiVersion: v1\nkind: Pod\na#b: c\n'd#e': f\n",
	"apiVersion: v1\nkind: Pod\na: b #c: d\n",
	"apiVersion: v1\nkind: Pod\n\"a\" : b\n",
	"apiVersion: v1\nkind: Pod\n? a\n: b\n",
	"apiVersion: v1\nkind: Pod\na: [b, {c: d}, [e, {f: [g]}]] # x\n",
	"apiVersion: v1\nkind: Pod\na: {b: [c: d]}\n",
	"apiVersion: v1\nkind: Pod\na: [-b, - c]\n",
	"apiVersion: v1\nkind: Pod\na: [b, -]\n",
	"apiVersion: v1\nkind: Pod\na: {b: }\n",
	"apiVersion: v1\nkind: Pod\na: {b: ~, c: null, d: , e: ''}\n",
	"apiVersion: v1\nkind: Pod\na: [~, null, Null, '', \"\"]\n",
	"apiVersion: v1\nkind: List\nitems:\n-\n- apiVersion: v1\n  kind: Pod\n",
	"apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: é😀\n  - {apiVersion: v1, kind: Pod, metadata: {name: 'ü'}}\n",
	"apiVersion: v1\nkind: ConfigMap\ndata:\n  é😀x: |\n    😀😀\n  \"😀\": >\n    😀\n    é\n",
}

// longMappingProbes are mappings of more than 16 keys (checkKey's map)
// holding other such mappings, with a key given twice in the outer one
// after the inner one, or in the inner one.
func longMappingProbes() []string {
	keys := func(prefix, indent string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%s%d: v\n", indent, prefix, i)
		}
		return b.String()
	}
	flowKeys := func(prefix string, n int) string {
		var b []string
		for i := range n {
			b = append(b, fmt.Sprintf("%s%d: v", prefix, i))
		}
		return "{" + strings.Join(b, ", ") + "}"
	}
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
	outer := head + keys("k", "", 17)
	return []string{
		outer + "inner:\n" + keys("i", "  ", 17) + "k0: again\n",
		outer + "inner:\n" + keys("i", "  ", 17) + "k16: again\n",
		outer + "inner:\n" + keys("i", "  ", 17) + "i0: outer\n",
		outer + "inner: " + flowKeys("i", 17) + "\nk1: again\n",
		outer + "inner: " + flowKeys("i", 17) + "\ni1: outer\n",
		outer + "inner:\n" + keys("i", "  ", 17) + "  i3: again\nz: v\n",
		outer + "inner:\n- " + strings.TrimPrefix(keys("i", "  ", 17), "  ") + "k2: again\n",
		head + "inner: {" + strings.TrimPrefix(flowKeys("k", 17), "{")[:len(flowKeys("k", 17))-2] + ", x: " + flowKeys("i", 17) + ", k4: again}\n",
		head + "inner: " + flowKeys("k", 20) + "\n" + keys("k", "", 20),
	}
}

func TestFastYAMLReviewProbes(t *testing.T) {
	for i, s := range append(reviewProbes, longMappingProbes()...) {
		for _, doc := range []string{s, "---\n" + s, s + "---\n" + s, "# lead\n" + s} {
			if diff := samePaths(parseStream("f.yaml", []byte(doc), true), parseStream("f.yaml", []byte(doc), false), 300); diff != "" {
				t.Errorf("probe %d %q: %s", i, doc, diff)
			}
		}
	}
}

// TestFastYAMLReviewLarge: large and hostile inputs give what yaml.v3
// gives, without a panic; the times of both paths are logged, not
// asserted. The stream and List sizes are a tenth of the review's (50 MB,
// 20 MB) unless TAINTLINT_REVIEW_LARGE is set: the whole set takes over a
// minute on a loaded machine.
func TestFastYAMLReviewLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	scale := 10
	if os.Getenv("TAINTLINT_REVIEW_LARGE") != "" {
		scale = 1
	}
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n"
	var keys, flow, deepMap, many, list, longAfterBig strings.Builder
	keys.WriteString(head + "data:\n")
	for i := range 100000 {
		fmt.Fprintf(&keys, "  k%d: v%d\n", i, i)
	}
	flow.WriteString(head + "x: [")
	for i := 0; flow.Len() < 1<<20; i++ {
		fmt.Fprintf(&flow, "é%d, ", i)
	}
	flow.WriteString("z]\n")
	deepMap.WriteString(head + "x:\n")
	for i := range 1000 {
		fmt.Fprintf(&deepMap, "%sk:\n", strings.Repeat(" ", i+1))
	}
	for i := 0; many.Len() < 50<<20/scale; i++ {
		fmt.Fprintf(&many, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n  a: \"1\"\n", i)
	}
	list.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := 0; list.Len() < 20<<20/scale; i++ {
		fmt.Fprintf(&list, "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n%d\n  spec:\n    taints:\n    - {key: k, effect: NoSchedule}\n", i)
	}
	// One document of 100,000 keys, then many with 17-key mappings: the
	// key map of the first must not be walked for each of the others.
	longAfterBig.WriteString(keys.String())
	for i := range 20000 / scale {
		fmt.Fprintf(&longAfterBig, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n", i)
		for k := range 17 {
			fmt.Fprintf(&longAfterBig, "  k%d: v\n", k)
		}
	}
	for _, c := range []struct{ name, data string }{
		{"100000 keys", keys.String()},
		{"100000 keys, last a duplicate", keys.String() + "  k99999: again\n"},
		{"1 MB flow sequence of non-ASCII scalars", flow.String()},
		{"10000-deep compact sequences", head + "x:\n" + strings.Repeat("- ", 10000) + "a\n"},
		{"1000-deep mappings", deepMap.String()},
		{"10000-deep flow", head + "x: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n"},
		{"10000-deep flow mappings", head + "x: " + strings.Repeat("{a: ", 10000) + "b" + strings.Repeat("}", 10000) + "\n"},
		{"1 MB plain scalar", head + "x: " + strings.Repeat("ab c", 1<<18) + "\n"},
		{"1 MB double-quoted scalar with escapes", head + "x: \"" + strings.Repeat("\\u00e9\\x41é", 1<<17) + "\"\n"},
		{"1 MB plain key", head + strings.Repeat("k", 1<<20) + ": v\n"},
		{"1 MB line with no colon after a key", head + "x:\n  " + strings.Repeat("k", 1<<20) + "\n"},
		{"100000-key flow mapping", head + "x: {" + flowMap(100000) + "}\n"},
		{"100000-key flow mapping, last a duplicate", head + "x: {" + flowMap(100000) + ", k7: again}\n"},
		{"100000 compact mappings in a sequence", head + "x:\n" + strings.Repeat("- k: v\n  j: w\n", 100000)},
		{"small documents", many.String()},
		{"one List", list.String()},
		{"100000 keys, then documents of 17 keys", longAfterBig.String()},
	} {
		data := []byte(c.data)
		t0 := time.Now()
		fast := parseStream("f.yaml", data, true)
		t1 := time.Now()
		slow := parseStream("f.yaml", data, false)
		t2 := time.Now()
		if diff := sameBytes(fast, slow); diff != "" {
			t.Errorf("%s: %s", c.name, diff)
		}
		t.Logf("%s (%d bytes): fast path %v, yaml.v3 %v, %d objects, %d errors (compared in %v)", c.name, len(data), t1.Sub(t0), t2.Sub(t1), len(fast.Objects), len(fast.Errors), time.Since(t2))
	}
}

// TestFastYAMLReviewReach logs which probes the fast path reads itself, so
// that the probes are known to reach it and not only the fallback.
func TestFastYAMLReviewReach(t *testing.T) {
	read := 0
	for i, s := range reviewProbes {
		p := fastyaml.NewParser(nil, true, 0)
		if p.Parse([]byte(s)) {
			read++
			t.Logf("probe %d read by the fast path", i)
		}
	}
	t.Logf("the fast path read %d of %d probes", read, len(reviewProbes))
}

// sameBytes is samePaths for large results: the same objects and errors,
// and each object's JSON and position marks byte for byte (from which
// Locate answers alike; samePaths's Locate calls on an object of 100,000
// keys take tens of seconds).
func sameBytes(got, want *Result) string {
	if diff := sameResult(got, want); diff != "" {
		return diff
	}
	for i, g := range got.Objects {
		w := want.Objects[i]
		if g.File != w.File || !bytes.Equal(g.src.document().raw, w.src.document().raw) || g.src.document().keep != w.src.document().keep || (g.src.jsonErr() == nil) != (w.src.jsonErr() == nil) {
			return fmt.Sprintf("object %d: file %s keep %v; want %s keep %v", i, g.File, g.src.document().keep, w.File, w.src.document().keep)
		}
		if gj, gm := g.form(); !bytes.Equal(gj, formJSON(w)) || !bytes.Equal(gm, formMarks(w)) {
			return fmt.Sprintf("object %d (%s %s): JSON or marks differ", i, g.Kind, g.Name)
		}
	}
	return ""
}

// flowMap is the entries of a flow mapping of n keys.
func flowMap(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "k%d: v", i)
	}
	return b.String()
}
