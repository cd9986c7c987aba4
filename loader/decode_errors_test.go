package loader

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/taintlint/taintlint/loader/jsonscan"
)

// TestDecodeAllErrors: Decode reports every field of the wrong type, and
// still decodes the rest.
func TestDecodeAllErrors(t *testing.T) {
	src := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: high\n  tolerations:\n  - key: a\n    value: 1\n  - key: b\n    tolerationSeconds: \"10\"\n  nodeSelector: {disk: ssd}\n"
	r := Parse("p.yaml", []byte(src))
	var spec v1.PodSpec
	err := r.Objects[0].Decode("spec", &spec)
	var all jsonscan.DecodeErrors
	if !asDecodeErrors(err, &all) || len(all) != 3 {
		t.Fatalf("err = %v, want three errors", err)
	}
	for i, want := range []string{"spec.priority", "spec.tolerations[0].value", "spec.tolerations[1].tolerationSeconds"} {
		if all[i].Path != want {
			t.Errorf("error %d at %q, want %q", i, all[i].Path, want)
		}
	}
	if spec.NodeSelector["disk"] != "ssd" || len(spec.Tolerations) != 2 || spec.Tolerations[1].Key != "b" {
		t.Errorf("the rest was not decoded: %+v", spec)
	}
	if pos, _ := r.Objects[0].LocateValue("spec.priority"); pos.Line != 5 || pos.Column != 13 {
		t.Errorf("value of spec.priority at %v, want 5:13", pos)
	}
	if pos, _ := r.Objects[0].Locate("spec.priority"); pos.Line != 5 || pos.Column != 3 {
		t.Errorf("key of spec.priority at %v, want 5:3", pos)
	}
}

func asDecodeErrors(err error, all *jsonscan.DecodeErrors) bool {
	e, ok := err.(jsonscan.DecodeErrors)
	*all = e
	return ok
}
