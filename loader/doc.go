// Package loader reads Kubernetes manifests from files, directories, standard
// input and Kustomize trees into Objects that remember where every field came
// from, so that a rule can name a field path and get back a file, line and
// column.
//
// The loader knows YAML, JSON, multi-document streams, List kinds and
// Kustomize, and nothing about rules: a file it cannot read or parse becomes
// an Error with a position, which the driver turns into a parse-error finding.
//
// Positions are 1-based; columns count Unicode code points, as yaml.v3 does,
// which is also what SARIF's "unicodeCodePoints" column kind means.
package loader
