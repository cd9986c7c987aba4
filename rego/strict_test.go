package rego

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestEmbeddedStrict compiles the embedded policies alone with every
// compiler check and strict mode, which a run skips for them (see
// compile), and checks that both ways give the same rules, each
// reading the same parts of the input, with the same deny rule (the fast
// way takes it from the parsed modules, before compiling).
func TestEmbeddedStrict(t *testing.T) {
	load := func(fast bool) map[string][5]any {
		srcs, err := embeddedSources()
		if err != nil {
			t.Fatal(err)
		}
		e, rs, err := compile(context.Background(), srcs, fast)
		if err == nil {
			err = e.wait() // the fast way compiles in the background
		}
		if err != nil {
			t.Fatalf("fast=%v: %v", fast, err)
		}
		out := map[string][5]any{}
		for _, r := range rs {
			pr := e.byID[r.ID]
			out[r.ID] = [5]any{pr.usesFacts, pr.memo, fmt.Sprint(pr.reads), pr.query.String(), pr.where}
		}
		return out
	}
	full, fast := load(false), load(true)
	if len(full) == 0 || !reflect.DeepEqual(full, fast) {
		t.Errorf("strict compile:\n%v\nfast compile:\n%v", full, fast)
	}
}
