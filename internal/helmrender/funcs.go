package helmrender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
	goyaml "sigs.k8s.io/yaml/goyaml.v3"
)

// funcMap is Sprig's text functions less env and expandenv, plus Helm's
// own (engine/funcs.go). include, tpl, required and fail are bound to a
// template set by the engine; lookup is Helm's without a cluster: an
// empty object for every query.
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	for k, v := range (template.FuncMap{
		"toToml":        toTOML,
		"fromToml":      fromTOML,
		"toYaml":        toYAML,
		"toYamlPretty":  toYAMLPretty,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"lookup": func(string, string, string, string) (map[string]any, error) {
			return map[string]any{}, nil
		},
		// Helm's engine turns DNS off unless asked (helm template --enable-dns).
		"getHostByName": func(string) string { return "" },
		"repeat":        repeat,
	}) {
		f[k] = v
	}
	return f
}

func yamlMarshal(v any) ([]byte, error) { return yaml.Marshal(v) }

// maxRepeat is the longest string repeat makes: one allocation of
// gigabytes would outrun the render worker's memory watch, which samples,
// and a rendered template over 64 MiB is refused anyway (the loader's file
// cap, which leaves the chart's other templates checked: repeat allows
// more than that, so that the cap, not repeat, refuses such a template).
const maxRepeat = 256 << 20

// repeat is Sprig's repeat, refusing a result longer than maxRepeat
// before allocating it.
func repeat(count int, str string) (string, error) {
	if count > 0 && len(str) > 0 && count > maxRepeat/len(str) {
		return "", fmt.Errorf("repeat: %d copies of %d bytes is over %d MiB; not made", count, len(str), maxRepeat>>20)
	}
	return strings.Repeat(str, count), nil // a negative count fails as in Helm
}

// toYAML is v as YAML without the final newline, "" when it cannot be.
func toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

// toYAMLPretty is toYAML with sequences indented under their key.
func toYAMLPretty(v any) string {
	var b bytes.Buffer
	enc := goyaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// fromYAML reads a YAML mapping; on failure the map holds only "Error".
func fromYAML(s string) map[string]any {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

// fromYAMLArray reads a YAML sequence; on failure the one element is the error.
func fromYAMLArray(s string) []any {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}

// toTOML is v as TOML, or the encoder's error text.
func toTOML(v any) string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return err.Error()
	}
	return b.String()
}

// fromTOML reads a TOML document; on failure the map holds only "Error".
func fromTOML(s string) map[string]any {
	m := map[string]any{}
	if err := toml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

// toJSON is v as JSON, "" when it cannot be.
func toJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

// fromJSON reads a JSON object; on failure the map holds only "Error".
func fromJSON(s string) map[string]any {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

// fromJSONArray reads a JSON array; on failure the one element is the error.
func fromJSONArray(s string) []any {
	a := []any{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}
