package helmrender

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"helm.sh/helm/v3/pkg/chart"
)

// The engine is Helm's non-strict engine without a cluster
// (engine/engine.go): every template of the chart and its subcharts is
// parsed into one set, deepest paths first and, at one depth, in reverse
// name order (so a later definition of a named template wins as in Helm),
// then each template not named "_*" is executed with missingkey=zero and
// "<no value>" removed from its output. Errors keep Helm's wording, which
// the loader reads the template and line from.

// renderable is one template with the values it is executed with.
type renderable struct {
	tpl      string
	vals     Values
	basePath string
}

// The markers Helm puts around the message of required and fail, so it
// can give the message without text/template's prefix.
const (
	errStart = "HELM_ERR_START"
	errEnd   = "HELM_ERR_END"
	// maxIncludeDepth is how deep a named template may include itself.
	maxIncludeDepth = 1000
	// maxTplDepth is how deep tpl calls may nest. Helm sets no bound, and
	// a value that passes itself to tpl overflows its stack (a fatal
	// error that ends the process, not an error); here it is a render
	// error of the chart, and the run goes on.
	maxTplDepth = 1000
)

// errTplDepth ends a tpl recursion; the outermost tpl call reports it
// alone, not wrapped once per level.
var errTplDepth = fmt.Errorf("tpl calls nested more than %d deep (a value that renders itself with tpl?)", maxTplDepth)

var errMarkRE = regexp.MustCompile(errStart + `((?s).*)` + errEnd)

func markErr(msg string) error { return errors.New(errStart + msg + errEnd) }

func includeFunc(t *template.Template, depth map[string]int) func(string, any) (string, error) {
	return func(name string, data any) (string, error) {
		var b strings.Builder
		if n, ok := depth[name]; ok {
			if n > maxIncludeDepth {
				return "", fmt.Errorf("rendering template has a nested reference name: %s: %w", name, errors.New("unable to execute template"))
			}
			depth[name]++
		} else {
			depth[name] = 1
		}
		err := t.ExecuteTemplate(&b, name, data)
		depth[name]--
		return b.String(), err
	}
}

// tplFunc is Helm's tpl; nested counts the tpl calls under way.
func tplFunc(parent *template.Template, depth map[string]int, nested *int) func(string, any) (string, error) {
	return func(text string, vals any) (string, error) {
		if *nested >= maxTplDepth {
			return "", errTplDepth
		}
		*nested++
		defer func() { *nested-- }()
		t, err := parent.Clone()
		if err != nil {
			return "", fmt.Errorf("cannot clone template: %w", err)
		}
		t.Option("missingkey=zero")
		t.Funcs(template.FuncMap{
			"include": includeFunc(t, depth),
			"tpl":     tplFunc(t, depth, nested),
		})
		t, err = t.New(parent.Name()).Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var b strings.Builder
		if err := t.Execute(&b, vals); err != nil {
			if *nested == 1 && errors.Is(err, errTplDepth) {
				return "", errTplDepth
			}
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
}

func bindFuncs(t *template.Template, tr *tracer) {
	f := funcMap()
	if tr != nil {
		tr.wrap(f)
	}
	depth, nested := map[string]int{}, 0
	f["include"] = includeFunc(t, depth)
	f["tpl"] = tplFunc(t, depth, &nested)
	f["required"] = func(msg string, val any) (any, error) {
		if val == nil {
			return val, markErr(msg)
		}
		if s, ok := val.(string); ok && s == "" {
			return val, markErr(msg)
		}
		return val, nil
	}
	f["fail"] = func(msg string) (string, error) { return "", markErr(msg) }
	t.Funcs(f)
}

// execute renders every template of tpls, by the engine's name for it;
// tr (nil for none) records the values each prints whole, by name too.
func execute(tpls map[string]renderable, tr *tracer) (out map[string]string, uses map[string][]ValueUse, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, uses, err = nil, nil, fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	t := template.New("gotpl")
	t.Option("missingkey=zero")
	bindFuncs(t, tr)
	names := parseOrder(tpls)
	for _, name := range names {
		if _, err := t.New(name).Parse(tpls[name].tpl); err != nil {
			return map[string]string{}, nil, parseError(name, err)
		}
	}
	out = make(map[string]string, len(names))
	uses = map[string][]ValueUse{}
	for _, name := range names {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		r := tpls[name]
		r.vals["Template"] = Values{"Name": name, "BasePath": r.basePath}
		var b strings.Builder
		if tr != nil {
			tr.out = &b
		}
		if err := t.ExecuteTemplate(&b, name, r.vals); err != nil {
			return map[string]string{}, nil, execError(name, err)
		}
		out[name] = strings.ReplaceAll(b.String(), "<no value>", "")
		if tr != nil {
			if u := tr.take(b.String()); len(u) > 0 {
				uses[name] = u
			}
		}
	}
	return out, uses, nil
}

// parseOrder sorts template names by depth (slashes) and then by name,
// both descending.
func parseOrder(tpls map[string]renderable) []string {
	names := make([]string, 0, len(tpls))
	for n := range tpls {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if ca, cb := strings.Count(a, "/"), strings.Count(b, "/"); ca != cb {
			return cb - ca
		}
		return strings.Compare(b, a)
	})
	return names
}

// parseError is Helm's "parse error at (file:line): message".
func parseError(name string, err error) error {
	parts := strings.Split(err.Error(), ": ")
	if len(parts) == 1 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", parts[1], parts[len(parts)-1])
}

// execError is Helm's "execution error at (file:line:col): message" for
// required and fail; other execution errors are text/template's own.
func execError(name string, err error) error {
	if _, ok := err.(template.ExecError); !ok { //nolint:errorlint // Helm tests the error itself, not its chain
		return err
	}
	parts := strings.SplitN(err.Error(), ": ", 3)
	if len(parts) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	if m := errMarkRE.FindStringSubmatch(parts[2]); len(m) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", parts[1], m[1])
	}
	return err
}

// collectTemplates gives every template of the chart and its subcharts
// its values: the chart's metadata, files, release, capabilities, its
// part of the values, and its subcharts' values (.Subcharts).
func collectTemplates(ch *chart.Chart, top Values, into map[string]renderable) map[string]any {
	subcharts := map[string]any{}
	// a plain map, as in Helm: .Subcharts.<name> is one
	next := map[string]any{
		"Chart": struct {
			chart.Metadata
			IsRoot bool
		}{*ch.Metadata, ch.IsRoot()},
		"Files":        newFiles(ch.Files),
		"Release":      top["Release"],
		"Capabilities": top["Capabilities"],
		"Values":       make(Values),
		"Subcharts":    subcharts,
	}
	if ch.IsRoot() {
		next["Values"] = top["Values"]
	} else if v, err := top.Table("Values." + ch.Name()); err == nil {
		next["Values"] = v
	}
	for _, sub := range ch.Dependencies() {
		subcharts[sub.Name()] = collectTemplates(sub, next, into)
	}
	full := ch.ChartFullPath()
	library := strings.EqualFold(ch.Metadata.Type, "library")
	for _, f := range ch.Templates {
		if f == nil || library && !strings.HasPrefix(path.Base(f.Name), "_") {
			continue
		}
		into[path.Join(full, f.Name)] = renderable{tpl: string(f.Data), vals: Values(next), basePath: path.Join(full, "templates")}
	}
	return next
}

// manifestSepRE is Helm's document separator.
var manifestSepRE = regexp.MustCompile("(?:^|\\s*\n)---\\s*")
