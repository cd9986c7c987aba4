package builtin

import (
	"github.com/taintlint/taintlint/rules"
)

func parseError() *rules.Rule {
	return rule(rules.Rule{
		ID:       "parse-error",
		Summary:  "File or field that cannot be read as a Kubernetes manifest",
		Severity: rules.Error,
		Doc: `A file that is not valid YAML or JSON, or a field whose value has the wrong
type (a string where Kubernetes expects a list, an unquoted number where it
expects a string), is rejected by kubectl and the API server before any other
check could matter. taintlint reports it at its line and goes on with every
other file and object.`,
		Bad: `tolerations:
- key: dedicated
  value: 123        # a number: the API wants a string`,
		Good: `tolerations:
- key: dedicated
  value: "123"`,
		Run: func(p *rules.Pass) error {
			for _, e := range p.Input.LoadErrors {
				p.Report(rules.Diagnostic{Pos: e.Pos, Message: e.Msg})
			}
			for _, d := range p.Input.DecodeIssues {
				msg := d.Msg
				if d.Path != "" {
					msg = d.Path + ": " + msg
				}
				p.Report(rules.Diagnostic{Object: d.Object, Path: d.Path, Message: msg})
			}
			for _, is := range legacyAnnotationIssues(p.Input) {
				if is.rule == "parse-error" {
					p.Reportf(is.obj, is.path, "%s", is.message())
				}
			}
			return nil
		},
	})
}
