package loader

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// kubectlJSON is a document as kubectl reads it: sigs.k8s.io/yaml's
// YAMLToJSON (goyaml.v2, YAML 1.1), decoded for comparison.
func kubectlJSON(t *testing.T, doc []byte) (any, bool) {
	t.Helper()
	j, err := sigsyaml.YAMLToJSON(doc)
	if err != nil {
		return nil, false
	}
	return decoded(t, j), true
}

// decoded is the JSON j decoded, for comparison.
func decoded(t *testing.T, j []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", j, err)
	}
	return v
}

// ourJSON is the object taintlint reads from the one-object document doc
// (keys given twice are findings of their own, and the object is read).
func ourJSON(t *testing.T, doc []byte) (any, bool) {
	t.Helper()
	r := parseStream("m.yaml", doc, false)
	if len(r.Objects) != 1 {
		return nil, false
	}
	j, err := r.Objects[0].JSON()
	if err != nil {
		return nil, false
	}
	return decoded(t, j), true
}

// TestMergeKeysAsKubectl: merge keys are applied as kubectl applies them
// (goyaml.v2): in order, so a merge after an explicit key overrides it,
// and of a sequence of merged mappings the earlier win. Each case is
// held to sigs.k8s.io/yaml itself, and the position of a merged field is
// where its value comes from.
func TestMergeKeysAsKubectl(t *testing.T) {
	head := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  tolerations:\n"
	for _, tc := range []struct {
		name, tol string
		wantKey   string // the toleration's key as kubectl reads it
		keyLine   int    // where Locate puts tolerations[0].key
	}{
		{"merge after explicit", "  - key: dedicated\n    operator: Equal\n    <<: {key: \"\", operator: Exists}\n", "", 9},
		{"merge before explicit", "  - <<: {key: \"\", operator: Exists}\n    key: dedicated\n    operator: Equal\n", "dedicated", 8},
		{"sequence of merges", "  - <<: [{key: first}, {key: second, operator: Exists}]\n", "first", 7},
		{"anchored merge after", "  - &base {key: base, operator: Exists}\n  - key: own\n    <<: *base\n", "base", 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := []byte(head + tc.tol)
			want, ok := kubectlJSON(t, doc)
			if !ok {
				t.Fatal("sigs.k8s.io/yaml refuses the case")
			}
			got, ok := ourJSON(t, doc)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("read as\n%v\nkubectl reads\n%v", got, want)
			}
			tols := want.(map[string]any)["spec"].(map[string]any)["tolerations"].([]any)
			last := tols[len(tols)-1].(map[string]any)
			if k, _ := last["key"].(string); k != tc.wantKey {
				t.Fatalf("kubectl reads key %q, the case says %q", k, tc.wantKey)
			}
			r := parseStream("m.yaml", doc, true)
			p, _ := r.Objects[0].Locate("spec.tolerations[" + itoa(len(tols)-1) + "].key")
			if p.Line != tc.keyLine {
				t.Errorf("key located at %v, want line %d", p, tc.keyLine)
			}
		})
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// FuzzMergeKeysAsKubectl holds the reading of mappings with merge keys,
// anchors and duplicate keys to sigs.k8s.io/yaml (what kubectl reads) on
// generated documents: spec.tolerations built from the fuzzer's choices.
func FuzzMergeKeysAsKubectl(f *testing.F) {
	f.Add(uint64(0x1234), uint8(3))
	f.Add(uint64(0xdeadbeef), uint8(5))
	keys := []string{"key", "operator", "value", "effect"}
	vals := []string{"a", "b", "\"\"", "Exists", "Equal", "NoSchedule"}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		next := func(m int) int {
			seed = seed*6364136223846793005 + 1442695040888963407
			return int(seed>>33) % m
		}
		var b bytes.Buffer
		b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  tolerations:\n")
		anchors := 0
		for e := 0; e < int(n%6)+1; e++ {
			b.WriteString("  - ")
			if next(3) == 0 {
				b.WriteString("&a" + itoa(anchors) + " ")
				anchors++
			}
			b.WriteString("{")
			for m := 0; m < next(5)+1; m++ {
				if m > 0 {
					b.WriteString(", ")
				}
				switch {
				case next(4) == 0 && anchors > 0:
					b.WriteString("<<: *a" + itoa(next(anchors)))
				case next(5) == 0:
					b.WriteString("<<: [{" + keys[next(4)] + ": " + vals[next(6)] + "}, {" + keys[next(4)] + ": " + vals[next(6)] + "}]")
				case next(4) == 0:
					b.WriteString("<<: {" + keys[next(4)] + ": " + vals[next(6)] + "}")
				default:
					b.WriteString(keys[next(4)] + ": " + vals[next(6)])
				}
			}
			b.WriteString("}\n")
		}
		doc := b.Bytes()
		want, wok := kubectlJSON(t, doc)
		got, gok := ourJSON(t, doc)
		if wok != gok {
			t.Fatalf("%s\nkubectl reads it: %v; taintlint: %v", doc, wok, gok)
		}
		if wok && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nread as\n%v\nkubectl reads\n%v", doc, got, want)
		}
	})
}
