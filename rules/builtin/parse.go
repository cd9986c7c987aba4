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
other file and object.

A value of the wrong type is reported at the value itself (line and column),
with its field path as the API names it (spec.template.spec.volumes[0].fc.lun)
and what was expected ("expected integer, got string "abc""). Every such value
of an object is reported, not only the first: the pod spec, its pod's metadata,
the rest of a built-in workload (spec.replicas: true in a Deployment), Nodes and
RuntimeClasses are checked against their Kubernetes types. A key given twice
in one mapping is reported too, as kubectl's strict decoding rejects it.

kubectl would reject such an object whole. taintlint reports every error and
still checks what can be checked: a key given twice counts with its last
value, as the API server's non-strict decoding keeps it. A value of the wrong
type is left empty, and nothing judges the empty value in its place: the
validation rules skip that field, and a pod spec holding such a value is
neither placed on the inventory nor given facts for Rego policies (without
its tolerations: "x" it is not the pod a person wrote). Every other field is
checked as usual, and a wrong type outside the pod spec (spec.replicas) takes
nothing away.`,
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
				// At the value, which is what is wrong, not its key.
				p.Report(rules.Diagnostic{Object: d.Object, Path: d.Path, AtValue: d.AtValue, Message: msg})
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
