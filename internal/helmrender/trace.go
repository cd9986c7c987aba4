package helmrender

import (
	"encoding/json"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"text/template"

	"github.com/taintlint/taintlint/loader/jsonscan"
)

// A value a template prints whole from .Values (toYaml .Values.x, through
// with, range, index or default, which hand the same map or list on) is
// recorded with its path in the values, so that a rendered field can be
// located at that path's line in the values file it came from rather than
// at the first text that reads the same (two components with equal
// tolerations). Maps and lists keep their identity through the template
// engine; a value the template built itself (dict, merge, deepCopy) is
// not in the values and is not recorded.

// ValueUse is one value of .Values a template printed whole.
type ValueUse struct {
	// At is where the printed text starts in the template's output, at
	// the latest: the output's length when the value was printed (text
	// printed by an include or tpl lands at or after it).
	At int `json:"at"`
	// Path is the value's path in the chart's values (a subchart's values
	// under the subchart's name or alias).
	Path []jsonscan.Step `json:"path"`
	// Sum is a hash of the value's JSON (object keys sorted), to tell it
	// from a neighbouring value that printed differently.
	Sum uint64 `json:"sum"`
}

// SumJSON is the hash ValueUse.Sum holds, of a value's JSON as
// encoding/json writes it (keys sorted).
func SumJSON(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// maxTraced bounds the values indexed and the uses recorded per render.
const maxTraced = 1 << 16

// tracer records the values printed by the template being executed.
type tracer struct {
	paths map[uintptr][]jsonscan.Step // a map's or list's identity -> its path
	out   *strings.Builder            // the executing template's output
	uses  []ValueUse
	count int
}

// newTracer indexes every map and non-empty list of vals by identity,
// breadth first in key order, so that a value reachable twice has its
// shortest path, the same in every run.
func newTracer(vals Values) *tracer {
	tr := &tracer{paths: map[uintptr][]jsonscan.Step{}}
	type item struct {
		v    any
		path []jsonscan.Step
	}
	queue := []item{{map[string]any(vals), nil}}
	for len(queue) > 0 && len(tr.paths) < maxTraced {
		it := queue[0]
		queue = queue[1:]
		id, ok := identity(it.v)
		if !ok {
			continue
		}
		if _, seen := tr.paths[id]; seen {
			continue
		}
		tr.paths[id] = it.path
		switch v := it.v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(mapKeys(v)) {
				queue = append(queue, item{v[k], appendStep(it.path, jsonscan.Step{Key: k, Index: -1})})
			}
		case Values:
			for _, k := range slices.Sorted(mapKeys(v)) {
				queue = append(queue, item{v[k], appendStep(it.path, jsonscan.Step{Key: k, Index: -1})})
			}
		case []any:
			for i, e := range v {
				queue = append(queue, item{e, appendStep(it.path, jsonscan.Step{Index: i})})
			}
		}
	}
	return tr
}

func appendStep(p []jsonscan.Step, s jsonscan.Step) []jsonscan.Step {
	return append(slices.Clip(p), s)
}

func mapKeys[M ~map[string]any](m M) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// identity is a non-empty map's or list's address.
func identity(v any) (uintptr, bool) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 0 {
			return reflect.ValueOf(v).Pointer(), true
		}
	case Values:
		if len(v) > 0 {
			return reflect.ValueOf(v).Pointer(), true
		}
	case []any:
		if len(v) > 0 {
			return reflect.ValueOf(v).Pointer(), true
		}
	}
	return 0, false
}

// note records v when it is a value of .Values.
func (tr *tracer) note(v any) {
	if tr == nil || tr.out == nil || tr.count >= maxTraced {
		return
	}
	id, ok := identity(v)
	if !ok {
		return
	}
	p, ok := tr.paths[id]
	if !ok {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	tr.count++
	tr.uses = append(tr.uses, ValueUse{At: tr.out.Len(), Path: p, Sum: SumJSON(b)})
}

// wrap makes the printing functions of f record what they print.
func (tr *tracer) wrap(f template.FuncMap) {
	for _, name := range []string{"toYaml", "toYamlPretty", "toJson", "toPrettyJson", "toRawJson", "toToml"} {
		switch fn := f[name].(type) {
		case func(any) string:
			f[name] = func(v any) string { tr.note(v); return fn(v) }
		case func(any) (string, error):
			f[name] = func(v any) (string, error) { tr.note(v); return fn(v) }
		}
	}
}

// take returns the uses recorded for the template just executed, their
// offsets moved to the output once "<no value>" is removed from it.
func (tr *tracer) take(raw string) []ValueUse {
	uses := tr.uses
	tr.uses = nil
	if !strings.Contains(raw, "<no value>") {
		return uses
	}
	for i := range uses {
		uses[i].At -= len("<no value>") * strings.Count(raw[:min(uses[i].At, len(raw))], "<no value>")
	}
	return uses
}
