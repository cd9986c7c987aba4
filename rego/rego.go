// Package rego turns Rego policies (embedded ones and users' own) into
// *rules.Rule values that run beside the Go rules.
package rego

import (
	"context"

	"github.com/taintlint/taintlint/rules"
)

// Load compiles the embedded policies and those in dirs, and returns one
// rule per policy.
func Load(ctx context.Context, dirs []string) ([]*rules.Rule, error) {
	// TODO(rego helper): embedded policies, --policy dirs.
	return nil, nil
}
