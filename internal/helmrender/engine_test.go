package helmrender

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

// TestTplRecursionEnds: a value that passes itself to tpl overflows Helm's
// stack, a fatal error that would end the whole run; here it is one short
// render error at the template, through a named template too.
func TestTplRecursionEnds(t *testing.T) {
	for _, tt := range []struct{ name, tpl, values, want string }{
		{"tpl", "{{ tpl .Values.x . }}\n", `{{ tpl .Values.x . }}`, "tpl calls nested more than 1000 deep"},
		{"tpl in a named template", `{{ define "r" }}{{ tpl .Values.x . }}{{ end }}{{ include "r" . }}` + "\n", `{{ include "r" . }}`, "tpl calls nested more than 1000 deep"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch := &chart.Chart{
				Metadata:  &chart.Metadata{APIVersion: "v2", Name: "c", Version: "0.1.0"},
				Templates: []*chart.File{{Name: "templates/a.yaml", Data: []byte(tt.tpl)}},
				Values:    map[string]any{"x": tt.values},
			}
			kv, err := ParseKubeVersion("v1.37.0")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Render(ch, map[string]any{}, Options{Capabilities: NewCapabilities(*kv, nil)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if len(err.Error()) > 200_000 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
		})
	}
}
