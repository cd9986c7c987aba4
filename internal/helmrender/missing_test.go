package helmrender

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

// TestMissingDependencies: the names are those Helm's
// action.CheckDependencies (pkg/action/install.go, v3.22) returns, and the
// wording that of its error as helm's install command wraps it
// (cmd/helm/install.go). pkg/action itself is not linked, even in tests:
// it brings modules the project does not otherwise need.
func TestMissingDependencies(t *testing.T) {
	sub := func(name string) *chart.Chart {
		return &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: name, Version: "0.1.0"}}
	}
	tests := []struct {
		name string
		reqs []*chart.Dependency
		have []*chart.Chart
		want []string
	}{
		{"none", nil, nil, nil},
		{"present", []*chart.Dependency{{Name: "a"}}, []*chart.Chart{sub("a")}, nil},
		{"one missing", []*chart.Dependency{{Name: "a"}, {Name: "b"}}, []*chart.Chart{sub("a")}, []string{"b"}},
		{"alias is not the name", []*chart.Dependency{{Name: "a", Alias: "x"}}, []*chart.Chart{sub("x")}, []string{"a"}},
		{"condition off still required", []*chart.Dependency{{Name: "a", Condition: "a.enabled"}, {Name: "c", Tags: []string{"t"}}}, nil, []string{"a", "c"}},
		{"unnamed subchart is extra", []*chart.Dependency{{Name: "a"}}, []*chart.Chart{sub("a"), sub("z")}, nil},
	}
	const helm = "An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: a, c"
	if got := MissingDependencyMsg + "a, c"; got != helm {
		t.Errorf("worded %q, Helm %q", got, helm)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := sub("top")
			ch.Metadata.Dependencies = tt.reqs
			ch.SetDependencies(tt.have...)
			got := MissingDependencies(ch)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("missing %q, want %q", got, tt.want)
			}
		})
	}
}
