package jsonscan

import (
	"testing"
)

// TestElemsFields: the members and elements listed are the values
// Walk finds one by one.
func TestElemsFields(t *testing.T) {
	data := []byte(`{"a":[1,"x,]",{"b":[2,3]},[],null],"c":{},"d\u0065":"e"}`)
	fields := Fields(data, nil)
	if len(fields) != 3 || !fields[2].Is("de") || string(fields[1].Value) != "{}" {
		t.Fatalf("fields %q", fields)
	}
	elems := Elems(fields[0].Value, nil)
	if len(elems) != 5 {
		t.Fatalf("elems %q", elems)
	}
	for i, e := range elems {
		if want, _, _ := Walk(data, "a", i); string(e) != string(want) {
			t.Errorf("elem %d = %s, want %s", i, e, want)
		}
	}
	if n := len(Elems([]byte(`[]`), nil)) + len(Elems([]byte(`{"a":1}`), nil)); n != 0 {
		t.Errorf("%d elems of an empty array and an object", n)
	}
}

// skipValueByByte is skipValue as it was before strings were skipped
// with bytes.IndexByte: one byte at a time, a backslash skipping the next.
func skipValueByByte(data []byte, i int) (end, n int) {
	if i >= len(data) {
		return len(data), 0
	}
	switch data[i] {
	case '"':
		for i++; i < len(data); i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return i + 1, 0
			}
		}
		return len(data), 0
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i, _ = skipValueByByte(data, i)
				i--
			case ',':
				n++
			case '{', '[':
				depth++
				if i+1 < len(data) && data[i+1] != '}' && data[i+1] != ']' {
					n++
				}
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, n
				}
			}
		}
		return len(data), n
	}
	for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' {
		i++
	}
	return i, 0
}

// FuzzSkipValue holds skipValue to the byte-by-byte scan on any bytes,
// JSON or not, from any start.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`"a\"b",1`, `{"a":"x\\","b":[1,"\\\"",{}]}`, `["\\\\\"",""]`, `"\`, `{"k":"v"`, `[{"a":"b\u00e9"},[],{}]`, `tru,e`} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, i int) {
		if i < 0 || i > len(data) {
			return
		}
		e1, n1 := SkipCounting(data, i)
		e2, n2 := skipValueByByte(data, i)
		if e1 != e2 || n1 != n2 {
			t.Fatalf("SkipCounting(%q, %d) = %d, %d; byte by byte %d, %d", data, i, e1, n1, e2, n2)
		}
	})
}

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want []Step
	}{
		{"", nil},
		{"spec", []Step{{Key: "spec", Index: -1}}},
		{"spec.template.spec.tolerations[0].value", []Step{
			{Key: "spec", Index: -1}, {Key: "template", Index: -1}, {Key: "spec", Index: -1},
			{Key: "tolerations", Index: -1}, {Index: 0}, {Key: "value", Index: -1},
		}},
		{"metadata.labels[app.kubernetes.io/name]", []Step{
			{Key: "metadata", Index: -1}, {Key: "labels", Index: -1}, {Key: "app.kubernetes.io/name", Index: -1},
		}},
		{"spec.taints[12]", []Step{{Key: "spec", Index: -1}, {Key: "taints", Index: -1}, {Index: 12}}},
		{"a[01]", []Step{{Key: "a", Index: -1}, {Key: "01", Index: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePath(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("step %d: got %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
	if _, err := ParsePath("a[0"); err == nil {
		t.Error("unclosed bracket: want an error")
	}
}
