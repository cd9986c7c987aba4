package rego

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// policyError is a problem with a policy at a place in its file.
type policyError struct {
	file      string
	line, col int
	msg       string
}

func (e *policyError) Error() string {
	switch {
	case e.line > 0 && e.col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg)
	case e.line > 0:
		return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
	}
	return e.file + ": " + e.msg
}

// policyErrors are every problem found while loading, in file order; its
// message is one line, the first few problems joined.
type policyErrors []*policyError

func (es policyErrors) Error() string {
	const show = 3
	sorted := append(policyErrors(nil), es...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].file != sorted[j].file {
			return sorted[i].file < sorted[j].file
		}
		return sorted[i].line < sorted[j].line
	})
	var parts []string
	for i, e := range sorted {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(sorted)-show))
			break
		}
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

func asPolicyErrors(err error) policyErrors {
	var pe *policyError
	if errors.As(err, &pe) {
		return policyErrors{pe}
	}
	return policyErrors{{msg: err.Error()}}
}

// at is a policyError at an OPA location (file from the location when it
// has one).
func at(loc *ast.Location, file, format string, args ...any) *policyError {
	e := &policyError{file: file, msg: fmt.Sprintf(format, args...)}
	if loc != nil {
		if loc.File != "" {
			e.file = loc.File
		}
		e.line, e.col = loc.Row, loc.Col
	}
	return e
}

// fromOPA turns OPA's parse and compile errors into policyErrors, saying
// why a built-in taken away from policies is undefined.
func fromOPA(err error, file string) policyErrors {
	var list ast.Errors
	var one *ast.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ast.Errors{one}
	default:
		return policyErrors{{file: file, msg: err.Error()}}
	}
	out := make(policyErrors, 0, len(list))
	hinted := false
	for _, e := range list {
		msg := e.Message
		if name, ok := strings.CutPrefix(msg, "undefined function "); ok && isDenied(name, ast.Builtins) {
			msg += " (taintlint policies may not reach the network, the process environment, the clock or files)"
		}
		if e.Code == ast.ParseErr && strings.Contains(msg, "keyword is required") && !hinted {
			msg += " (policies are Rego v1: deny contains {...} if { ... })"
			hinted = true
		}
		out = append(out, at(e.Location, file, "%s", msg))
	}
	return out
}

func locString(loc *ast.Location, file string) string {
	if loc == nil {
		return file
	}
	if loc.File != "" {
		file = loc.File
	}
	return fmt.Sprintf("%s:%d", file, loc.Row)
}

// pkgName is a package path as written in its package line.
func pkgName(p ast.Ref) string {
	return strings.TrimPrefix(p.String(), "data.")
}
