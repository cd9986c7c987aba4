package helmrender

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
)

// Helm's own packages are the oracle: this file (a test file, so never in
// the shipped binary) renders a chart with them the way the loader used
// to, and compares.

const testKubeVersion = "v1.37.0"

// helmRender is the loader's former rendering through Helm's SDK.
func helmRender(ch *chart.Chart, vals map[string]any, kv string) (out map[string]string, err error) {
	defer func() {
		if x := recover(); x != nil {
			out, err = nil, fmt.Errorf("%v", x)
		}
	}()
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return nil, err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	v, err := chartutil.ParseKubeVersion(kv)
	if err != nil {
		return nil, err
	}
	caps.KubeVersion = *v
	if c := ch.Metadata.KubeVersion; c != "" && !chartutil.IsCompatibleRange(c, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c, caps.KubeVersion.String())
	}
	rel := chartutil.ReleaseOptions{Name: "release-name", Namespace: "default", Revision: 1, IsInstall: true}
	rv, err := chartutil.ToRenderValues(ch, vals, rel, caps)
	if err != nil {
		return nil, err
	}
	var e engine.Engine
	return e.Render(ch, rv)
}

// ourRender is Render with the same settings.
func ourRender(ch *chart.Chart, vals map[string]any, kv string) (map[string]string, []Unchecked, error) {
	v, err := ParseKubeVersion(kv)
	if err != nil {
		return nil, nil, err
	}
	res, err := Render(ch, vals, Options{Release: Release{Name: "release-name", Namespace: "default"}, Capabilities: NewCapabilities(*v, nil)})
	if err != nil {
		return nil, nil, err
	}
	return res.Manifests, res.Unchecked, nil
}

// diffOutcome compares the two renders of one chart under one set of
// values; "" when they agree. Unchecked schemas (our fallback) make a
// Helm schema failure an agreement, said in the second result.
func diffOutcome(t testing.TB, load func() (*chart.Chart, error), vals map[string]any) (diff string, fallback bool) {
	t.Helper()
	hc, err := load()
	if err != nil {
		return "", false
	}
	oc, _ := load()
	hout, herr := helmRender(hc, copyValues(vals), testKubeVersion)
	oout, unchecked, oerr := ourRender(oc, copyValues(vals), testKubeVersion)
	for _, u := range unchecked {
		t.Logf("schema not checked: %s (%s)", u.Chart, u.Why)
	}
	if (herr != nil) != (oerr != nil) {
		if herr != nil && len(unchecked) > 0 && strings.Contains(herr.Error(), "values don't meet the specifications") {
			return "", true
		}
		return fmt.Sprintf("verdicts differ:\nhelm: %v\nours: %v", herr, oerr), false
	}
	if herr != nil {
		if herr.Error() != oerr.Error() {
			return fmt.Sprintf("error texts differ:\nhelm: %v\nours: %v", herr, oerr), false
		}
		return "", false
	}
	if len(unchecked) > 0 {
		fallback = true
	}
	hk, ok := slices.Sorted(maps.Keys(hout)), slices.Sorted(maps.Keys(oout))
	if !slices.Equal(hk, ok) {
		return fmt.Sprintf("templates differ:\nhelm: %v\nours: %v", hk, ok), fallback
	}
	// Templates that call Sprig's random functions (randAlphaNum, genCA,
	// uuidv4) differ from render to render: a second render by Helm
	// tells which lines are random, and those are left out.
	var again map[string]string
	for _, k := range hk {
		if hout[k] != oout[k] && again == nil {
			hc2, _ := load()
			again, _ = helmRender(hc2, copyValues(vals), testKubeVersion)
		}
		if hout[k] != oout[k] && !sameButRandom(hout[k], again[k], oout[k]) {
			return fmt.Sprintf("%s differs:\n--- helm\n%s\n--- ours\n%s", k, hout[k], oout[k]), fallback
		}
		_, _, herr := releaseutil.SortManifests(map[string]string{k: hout[k]}, nil, releaseutil.InstallOrder)
		oerr := CheckManifests(k, oout[k])
		if fmt.Sprint(herr) != fmt.Sprint(oerr) {
			return fmt.Sprintf("%s: manifest check differs:\nhelm: %v\nours: %v", k, herr, oerr), fallback
		}
	}
	return "", fallback
}

// repoCharts lists the chart directories under the repository's testdata/
// and examples/.
func repoCharts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, top := range []string{"../../testdata", "../../examples"} {
		filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "Chart.yaml" {
				out = append(out, filepath.Dir(p))
			}
			return nil
		})
	}
	return out
}

func TestDefaultAPIVersions(t *testing.T) {
	if got, want := []string(NewCapabilities(KubeVersion{}, nil).APIVersions), []string(chartutil.DefaultCapabilities.APIVersions); !slices.Equal(got, want) {
		t.Errorf("default API versions differ from Helm's:\n got %q\nwant %q", got, want)
	}
	if got, want := NewCapabilities(KubeVersion{}, nil).HelmVersion, chartutil.DefaultCapabilities.HelmVersion; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Helm version %+v, Helm says %+v", got, want)
	}
}

// sameButRandom reports whether ours equals Helm's first render h1 on
// every line where Helm's two renders h1 and h2 agree.
func sameButRandom(h1, h2, ours string) bool {
	l1, l2, lo := strings.Split(h1, "\n"), strings.Split(h2, "\n"), strings.Split(ours, "\n")
	if h1 == h2 || len(l1) != len(l2) || len(l1) != len(lo) {
		return false
	}
	for i := range l1 {
		if l1[i] == l2[i] && l1[i] != lo[i] {
			return false
		}
	}
	return true
}
