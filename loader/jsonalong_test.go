package loader

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestJSONFieldsAlong holds JSONFieldsAlong to JSONFields of each object
// WalkJSON finds along the path: on every object of the fixtures, along
// the paths to each kind's pod spec and others, and on objects with
// duplicate and escaped keys and non-object values on the way.
func TestJSONFieldsAlong(t *testing.T) {
	var datas [][]byte
	_ = filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 || !isManifestName(d.Name()) {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			for _, o := range Parse(p, data).Objects {
				if o.json != nil {
					datas = append(datas, o.json)
				}
			}
		}
		return nil
	})
	datas = append(datas,
		[]byte(`{"a":{"b":1},"a":{"c":{"d":[1,{"e":2}]}},"x":"}"}`),
		[]byte(`{"a":null,"a":{"b":{}}}`),
		[]byte(`{"\u0061":{"b":{"c":"d"}},"z":1}`),
		[]byte(`{"a":[{"b":1}],"b":{"a":{}}}`),
		[]byte(`{}`), []byte(`[]`), []byte(`"s"`), []byte(`{"a":{}}`),
	)
	paths := [][]string{nil, {"spec"}, {"spec", "template", "spec"}, {"spec", "jobTemplate", "spec", "template", "spec"}, {"template", "spec"},
		{"metadata"}, {"metadata", "labels"}, {"a"}, {"a", "b"}, {"a", "c", "d"}, {"b", "a"}, {"absent", "x"}}
	checked := 0
	var reused [][]JSONField // JSONFieldsAlongIn's storage, from call to call
	for _, data := range datas {
		for _, path := range paths {
			got := JSONFieldsAlong(data, path)
			reused = JSONFieldsAlongIn(reused, data, path, nil)
			if g, r := fmt.Sprintf("%q", got), fmt.Sprintf("%q", reused); g != r {
				t.Fatalf("JSONFieldsAlongIn(%s, %q) in used storage:\n%s\nwant\n%s", data, path, r, g)
			}
			// The places of the last object's members known, from a pass
			// over the same bytes; and over a copy of them, which are not
			// taken (a place in a copy says nothing about these bytes).
			last := data
			for k := range path {
				steps := make([]any, k+1)
				for i := range steps {
					steps[i] = path[i]
				}
				if v, found, _ := WalkJSON(data, steps...); found {
					last = v
				}
			}
			var members []KnownMember
			for _, f := range JSONFields(last, nil) {
				var name string
				if err := json.Unmarshal(f.Key, &name); err != nil {
					t.Fatal(err)
				}
				sp := SpanOf(last, f.Value)
				if sp == (Span{}) {
					t.Fatalf("SpanOf(%s, %s): not found", last, f.Value)
				}
				members = append(members, KnownMember{name, sp})
			}
			copied := append([]byte(nil), last...)
			for _, k := range []*Known{{At: &last[0], Members: members}, {At: &copied[0], Members: members}} {
				with := JSONFieldsAlongIn(nil, data, path, k)
				if g, r := fmt.Sprintf("%q", got), fmt.Sprintf("%q", with); g != r {
					t.Fatalf("JSONFieldsAlongIn(%s, %q, %v):\n%s\nwant\n%s", data, path, k.Members, r, g)
				}
			}
			var want [][]JSONField
			if fields := JSONFields(data, nil); len(data) > 0 && data[0] == '{' {
				want = append(want, fields)
				for k := 1; k <= len(path); k++ {
					steps := make([]any, k)
					for i := range steps {
						steps[i] = path[i]
					}
					v, found, _ := WalkJSON(data, steps...)
					if !found || len(v) == 0 || v[0] != '{' {
						break
					}
					want = append(want, JSONFields(v, nil))
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("JSONFieldsAlong(%s, %q):\n%q\nwant\n%q", data, path, got, want)
			}
			checked++
		}
	}
	if len(datas) < 100 {
		t.Errorf("only %d objects", len(datas))
	}
}
