package report_test

import (
	"github.com/taintlint/taintlint/internal/lint"
	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// goldenRules are the enabled rules of the golden run, sorted by id as the
// driver sorts them. toleration-unmatched has no finding: it must still
// reach SARIF's driver.rules.
func goldenRules() []*rules.Rule {
	mk := func(id, summary string, sev rules.Severity) *rules.Rule {
		return &rules.Rule{
			ID:       id,
			Summary:  summary,
			Doc:      "Why " + id + " matters and how to fix it.\n\nA second paragraph with `code`.",
			URL:      rules.RuleURL(id),
			Severity: sev,
			Default:  true,
			Source:   rules.Go,
		}
	}
	parse := mk("parse-error", "File or field that cannot be read as a Kubernetes manifest", rules.Error)
	unsched := mk("pod-unschedulable", "Workload whose pods fit no node of the inventory", rules.Error)
	unsched.NeedsInventory = true
	dup := mk("taint-duplicate", "Node with two taints of the same key and effect", rules.Error)
	exists := mk("toleration-exists-with-value", "Toleration with operator Exists and a value", rules.Error)
	exists.Bad = "tolerations:\n- key: dedicated\n  operator: Exists\n  value: gpu\n"
	exists.Good = "tolerations:\n- key: dedicated\n  operator: Exists\n"
	unmatched := mk("toleration-unmatched", "Toleration that matches no taint in the inventory", rules.Warning)
	wildcard := mk("toleration-wildcard", "Toleration that tolerates every taint", rules.Warning)
	wildcard.Source = rules.CustomRego
	wildcard.File = "policy/wildcard.rego"
	wildcard.Tags = []string{"security", "scheduling"}
	wildcard.SecuritySeverity = "6.5"
	affinity := mk("toleration-without-affinity", "Toleration without a matching node affinity", rules.Note)
	return []*rules.Rule{parse, unsched, dup, exists, unmatched, wildcard, affinity}
}

// goldenResult is the one input every format renders for the golden files.
// It covers several files (one absolute, with a space and non-ASCII in its
// name), every severity, a finding without an object, related locations,
// suppressed findings of both kinds, a rule tagged security, a Node (no
// namespace), and messages with characters every format must escape.
func goldenResult() *lint.Result {
	web := &loader.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "prod", Name: "web"}
	worker := &loader.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "prod", Name: "worker"}
	api := &loader.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "api"}
	agent := &loader.Ref{APIVersion: "apps/v1", Kind: "DaemonSet", Namespace: "kube-system", Name: "agent"}
	gpu1 := &loader.Ref{APIVersion: "v1", Kind: "Node", Name: "gpu-1"}
	pos := func(file string, line, col int) loader.Position {
		return loader.Position{File: file, Line: line, Column: col}
	}
	findings := []rules.Finding{
		{
			Rule:     "toleration-without-affinity",
			Severity: rules.Note,
			Message:  "toleration \"team\x1b[2J\" lets pods onto tainted nodes but no node affinity sends them there",
			Pos:      pos("/srv/manifests/café app.yaml", 4, 3),
			Object:   api,
			Path:     "spec.template.spec.tolerations[0]",
		},
		{
			Rule:     "parse-error",
			Severity: rules.Error,
			Message:  "yaml: line 3: mapping values are not allowed in this context",
			Pos:      pos("broken.yaml", 3, 1),
		},
		{
			Rule:     "toleration-exists-with-value",
			Severity: rules.Error,
			Message:  `value "100%: a,b|c" must be empty when operator is Exists`,
			Pos:      pos("deploy/app.yaml", 12, 11),
			Object:   web,
			Path:     "spec.template.spec.tolerations[0].value",
		},
		{
			Rule:     "toleration-wildcard",
			Severity: rules.Warning,
			Message:  "toleration with operator Exists and no key tolerates every taint, node-role.kubernetes.io/control-plane:NoSchedule too",
			Pos:      pos("deploy/app.yaml", 20, 9),
			Object:   web,
			Path:     "spec.template.spec.tolerations[1].operator",
		},
		{
			Rule:     "pod-unschedulable",
			Severity: rules.Error,
			Message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s).\n" +
				"gpu-1, gpu-2: taint dedicated=gpu:NoSchedule | not tolerated; 100% of the “gpu” pool (ノード)",
			Pos:    pos("deploy/app.yaml", 30, 7),
			Object: web,
			Path:   "spec.template.spec",
			Related: []rules.Related{
				{Pos: pos("nodes/pool.yaml", 8, 7), Message: "taint dedicated=gpu:NoSchedule on Node/gpu-1"},
				{Pos: pos("nodes/pool.yaml", 22, 7), Message: "taint dedicated=gpu:NoSchedule on Node/gpu-2"},
			},
		},
		{
			Rule:     "taint-duplicate",
			Severity: rules.Error,
			Message:  `taint "dedicated:NoSchedule" repeats spec.taints[0]`,
			Pos:      pos("nodes/pool.yaml", 10, 7),
			Object:   gpu1,
			Path:     "spec.taints[1]",
			Related:  []rules.Related{{Pos: pos("nodes/pool.yaml", 8, 7), Message: "first taint with this key and effect"}},
		},
	}
	suppressed := []rules.Finding{
		{
			Rule:       "toleration-without-affinity",
			Severity:   rules.Note,
			Message:    `toleration "node-role.kubernetes.io/control-plane" lets pods onto tainted nodes but no node affinity sends them there`,
			Pos:        pos("deploy/agent.yaml", 9, 9),
			Object:     agent,
			Path:       "spec.template.spec.tolerations[0]",
			Suppressed: &rules.Suppression{Kind: "external", Reason: "agents run on every node by design"},
		},
		{
			Rule:       "toleration-exists-with-value",
			Severity:   rules.Error,
			Message:    `value "x" must be empty when operator is Exists`,
			Pos:        pos("deploy/app.yaml", 40, 11),
			Object:     worker,
			Path:       "spec.template.spec.tolerations[0].value",
			Suppressed: &rules.Suppression{Kind: "inSource", Reason: "legacy chart, fixed in v2 (see #12)"},
		},
	}
	return &lint.Result{
		Findings:   findings,
		Suppressed: suppressed,
		Rules:      goldenRules(),
		Summary: lint.Summary{
			Files:      5,
			Objects:    9,
			Nodes:      3,
			Findings:   map[rules.Severity]int{rules.Error: 4, rules.Warning: 1, rules.Note: 1},
			Suppressed: 2,
		},
		Warnings: []string{`deploy/app.yaml: annotation ignore-check.taintlint.io/toleration-wildcrad names no rule`},
		Notices:  []string{`no RuntimeClass "gvisor" among the inputs: its scheduling and overhead were not merged into Deployment/prod/web`},
	}
}

// cleanResult is a run that found nothing.
func cleanResult() *lint.Result {
	return &lint.Result{
		Rules: goldenRules(),
		Summary: lint.Summary{
			Files:    2,
			Objects:  3,
			Nodes:    0,
			Findings: map[rules.Severity]int{rules.Error: 0, rules.Warning: 0, rules.Note: 0},
		},
	}
}

// edgeResult holds, in the driver's order, the findings the golden run
// does not: no line, no column, standard input, a file name that looks
// like a URI scheme, a path outside the working directory, a Windows path,
// two findings that differ only by message, and a finding of a rule the
// result does not list.
func edgeResult() *lint.Result {
	node := &loader.Ref{APIVersion: "v1", Kind: "Node", Name: "n1"}
	f := func(rule string, sev rules.Severity, file string, line, col int, obj *loader.Ref, msg string) rules.Finding {
		return rules.Finding{Rule: rule, Severity: sev, Message: msg, Pos: loader.Position{File: file, Line: line, Column: col}, Object: obj}
	}
	return &lint.Result{
		Findings: []rules.Finding{
			f("parse-error", rules.Error, "-", 2, 0, nil, "yaml: line 2: could not find expected ':'"),
			f("parse-error", rules.Error, "../up.yaml", 0, 0, nil, "read ../up.yaml: permission denied"),
			f("parse-error", rules.Error, "C:/work/win.yaml", 1, 1, nil, "yaml: control characters are not allowed"),
			f("taint-duplicate", rules.Error, "a:b #1.yaml", 3, 5, node, `taint "k:NoExecute" repeats spec.taints[1]`),
			f("taint-duplicate", rules.Error, "a:b #1.yaml", 3, 5, node, `taint "k:NoSchedule" repeats spec.taints[0]`),
			f("rego-custom-check", rules.Warning, "x.yaml", 1, 1, node, "custom rule not among the result's rules!"),
		},
		Rules: goldenRules(),
		Summary: lint.Summary{
			Files:    5,
			Objects:  1,
			Nodes:    1,
			Findings: map[rules.Severity]int{rules.Error: 5, rules.Warning: 1},
		},
	}
}
