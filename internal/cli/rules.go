package cli

import (
	"github.com/spf13/cobra"

	"github.com/taintlint/taintlint/internal/checker"
	"github.com/taintlint/taintlint/report"
)

func newRules(env Env) *cobra.Command {
	var format string
	var policies []string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List every rule: built-in Go, embedded Rego and custom",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			all, err := checker.Rules(cmd.Context(), policies)
			if err != nil {
				return failure("%v", err)
			}
			switch format {
			case "text", "json", "markdown":
			default:
				return failure("--format: unknown format %q (want text, json or markdown)", format)
			}
			if err := report.WriteRules(env.Stdout, format, all); err != nil {
				return failure("writing rules: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or markdown")
	cmd.Flags().StringArrayVar(&policies, "policy", nil, "directory of extra Rego rules to list too (repeatable)")
	return cmd
}
