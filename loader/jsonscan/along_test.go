package jsonscan_test

import (
	"encoding/json"
	"fmt"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/loader/jsonscan"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestJSONFieldsAlong holds jsonscan.FieldsAlong to jsonscan.Fields of each object
// jsonscan.Walk finds along the path: on every object of the fixtures, along
// the paths to each kind's pod spec and others, and on objects with
// duplicate and escaped keys and non-object values on the way.
func TestJSONFieldsAlong(t *testing.T) {
	var datas [][]byte
	_ = filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 || !manifestName(d.Name()) {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			for _, o := range loader.Parse(p, data).Objects {
				if j, err := o.JSON(); err == nil {
					datas = append(datas, j)
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
	var reused [][]jsonscan.Field // jsonscan.FieldsAlongIn's storage, from call to call
	for _, data := range datas {
		for _, path := range paths {
			got := jsonscan.FieldsAlong(data, path)
			reused = jsonscan.FieldsAlongIn(reused, data, path, nil)
			if g, r := fmt.Sprintf("%q", got), fmt.Sprintf("%q", reused); g != r {
				t.Fatalf("jsonscan.FieldsAlongIn(%s, %q) in used storage:\n%s\nwant\n%s", data, path, r, g)
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
				if v, found, _ := jsonscan.Walk(data, steps...); found {
					last = v
				}
			}
			var members []jsonscan.KnownMember
			for _, f := range jsonscan.Fields(last, nil) {
				var name string
				if err := json.Unmarshal(f.Key, &name); err != nil {
					t.Fatal(err)
				}
				sp := jsonscan.SpanOf(last, f.Value)
				if sp == (jsonscan.Span{}) {
					t.Fatalf("jsonscan.SpanOf(%s, %s): not found", last, f.Value)
				}
				members = append(members, jsonscan.KnownMember{name, sp})
			}
			copied := append([]byte(nil), last...)
			for _, k := range []*jsonscan.Known{{At: &last[0], Members: members}, {At: &copied[0], Members: members}} {
				with := jsonscan.FieldsAlongIn(nil, data, path, k)
				if g, r := fmt.Sprintf("%q", got), fmt.Sprintf("%q", with); g != r {
					t.Fatalf("jsonscan.FieldsAlongIn(%s, %q, %v):\n%s\nwant\n%s", data, path, k.Members, r, g)
				}
			}
			var want [][]jsonscan.Field
			if fields := jsonscan.Fields(data, nil); len(data) > 0 && data[0] == '{' {
				want = append(want, fields)
				for k := 1; k <= len(path); k++ {
					steps := make([]any, k)
					for i := range steps {
						steps[i] = path[i]
					}
					v, found, _ := jsonscan.Walk(data, steps...)
					if !found || len(v) == 0 || v[0] != '{' {
						break
					}
					want = append(want, jsonscan.Fields(v, nil))
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("jsonscan.FieldsAlong(%s, %q):\n%q\nwant\n%q", data, path, got, want)
			}
			checked++
		}
	}
	if len(datas) < 100 {
		t.Errorf("only %d objects", len(datas))
	}
}

func manifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
