package helmrender

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
)

// Values are a chart's values as templates see them (.Values). The type
// has the methods of Helm's chartutil.Values that a template can call.
type Values map[string]any

// globalKey is the values key every chart shares with its subcharts.
const globalKey = "global"

// AsMap is the values as a plain map, never nil.
func (v Values) AsMap() map[string]any {
	if len(v) == 0 {
		return map[string]any{}
	}
	return v
}

// YAML is the values as YAML.
func (v Values) YAML() (string, error) {
	b, err := yamlMarshal(v)
	return string(b), err
}

// Table is the table at a dotted path: as in Helm, the walk stops at the
// first step that is not a table, returning what it reached and an error.
func (v Values) Table(name string) (Values, error) {
	t := v
	for _, n := range strings.Split(name, ".") {
		next, ok := t[n]
		if !ok {
			return t, noTableError(n)
		}
		switch m := next.(type) {
		case map[string]any:
			t = m
		case Values:
			t = m
		default:
			return Values{}, noTableError(n)
		}
	}
	return t, nil
}

// PathValue is the non-table value at a dotted path.
func (v Values) PathValue(path string) (any, error) {
	if path == "" {
		return nil, fmt.Errorf("YAML path cannot be empty")
	}
	steps := strings.Split(path, ".")
	key := steps[len(steps)-1]
	t := v
	if len(steps) > 1 {
		var err error
		if t, err = v.Table(strings.Join(steps[:len(steps)-1], ".")); err != nil {
			return nil, noValueError(key)
		}
	}
	if x, ok := t[key]; ok && !isTable(x) {
		return x, nil
	}
	return nil, noValueError(key)
}

type noTableError string

func (e noTableError) Error() string { return fmt.Sprintf("%q is not a table", string(e)) }

type noValueError string

func (e noValueError) Error() string { return fmt.Sprintf("%q is not a value", string(e)) }

// isTable is Helm's notion of a table: a plain map, not a Values.
func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// deepCopy copies the maps and slices of a values tree (what Helm's
// copystructure calls copy; scalars are immutable).
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case Values:
		if x == nil {
			return x
		}
		m := make(Values, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// copyValues is a deep copy of user values, never nil.
func copyValues(vals map[string]any) map[string]any {
	c, _ := deepCopy(vals).(map[string]any)
	if c == nil {
		c = map[string]any{}
	}
	return c
}

// The coalescing below follows chartutil's coalesce.go. Two modes: coalesce
// (merge=false), what rendering uses, where a null in the user's values
// deletes the chart's default; and merge (merge=true), what import-values
// uses, where nulls are kept. Helm mutates the maps it is given (the source
// of a table merge included) and so does this code, in the same places,
// because later steps can observe it.

// CoalesceValues is the chart's defaults (and its subcharts', with
// globals) under a copy of vals.
func CoalesceValues(ch *chart.Chart, vals map[string]any) (Values, error) {
	return coalesce(ch, copyValues(vals), "", false)
}

// mergeValues is CoalesceValues keeping nulls.
func mergeValues(ch *chart.Chart, vals map[string]any) (Values, error) {
	return coalesce(ch, copyValues(vals), "", true)
}

func joinPrefix(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func coalesce(ch *chart.Chart, dest map[string]any, prefix string, merge bool) (map[string]any, error) {
	coalesceChartValues(ch, dest, prefix, merge)
	return coalesceSubcharts(ch, dest, prefix, merge)
}

// coalesceSubcharts gives each subchart its table (an empty one when
// missing), the parent's globals, and its own defaults.
func coalesceSubcharts(ch *chart.Chart, dest map[string]any, prefix string, merge bool) (map[string]any, error) {
	for _, sub := range ch.Dependencies() {
		name := sub.Name()
		cur, ok := dest[name]
		if !ok {
			cur = map[string]any{}
			dest[name] = cur
		} else if !isTable(cur) {
			return dest, fmt.Errorf("type mismatch on %s: %t", name, cur)
		}
		table := cur.(map[string]any)
		subPrefix := joinPrefix(prefix, ch.Metadata.Name)
		coalesceGlobals(table, dest, subPrefix)
		out, err := coalesce(sub, table, subPrefix, merge)
		dest[name] = out
		if err != nil {
			return dest, err
		}
	}
	return dest, nil
}

// coalesceGlobals copies the parent's globals into a subchart's table,
// the subchart's own global values winning inside tables and losing
// outside them, as Helm does.
func coalesceGlobals(dest, src map[string]any, prefix string) {
	var dg, sg map[string]any
	if g, ok := dest[globalKey]; !ok {
		dg = map[string]any{}
	} else if dg, ok = g.(map[string]any); !ok {
		return // Helm warns: destination global is not a table
	}
	if g, ok := src[globalKey]; !ok {
		sg = map[string]any{}
	} else if sg, ok = g.(map[string]any); !ok {
		return
	}
	for key, val := range sg {
		if m, ok := val.(map[string]any); ok {
			shallow := make(map[string]any, len(m))
			for k, e := range m {
				shallow[k] = e
			}
			if dv, ok := dg[key]; !ok {
				dg[key] = shallow
			} else if dm, ok := dv.(map[string]any); ok {
				coalesceTables(shallow, dm, joinPrefix(prefix, key), true)
				dg[key] = shallow
			}
		} else if dv, ok := dg[key]; ok && isTable(dv) {
			// a table is not replaced by a scalar
		} else {
			dg[key] = val
		}
	}
	dest[globalKey] = dg
}

// coalesceChartValues puts a copy of the chart's own defaults under v.
func coalesceChartValues(ch *chart.Chart, v map[string]any, prefix string, merge bool) {
	subPrefix := joinPrefix(prefix, ch.Metadata.Name)
	defaults, _ := deepCopy(ch.Values).(map[string]any)
	for key, def := range defaults {
		cur, ok := v[key]
		if !ok {
			v[key] = def
			continue
		}
		if cur == nil && !merge {
			delete(v, key)
			continue
		}
		dm, ok := cur.(map[string]any)
		if !ok {
			continue
		}
		sm, ok := def.(map[string]any)
		if !ok {
			continue // Helm warns unless the default is null
		}
		m := merge
		for _, sub := range ch.Dependencies() {
			if sub.Name() == key {
				m = true // a subchart's table is merged: its nulls reach the subchart
			}
		}
		coalesceTables(dm, sm, joinPrefix(subPrefix, key), m)
	}
}

// coalesceTables puts src under dst. Like Helm's, it also marks in src the
// keys dst holds as null.
func coalesceTables(dst, src map[string]any, prefix string, merge bool) map[string]any {
	if src == nil {
		return dst
	}
	if dst == nil {
		return src
	}
	nonNil := make(map[string]bool, len(src))
	for k, v := range src {
		if v != nil {
			nonNil[k] = true
		}
	}
	for k, v := range dst {
		if v == nil {
			src[k] = nil
		}
	}
	for k, sv := range src {
		dv, ok := dst[k]
		switch {
		case ok && !merge && dv == nil && nonNil[k]:
			delete(dst, k)
		case !ok:
			dst[k] = sv
		case isTable(sv):
			if isTable(dv) {
				coalesceTables(dv.(map[string]any), sv.(map[string]any), joinPrefix(prefix, k), merge)
			}
		}
	}
	return dst
}
