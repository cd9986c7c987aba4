package loader

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/loader/internal/fastyaml"
	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/stream"
)

// listChunks compares, for each document of data, the List read in
// chunks of chunk bytes (fastyaml.ReadList) with the document read whole by the
// fast path, and the stream read with and without cutting Lists
// (parseDocs). It returns how many documents were read in chunks.
func listChunks(t *testing.T, data []byte, chunk int) (cut int) {
	t.Helper()
	docs := stream.Documents(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	for i, d := range docs {
		list := fastyaml.ReadList(d, chunk, true, nil)
		if list == nil {
			continue
		}
		cut++
		got := &Result{}
		addFast(got, "f.yaml", i, d, list)
		whole := fastyaml.NewParser(nil, true, 0)
		if !whole.Parse(d.Data) {
			t.Fatalf("chunk %d: document %d %q: read in chunks, but the fast path gives up on it whole", chunk, i, d.Data)
		}
		want := &Result{}
		addFast(want, "f.yaml", i, d, whole.Read(d))
		if diff := sameBytes(got, want); diff != "" {
			t.Fatalf("chunk %d: document %d %q: %s", chunk, i, d.Data, diff)
		}
	}
	got, want := &Result{}, &Result{}
	parseDocs(got, "f.yaml", docs, 0, true, chunk, nil)
	parseDocs(want, "f.yaml", docs, 0, true, 0, nil)
	if diff := sameBytes(got, want); diff != "" {
		t.Fatalf("chunk %d: stream %q: %s", chunk, data, diff)
	}
	return cut
}

// genList writes a List document as kubectl writes one, with the
// variations a hand-written or edited one may have: entries at column 0
// or 2, blank and comment lines anywhere, block scalars ending items,
// items that are not objects, keys after the items, and lines that end
// the sequence early or break it.
func genList(r *rand.Rand) string {
	var b strings.Builder
	kind := []string{"List", "NodeList", "PodList", "ConfigMap", "List"}[r.IntN(5)]
	b.WriteString("apiVersion: v1\n")
	kindFirst := r.IntN(2) == 0
	if kindFirst {
		b.WriteString("kind: " + kind + "\n")
	}
	b.WriteString("items:" + []string{"", " # c", "  ", ""}[r.IntN(4)] + "\n")
	col := r.IntN(3) / 2 * 2 // 0 twice as often as 2, as kubectl writes them
	pad := strings.Repeat(" ", col)
	risky := r.IntN(2) == 0 // else every entry is a Node
	for range 1 + r.IntN(12) {
		switch r.IntN(10) {
		case 0:
			b.WriteString(strings.Repeat(" ", r.IntN(5)) + "# between\n")
		case 1:
			b.WriteString(strings.Repeat(" ", r.IntN(3)) + "\n")
		}
		k := r.IntN(30)
		if !risky {
			k = 10
		}
		switch {
		case k == 0:
			b.WriteString(pad + "- " + genScalar(r) + genComment(r) + "\n")
		case k == 1:
			b.WriteString(pad + "- " + genFlows[r.IntN(len(genFlows))] + "\n")
		case k == 2:
			b.WriteString(pad + "- ")
			genSeq(&b, r, col+2, 1)
		case k == 3:
			b.WriteString(pad + "- " + genBlocks[r.IntN(len(genBlocks))] + "\n")
			genBlockBody(&b, r, col+1+r.IntN(3))
		case k == 4: // a line at the entries' column that is not one
			b.WriteString(pad + genKeys[r.IntN(len(genKeys))] + ": " + genScalar(r) + "\n")
		case k == 5: // an entry one column off
			b.WriteString(pad + " - a: b\n")
		case k == 6:
			b.WriteString(pad + "-\n" + pad + "  a: b\n")
		case k < 10: // anything genMapping makes (the fast path gives up on many)
			b.WriteString(pad + "- ")
			genMapping(&b, r, col+2, 1, true)
		default: // a Node as kubectl writes one, with a generated value here and there
			scalar := func() string {
				if r.IntN(8) == 0 {
					return genScalar(r)
				}
				return "v"
			}
			b.WriteString(pad + "- ")
			if r.IntN(4) > 0 {
				b.WriteString("apiVersion: v1\n" + pad + "  ")
			}
			if r.IntN(4) > 0 {
				b.WriteString("kind: Node\n" + pad + "  ")
			}
			b.WriteString("metadata:\n" + pad + "    name: n" + scalar() + "\n")
			b.WriteString(pad + "    labels:\n" + pad + "      pool: " + scalar() + "\n" + pad + "      zone: z\n")
			b.WriteString(pad + "  spec:\n" + pad + "    taints:\n" + pad + "    - key: k\n" + pad + "      value: " + genScalar(r) + "\n" + pad + "      effect: NoSchedule\n")
			if r.IntN(3) == 0 {
				b.WriteString(pad + "    unschedulable: true\n")
			}
			b.WriteString(pad + "  status:\n" + pad + "    allocatable: {cpu: 3920m, pods: \"58\"}\n")
			if r.IntN(6) == 0 {
				b.WriteString(pad + "    x:")
				genValue(&b, r, col+4, 2)
			}
			if r.IntN(4) == 0 {
				b.WriteString(pad + "    z: " + genBlocks[r.IntN(len(genBlocks))] + "\n")
				genBlockBody(&b, r, col+5+r.IntN(2))
			}
		}
	}
	if r.IntN(8) == 0 {
		b.WriteString("# after the items\n\n")
	}
	if !kindFirst {
		b.WriteString("kind: " + kind + "\n")
	}
	if r.IntN(2) == 0 {
		b.WriteString("metadata:\n  resourceVersion: \"\"\n")
	}
	return b.String()
}

// FuzzListChunks holds a long List read in chunks on every core to the
// List read whole: the same objects, JSON, marks, errors and skipped
// items, and no List read in chunks that the fast path would not read
// whole (it goes to yaml.v3 then).
func FuzzListChunks(f *testing.F) {
	seedFromTestdata(f)
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(19, 5))
	for range 20 {
		f.Add([]byte(genList(r)))
	}
	dir := f.TempDir()
	if err := benchgen.Write(dir, benchgen.Spec{Docs: 2, Files: 1, Nodes: 4, Pools: 2, Seed: 3, Realistic: true}); err == nil {
		seedFrom(f, dir)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > input.MaxFileSize || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		for _, chunk := range []int{1, 5, 120} {
			listChunks(t, data, chunk)
		}
	})
}

// TestListChunks compares chunked and whole Lists on generated Lists and
// on a realistic node inventory, which must be read in chunks at the
// default chunk size.
func TestListChunks(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	r := rand.New(rand.NewPCG(19, 18))
	cut := 0
	for range n {
		data := []byte(genList(r))
		for _, chunk := range []int{1, 16, 64} {
			cut += listChunks(t, data, chunk)
		}
	}
	t.Logf("%d of %d generated Lists read in chunks", cut, 3*n)
	if cut < n/8 {
		t.Errorf("only %d of %d generated Lists read in chunks", cut, 3*n)
	}

	data := realisticInventory(t)
	if len(data) < 4*fastyaml.ListChunk {
		t.Fatalf("the inventory is %d bytes, too short to be cut", len(data))
	}
	for _, chunk := range []int{fastyaml.ListChunk, 4096} {
		if listChunks(t, data, chunk) != 1 {
			t.Errorf("a realistic inventory of %d bytes is not read in chunks of %d bytes", len(data), chunk)
		}
	}
	// And through Parse, which every file goes through.
	got, want := Parse("nodes.yaml", data), parseStream("nodes.yaml", data, false)
	if diff := samePaths(got, want, 50); diff != "" {
		t.Error(diff)
	}
	if len(got.Objects) != 400 {
		t.Errorf("%d objects; want 400", len(got.Objects))
	}
}

// realisticInventory is the node inventory of benchgen's realistic
// corpus, 400 nodes in 5 pools: one kubectl get nodes -o yaml List.
func realisticInventory(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := benchgen.Write(dir, benchgen.Spec{Docs: 2, Files: 1, Nodes: 400, Pools: 5, Seed: 1, Realistic: true}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cluster", "nodes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
