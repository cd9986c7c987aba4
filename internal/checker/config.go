package checker

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/taintlint/taintlint/internal/config"
	"github.com/taintlint/taintlint/internal/textdist"
	"github.com/taintlint/taintlint/k8s"
	"github.com/taintlint/taintlint/rules"
)

// Configure applies a repository's configuration file (.taintlint.yaml)
// to o: its feature gates, rule selection and severities, suppressions,
// admission plugins, runtime taints, custom kinds, node state, node
// inventory, ignored paths and Kustomize switch. It is the one reading of
// the file into a check, for taintlint check and for rule tests alike;
// flags are applied after it, over it. o.Rules must hold every rule of
// the run: the file's rule ids are checked against them, and an error
// names the place in the file.
func (o *Options) Configure(cfg *config.File) error {
	names := make([]string, 0, len(cfg.FeatureGates))
	for name := range cfg.FeatureGates {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := o.Gates.Set(name, cfg.FeatureGates[name]); err != nil {
			return fmt.Errorf("%s: featureGates: %v%s", cfg.Where("featureGates", name), err, textdist.DidYouMean(name, k8s.KnownFeatureGates()))
		}
	}
	if err := o.configureRules(cfg); err != nil {
		return err
	}
	var err error
	if o.Admission, err = cfg.Admission.K8s(cfg.WhereValue("admission", "podNodeSelector", "clusterDefaultNodeSelector")); err != nil {
		return err
	}
	o.RuntimeTaintKeys = cfg.RuntimeTaints
	if o.Kinds, err = config.K8sKinds(cfg.CustomKinds); err != nil {
		return fmt.Errorf("%s: customKinds: %v", cfg.Where("customKinds"), err) // validated as the file was read
	}
	if cfg.NodeState != "" {
		if o.NodeState, err = ParseNodeState(cfg.NodeState); err != nil {
			return fmt.Errorf("%s: nodeState: %v", cfg.WhereValue("nodeState"), err)
		}
	}
	for i, n := range cfg.Nodes {
		n = cfg.Resolve(n)
		if _, err := os.Stat(n); err != nil {
			return fmt.Errorf("%s: nodes[%d]: %v", cfg.WhereValue("nodes", i), i, err)
		}
		o.Nodes = append(o.Nodes, n)
	}
	if cfg.Kustomize != nil {
		o.Loader.Kustomize = *cfg.Kustomize
	}
	if ignore := cfg.Ignore; len(ignore) > 0 {
		o.Loader.Ignore = func(p string, dir bool) bool {
			for _, g := range ignore {
				if MatchGlob(g, p) || MatchGlob(g, strings.TrimPrefix(p, "./")) {
					return true
				}
			}
			return false
		}
	}
	return nil
}

// configureRules applies the file's enable, disable, severity and
// suppress keys, each rule id checked where the file names it (the
// flags' are checked by Run).
func (o *Options) configureRules(cfg *config.File) error {
	ids := make([]string, 0, len(o.Rules))
	for _, r := range o.Rules {
		ids = append(ids, r.ID)
	}
	known := func(id string) bool { return slices.Contains(ids, id) }
	unknownRule := func(id string, keys ...any) error {
		return fmt.Errorf("%s: %s: unknown rule %q%s (taintlint rules lists them)", cfg.WhereValue(keys...), configKey(keys), id, textdist.DidYouMean(id, ids))
	}
	for _, list := range []struct {
		key string
		ids []string
	}{{"enable", cfg.Enable}, {"disable", cfg.Disable}} {
		for i, id := range list.ids {
			if id != "all" && !known(id) {
				return unknownRule(id, list.key, i)
			}
		}
	}
	sevIDs := make([]string, 0, len(cfg.Severity))
	for id := range cfg.Severity {
		sevIDs = append(sevIDs, id)
	}
	sort.Strings(sevIDs)
	for _, id := range sevIDs {
		if !known(id) {
			return fmt.Errorf("%s: severity: unknown rule %q%s (taintlint rules lists them)", cfg.Where("severity", id), id, textdist.DidYouMean(id, ids))
		}
	}
	for i, s := range cfg.Suppress {
		for j, id := range s.Rules {
			if !known(id) {
				return unknownRule(id, "suppress", i, "rules", j)
			}
		}
	}
	o.Enable = append(o.Enable, cfg.Enable...)
	o.Disable = append(o.Disable, cfg.Disable...)
	for _, id := range sevIDs {
		sev, err := rules.ParseSeverity(cfg.Severity[id])
		if err != nil {
			return fmt.Errorf("%s: severity.%s: %v", cfg.WhereValue("severity", id), id, err)
		}
		if o.Severity == nil {
			o.Severity = map[string]rules.Severity{}
		}
		o.Severity[id] = sev
	}
	for _, s := range cfg.Suppress {
		o.Suppress = append(o.Suppress, Suppression{Rules: s.Rules, Paths: s.Paths, Objects: s.Objects, Reason: s.Reason})
	}
	return nil
}

// configKey is a setting's name in messages: suppress[0].rules[1].
func configKey(keys []any) string {
	var b strings.Builder
	for _, k := range keys {
		switch k := k.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, k)
		}
	}
	return b.String()
}
