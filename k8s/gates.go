package k8s

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// FeatureGates are the Kubernetes feature gates that change how taints and
// tolerations are judged. The zero value is Kubernetes 1.37's default.
type FeatureGates struct {
	// TaintTolerationComparisonOperators allows the Lt and Gt toleration
	// operators (alpha, off by default in 1.35 to 1.37).
	TaintTolerationComparisonOperators bool
}

// KnownFeatureGates lists the gates taintlint models.
func KnownFeatureGates() []string { return []string{"TaintTolerationComparisonOperators"} }

// Set sets one gate by name.
func (g *FeatureGates) Set(name string, on bool) error {
	switch name {
	case "TaintTolerationComparisonOperators":
		g.TaintTolerationComparisonOperators = on
	default:
		return fmt.Errorf("unknown feature gate %q (known: %s)", name, strings.Join(KnownFeatureGates(), ", "))
	}
	return nil
}

// ParseFeatureGates applies a comma-separated NAME=BOOL list, the
// kube-apiserver --feature-gates syntax.
func (g *FeatureGates) Parse(s string) error {
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("feature gate %q: want NAME=true or NAME=false", kv)
		}
		on, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return fmt.Errorf("feature gate %q: %q is not a boolean", name, val)
		}
		if err := g.Set(strings.TrimSpace(name), on); err != nil {
			return err
		}
	}
	return nil
}

// String lists the gates that differ from the default, sorted.
func (g FeatureGates) String() string {
	var on []string
	if g.TaintTolerationComparisonOperators {
		on = append(on, "TaintTolerationComparisonOperators=true")
	}
	sort.Strings(on)
	return strings.Join(on, ",")
}
