package helmrender

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
)

// This file is what Helm's ProcessDependenciesWithMerge does to a chart
// before rendering (chartutil's dependencies.go): aliases become copies of
// the subchart under the alias, tags and conditions turn subcharts off, and
// import-values copy a subchart's values into its parent's defaults. Like
// Helm, it changes the chart it is given.

// isCompatibleRange reports whether version ver satisfies constraint, as
// Helm's chartutil.IsCompatibleRange (false when either does not parse).
func isCompatibleRange(constraint, ver string) bool {
	v, err := semver.NewVersion(ver)
	if err != nil {
		return false
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false
	}
	return c.Check(v)
}

// processDependencies enables, aliases and imports the chart's
// dependencies under the user's values vals.
func processDependencies(ch *chart.Chart, vals map[string]any) error {
	if err := enableDependencies(ch, vals, ""); err != nil {
		return err
	}
	return importDependencyValues(ch)
}

// aliased is the first loaded subchart a requirement names, in a version
// it accepts, copied under the requirement's alias.
func aliased(charts []*chart.Chart, req *chart.Dependency) *chart.Chart {
	for _, c := range charts {
		if c == nil || c.Name() != req.Name || !isCompatibleRange(req.Version, c.Metadata.Version) {
			continue
		}
		cp := *c
		md := *c.Metadata
		cp.Metadata = &md
		if req.Alias != "" {
			md.Name = req.Alias
		}
		return &cp
	}
	return nil
}

func enableDependencies(ch *chart.Chart, vals map[string]any, path string) error {
	if ch.Metadata.Dependencies == nil {
		return nil
	}
	// Loaded subcharts no requirement names stay as they are; each
	// requirement then adds its (aliased) copy of the one it names.
	var deps []*chart.Chart
	for _, have := range ch.Dependencies() {
		named := false
		for _, req := range ch.Metadata.Dependencies {
			if have.Name() == req.Name && isCompatibleRange(req.Version, have.Metadata.Version) {
				named = true
				break
			}
		}
		if !named {
			deps = append(deps, have)
		}
	}
	for _, req := range ch.Metadata.Dependencies {
		if req == nil {
			continue
		}
		if c := aliased(ch.Dependencies(), req); c != nil {
			deps = append(deps, c)
		}
		if req.Alias != "" {
			req.Name = req.Alias
		}
	}
	ch.SetDependencies(deps...)

	for _, req := range ch.Metadata.Dependencies {
		req.Enabled = true
	}
	cvals, err := CoalesceValues(ch, vals)
	if err != nil {
		return err
	}
	applyTags(ch.Metadata.Dependencies, cvals)
	applyConditions(ch.Metadata.Dependencies, cvals, path)

	off := map[string]bool{}
	for _, req := range ch.Metadata.Dependencies {
		if !req.Enabled {
			off[req.Name] = true
		}
	}
	keep := []*chart.Chart{}
	for _, c := range ch.Dependencies() {
		if !off[c.Metadata.Name] {
			keep = append(keep, c)
		}
	}
	keepReqs := []*chart.Dependency{}
	for _, req := range ch.Metadata.Dependencies {
		if !off[req.Name] {
			keepReqs = append(keepReqs, req)
		}
	}
	for _, c := range keep {
		if err := enableDependencies(c, cvals, path+c.Metadata.Name+"."); err != nil {
			return err
		}
	}
	ch.Metadata.Dependencies = append([]*chart.Dependency(nil), keepReqs...)
	ch.SetDependencies(keep...)
	return nil
}

// applyTags sets each requirement's Enabled from the tags table: off when
// a tag of it is false and none true, on otherwise.
func applyTags(reqs []*chart.Dependency, cvals Values) {
	tags, err := cvals.Table("tags")
	if err != nil {
		return
	}
	for _, req := range reqs {
		var anyTrue, anyFalse bool
		for _, k := range req.Tags {
			if b, ok := tags[k].(bool); ok {
				anyTrue = anyTrue || b
				anyFalse = anyFalse || !b
			}
		}
		req.Enabled = anyTrue || !anyFalse
	}
}

// applyConditions sets Enabled from the first of a requirement's
// comma-separated condition paths that holds a boolean.
func applyConditions(reqs []*chart.Dependency, cvals Values, path string) {
	for _, req := range reqs {
		for _, c := range strings.Split(strings.TrimSpace(req.Condition), ",") {
			if c == "" {
				continue
			}
			if v, err := cvals.PathValue(path + c); err == nil {
				if b, ok := v.(bool); ok {
					req.Enabled = b
					break
				}
			}
		}
	}
}

// importDependencyValues applies import-values bottom-up.
func importDependencyValues(ch *chart.Chart) error {
	for _, d := range ch.Dependencies() {
		if err := importDependencyValues(d); err != nil {
			return err
		}
	}
	return importValues(ch)
}

// importValues copies each requirement's import-values into the chart's
// defaults: {child, parent} pairs and the short form (a key of the
// subchart's exports table), merged as ProcessDependenciesWithMerge does.
func importValues(ch *chart.Chart) error {
	if ch.Metadata.Dependencies == nil {
		return nil
	}
	cvals, err := mergeValues(ch, nil)
	if err != nil {
		return err
	}
	imported := map[string]any{}
	for _, req := range ch.Metadata.Dependencies {
		var normalised []any
		for _, iv := range req.ImportValues {
			switch iv := iv.(type) {
			case map[string]any:
				child := fmt.Sprintf("%v", iv["child"])
				parent := fmt.Sprintf("%v", iv["parent"])
				normalised = append(normalised, map[string]string{"child": child, "parent": parent})
				t, err := cvals.Table(req.Name + "." + child)
				if err != nil {
					continue // Helm warns: missing table
				}
				imported = coalesceTables(imported, underPath(parent, t.AsMap()), "", true)
			case string:
				child := "exports." + iv
				normalised = append(normalised, map[string]string{"child": child, "parent": "."})
				t, err := cvals.Table(req.Name + "." + child)
				if err != nil {
					continue
				}
				imported = coalesceTables(imported, t.AsMap(), "", true)
			}
		}
		req.ImportValues = normalised
	}
	ch.Values = coalesceTables(copyValues(cvals), imported, "", true)
	return nil
}

// underPath nests data under a dotted path ("." is the top).
func underPath(path string, data map[string]any) map[string]any {
	if path == "." {
		return data
	}
	steps := strings.Split(path, ".")
	cur := data
	for i := len(steps) - 1; i >= 0; i-- {
		cur = map[string]any{steps[i]: cur}
	}
	return cur
}

// MissingDependencies is Helm's action.CheckDependencies, which helm
// template runs on the chart it is given before anything else and which
// refuses the chart when a name comes back: the requirements of
// Chart.yaml (by name, not alias, and whatever their condition or tags)
// that no chart under charts/ answers, in Chart.yaml's order.
func MissingDependencies(ch *chart.Chart) []string {
	var missing []string
	for _, r := range ch.Metadata.Dependencies {
		if r == nil {
			continue // chart.Validate refuses it first
		}
		found := false
		for _, d := range ch.Dependencies() {
			if d.Name() == r.Name {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, r.Name)
		}
	}
	return missing
}

// MissingDependencyMsg is how helm template words a missing dependency
// (action.CheckDependencies, wrapped by helm's install command); the
// names follow, joined by ", ".
const MissingDependencyMsg = "An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: "
