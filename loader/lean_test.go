package loader

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/taintlint/taintlint/loader/internal/fastyaml"
	"github.com/taintlint/taintlint/loader/internal/input"
	"github.com/taintlint/taintlint/loader/internal/stream"
	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/internal/benchgen"
	"github.com/taintlint/taintlint/loader/jsonscan"
)

// testLean reads Nodes lean as the node inventory does (k8s.NodeLean),
// or keeps whole top-level members too.
func testLean(whole bool) *Lean {
	keep := []string{"metadata.labels", "metadata.annotations", "spec.taints", "spec.unschedulable", "status.allocatable"}
	if whole {
		keep = []string{"metadata", "spec", "status.allocatable"}
	}
	return &Lean{APIVersion: "v1", Kind: "Node", Schema: jsonscan.SchemaOf(reflect.TypeFor[v1.Node]()), Keep: keep}
}

// leanDiff compares data read with lean (cut in chunks of chunk bytes, 0
// for none) with data read without: the same objects, errors and skipped
// items; a lean item's whole JSON and marks, made when asked for, the same
// bytes; its kept members those of the whole JSON; its every value of the
// type lean's Schema wants (CheckJSON finds none that is not). It returns
// how many items were read lean.
func leanDiff(data []byte, chunk int, lean *Lean) (n int, diff string) {
	docs := stream.Documents(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	got, want := &Result{}, &Result{}
	parseDocs(got, "f.yaml", docs, 0, true, chunk, lean)
	parseDocs(want, "f.yaml", docs, 0, true, chunk, nil)
	// Ask in any order, from two goroutines: the items of a group are
	// made together.
	var wg sync.WaitGroup
	for _, rev := range []bool{false, true} {
		wg.Go(func() {
			for i := range got.Objects {
				if rev {
					i = len(got.Objects) - 1 - i
				}
				_, _ = got.Objects[i].form()
			}
		})
	}
	wg.Wait()
	if diff := sameResult(got, want); diff != "" {
		return 0, diff
	}
	for i, g := range got.Objects {
		w := want.Objects[i]
		j, m := g.form()
		wj, wm := w.form()
		if g.File != w.File || g.Doc != w.Doc || g.Item != w.Item || !bytes.Equal(j, wj) || !bytes.Equal(m, wm) {
			return n, fmt.Sprintf("object %d (%s %s): JSON or marks differ:\n%s\nwant\n%s", i, g.Kind, g.Name, j, wj)
		}
		if _, lean := g.src.(*leanBacking); !lean {
			continue
		}
		n++
		if errs := jsonscan.Check(wj, lean.Schema, "", jsonscan.FieldPath{}); len(errs) > 0 {
			return n, fmt.Sprintf("object %d read lean, but %s: %s", i, errs[0].Path, errs[0].Msg)
		}
		part, ok := g.LeanJSON(lean.Schema)
		if keep := keptJSON(wj, lean.Keep, ""); !ok || !bytes.Equal(part, keep) {
			return n, fmt.Sprintf("object %d: kept members\n%s\nwant\n%s", i, part, keep)
		}
		if _, ok := g.LeanJSON(jsonscan.SchemaOf(reflect.TypeFor[v1.Node]())); ok {
			return n, fmt.Sprintf("object %d: kept members given for another Schema", i)
		}
	}
	return n, ""
}

// keptJSON is the JSON object data with the members keep names below
// prefix, read from the JSON, as Lean says.
func keptJSON(data []byte, keep []string, prefix string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range jsonscan.Fields(data, nil) {
		name := f.Name()
		whole, some := false, false
		for _, k := range keep {
			if rest, ok := strings.CutPrefix(k, prefix); ok {
				whole = whole || rest == name
				some = some || strings.HasPrefix(rest, name+".")
			}
		}
		if !whole && !some {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(f.Key)
		b.WriteByte(':')
		if !whole && len(f.Value) > 0 && f.Value[0] == '{' {
			b.Write(keptJSON(f.Value, keep, prefix+name+"."))
		} else {
			b.Write(f.Value)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// TestLean holds Nodes read lean to the same Nodes read whole, on
// generated Lists (Nodes with generated values here and there) and a
// realistic inventory, whose every Node must be read lean.
func TestLean(t *testing.T) {
	for _, whole := range []bool{false, true} {
		testLeanWith(t, testLean(whole))
	}
}

func testLeanWith(t *testing.T, lean *Lean) {
	n := 500
	if testing.Short() {
		n = 100
	}
	r := rand.New(rand.NewPCG(20, 1))
	total := 0
	for range n {
		data := []byte(genList(r))
		for _, chunk := range []int{0, 1, 64} {
			got, diff := leanDiff(data, chunk, lean)
			if diff != "" {
				t.Fatalf("chunk %d: %q: %s", chunk, data, diff)
			}
			total += got
		}
	}
	if total < n/4 {
		t.Errorf("only %d generated Nodes read lean", total)
	}

	data := realisticInventory(t)
	for _, chunk := range []int{0, fastyaml.ListChunk} {
		got, diff := leanDiff(data, chunk, lean)
		if diff != "" {
			t.Fatalf("chunk %d: %s", chunk, diff)
		}
		if got != 400 {
			t.Errorf("chunk %d: %d of 400 realistic Nodes read lean", chunk, got)
		}
	}
	// A lean item's positions are those of the item read whole.
	got, want := ParseLean("nodes.yaml", data, lean), Parse("nodes.yaml", data)
	for i, path := range []string{"", "metadata.labels[pool]", "status.images[1].names[0]", "status.nodeInfo.bootID", "spec.taints[0].value", "status.nope"} {
		k := (i * 97) % len(got.Objects)
		gp, ge := got.Objects[k].Locate(path)
		wp, we := want.Objects[k].Locate(path)
		if gp != wp || ge != we {
			t.Errorf("object %d: %s at %v (%v); want %v (%v)", k, path, gp, ge, wp, we)
		}
	}
}

// FuzzLean holds List items read lean to the same items read whole
// (leanDiff), whole and in chunks of 1 and 120 bytes.
func FuzzLean(f *testing.F) {
	seedFromTestdata(f)
	r := rand.New(rand.NewPCG(20, 2))
	for range 20 {
		f.Add([]byte(genList(r)))
	}
	f.Add([]byte("kind: NodeList\napiVersion: v1\nitems:\n- metadata: {name: a, uid: 6f1c0000-0d1e}\n  status: {images: [{sizeBytes: 1e3}], allocatable: {cpu: 3920m}, capacity: {pods: 0x10}}\n- metadata: {name: b}\n  status: {conditions: [{lastHeartbeatTime: 2024-01-01T00:00:00Z}], daemonEndpoints: {kubeletEndpoint: {Port: \"1\"}}}\n"))
	dir := f.TempDir()
	if err := benchgen.Write(dir, benchgen.Spec{Docs: 2, Files: 1, Nodes: 4, Pools: 2, Seed: 3, Realistic: true}); err == nil {
		seedFrom(f, dir)
	}
	leans := []*Lean{testLean(false), testLean(true)}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > input.MaxFileSize || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		for i, chunk := range []int{0, 1, 120} {
			if _, diff := leanDiff(data, chunk, leans[i%2]); diff != "" {
				t.Fatalf("chunk %d: %q: %s", chunk, data, diff)
			}
		}
	})
}
