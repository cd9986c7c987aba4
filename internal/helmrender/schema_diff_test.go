package helmrender

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"
)

// schemaCases are schemas and values documents (YAML, read as Helm reads
// values) that TestSchemaMatchesHelm crosses.
var schemaCases = []struct{ schema, values []string }{
	{
		schema: []string{
			`{"type":"object","properties":{"replicas":{"type":"integer","minimum":1,"maximum":10},"name":{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},"mode":{"enum":["a","b",3]},"on":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2,"uniqueItems":true},"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25}},"required":["replicas"]}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"replicas":{"type":["integer","null"]},"name":{"const":"x"},"tags":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false},"sub":{"$ref":"#/definitions/sub"}},"additionalProperties":false,"definitions":{"sub":{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}}}`,
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"sub":{"$ref":"#/$defs/sub","description":"x"},"tags":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"},"contains":{"const":1},"minContains":2,"maxContains":3}},"$defs":{"sub":{"type":"object","properties":{"a":{"type":"string"},"b":{"minimum":5}},"dependentRequired":{"a":["b","c"]},"dependentSchemas":{"b":{"required":["z"]}}}},"patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"maxLength":8}}`,
			`{"anyOf":[{"required":["replicas"]},{"required":["name"]}],"oneOf":[{"properties":{"on":{"const":true}}},{"properties":{"on":{"const":false}}}],"allOf":[{"properties":{"replicas":{"type":"integer"}}},{"properties":{"replicas":{"maximum":3}}}],"not":{"required":["forbidden"]},"if":{"properties":{"on":{"const":true}},"required":["on"]},"then":{"required":["name"]},"else":{"required":["mode"]}}`,
			`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"replicas":{"type":"integer","minimum":2},"name":{"type":"string","enum":["x","yy"]}},"dependencies":{"name":["replicas"],"mode":{"required":["on"]}},"minProperties":2,"maxProperties":4}`,
			`{"$schema":"http://json-schema.org/draft-06/schema#","properties":{"tags":{"contains":{"type":"integer"}},"name":{"const":{"a":1}},"x":false},"propertyNames":{"pattern":"^[a-z]"}}`,
			`{"type":"object","properties":{"image":{"type":"object","properties":{"repository":{"type":"string"},"tag":{"type":["string","number"]}},"required":["repository"]},"resources":{"type":"object","properties":{"limits":{"$ref":"#/$defs/q"},"requests":{"$ref":"#/$defs/q"}}}},"$defs":{"q":{"type":"object","properties":{"cpu":{"type":["string","integer"],"pattern":"^[0-9]+m?$"},"memory":{"type":"string"}}}}}`,
			`{"properties":{"a":{"format":"email"},"b":{"type":"string","format":"date-time"}}}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"format":"email"}}}`,
			`{"properties":{"r":{"$ref":"#/$defs/r"}},"$defs":{"r":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/r2"}]},"r2":{"type":"string","minLength":3}}}`,
			`{"$ref":"#/definitions/top","definitions":{"top":{"type":"object","properties":{"replicas":{"type":"string"}}}}}`,
			`true`,
			`false`,
			`{}`,
			`{"type":"object","additionalProperties":false}`,
			`{"$id":"https://example.com/x.json","properties":{"replicas":{"$ref":"#/$defs/i"},"name":{"$ref":"#/$defs/n"}},"$defs":{"i":{"type":"integer"},"n":{"$id":"n.json","type":"string"}}}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","$id":"values.json","properties":{"replicas":{"$ref":"#/definitions/i"}},"definitions":{"i":{"type":"integer","maximum":3}}}`,
			`{"$schema":"http://json-schema.org/draft-04/schema#","id":"http://example.com/v.json#","properties":{"replicas":{"$ref":"#/definitions/i"}},"definitions":{"i":{"type":"integer","maximum":3}}}`,
			`{"$schema":"http://json-schema.org/schema#","properties":{"replicas":{"type":"string"},"name":{"minLength":3}}}`,
			`{"$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"tags":{"items":[{"type":"integer"}],"additionalItems":{"type":"string"},"contains":{"type":"integer"},"maxContains":1}},"dependentRequired":{"name":["replicas"]}}`,
		},
		values: []string{
			"",
			"replicas: 3\nname: abc\n",
			"replicas: 0\nname: A\nmode: c\non: 'yes'\ntags: [a, a, b]\nratio: 0.3\n",
			"replicas: 11\nname: toolongname\nratio: 1\ntags: []\n",
			"replicas: 2.5\nmode: 3\non: true\ntags: [a]\nratio: 0.5\n",
			"replicas: null\nname: x\ntags: [a, 1, 2]\nsub: {a: x, c: 1}\n",
			"tags: [a, 1, 1, 1, 1]\nsub: {a: 1, b: 2}\nx-y: 1\nverylongname: 1\n",
			"tags: [x]\nsub: {b: 7}\nforbidden: 1\non: false\n",
			"on: true\nmode: a\nreplicas: 4\n",
			"image: {tag: 1.2}\nresources: {limits: {cpu: 100m, memory: 1}, requests: {cpu: abc}}\n",
			"image: {repository: x, tag: [1]}\nresources: {limits: {cpu: 2}}\n",
			"a: not-an-email\nb: 2020-01-01\n",
			"a: me@example.com\n",
			"r: 5\n",
			"r: ab\n",
			"r: [1]\n",
			"name: {a: 1}\nx: 1\nBad: 1\n",
			"name: yy\nmode: 1\n",
			"ratio: 1000.5\nreplicas: 12345\n",
		},
	},
}

// helmSchemaVerdict is Helm's own validation of values against schema.
func helmSchemaVerdict(schema []byte, vals map[string]any) string {
	if err := chartutil.ValidateAgainstSingleSchema(vals, schema); err != nil {
		return err.Error()
	}
	return ""
}

// sameReport compares two reports: exactly when one line, else as sets
// of lines (jsonschema/v6 lists the failures of several properties in
// map order, so Helm's own text varies from run to run).
func sameReport(a, b string) bool {
	if a == b {
		return true
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for _, l := range [][]string{la, lb} {
		for i, line := range l {
			// the names of additional properties come in map order too
			if pre, names, ok := strings.Cut(line, ": additional properties "); ok {
				ns := strings.Split(strings.TrimSuffix(names, " not allowed"), ", ")
				slices.Sort(ns)
				l[i] = pre + ": additional properties " + strings.Join(ns, ", ") + " not allowed"
			}
		}
	}
	slices.Sort(la)
	slices.Sort(lb)
	return slices.Equal(la, lb)
}

func TestSchemaMatchesHelm(t *testing.T) {
	var compared, unchecked int
	for _, c := range schemaCases {
		for _, s := range c.schema {
			for _, v := range c.values {
				vals := map[string]any{}
				if err := yaml.Unmarshal([]byte(v), &vals); err != nil {
					t.Fatal(err)
				}
				want := helmSchemaVerdict([]byte(s), copyValues(vals))
				got, why := validateSchema([]byte(s), copyValues(vals))
				if why != "" {
					unchecked++
					continue
				}
				compared++
				if (want == "") != (got == "") || !sameReport(want, got) {
					t.Errorf("schema %s\nvalues %q\nhelm: %q\nours: %q", s, v, want, got)
				}
			}
		}
	}
	t.Logf("compared %d, not checked (fallback) %d", compared, unchecked)
	if compared < 150 {
		t.Errorf("only %d cases compared", compared)
	}
}

// FuzzSchemaMatchesHelm holds the verdict (and the report) to Helm's on
// any schema and values: whenever ours checks a schema, it agrees.
func FuzzSchemaMatchesHelm(f *testing.F) {
	for _, c := range schemaCases {
		for _, s := range c.schema {
			for _, v := range c.values[:6] {
				f.Add(s, v)
			}
		}
	}
	f.Fuzz(func(t *testing.T, schema, values string) {
		vals := map[string]any{}
		if err := yaml.Unmarshal([]byte(values), &vals); err != nil {
			return
		}
		if !json.Valid([]byte(schema)) {
			return
		}
		got, why := validateSchema([]byte(schema), copyValues(vals))
		if why != "" {
			return
		}
		want := helmSchemaVerdict([]byte(schema), copyValues(vals))
		if (want == "") != (got == "") || !sameReport(want, got) {
			t.Errorf("schema %s\nvalues %q\nhelm: %q\nours: %q", schema, values, want, got)
		}
	})
}
