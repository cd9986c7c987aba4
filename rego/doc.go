// Package rego turns Rego policies, taintlint's embedded ones and users'
// own (--policy), into *rules.Rule values that run beside the Go rules.
//
// Each rule is one Rego package: an OPA METADATA block before its package
// line gives the id, severity and docs, and its deny set holds findings as
// {"msg": ..., "path": <field path>} objects. The adapter reports each one
// through rules.Pass.Report as an (object, field path) diagnostic, which
// the driver locates, so Rego findings get file, line and column exactly
// as Go findings do; policy authors never deal in lines.
//
// Every policy is parsed and compiled once per run, in strict mode, with
// capabilities that leave out the built-ins reaching the network, the
// process, the clock or files; each rule's query is prepared once. A run
// evaluates all its Rego rules in one parallel pass over the objects: each
// object's input document, with the scheduling facts of its
// workloads (input.facts), is built, evaluated by every rule that looks at
// its kind, and dropped. docs/policies.md is the authors' reference.
package rego
