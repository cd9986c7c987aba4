// Package report renders a finished Result in one of taintlint's
// output formats: text for people, json for scripts, sarif for code-scanning
// services and github for GitHub Actions logs. It decides nothing about the
// findings: every writer takes the result and an io.Writer, renders the same
// input to the same bytes, and returns the writer's error.
//
// Positions are reported as the loader gives them: 1-based lines and 1-based
// columns counted in Unicode code points (SARIF's "unicodeCodePoints").
package report
