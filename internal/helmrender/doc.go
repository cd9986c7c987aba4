// Package helmrender renders a Helm chart the way `helm template` does,
// without linking Helm's pkg/engine, pkg/chartutil or pkg/releaseutil.
//
// Why it exists: those packages bring santhosh-tekuri/jsonschema/v6 (whose
// package initialisation compiles its meta-schemas) and most of client-go
// (the scheme, REST and dynamic clients for the engine's lookup). Go runs
// the initialisation of every linked package at start, so linking them
// cost every run of taintlint about a third of a one-file check before
// main, whether it rendered a chart or not (issue 18).
//
// What it does is Helm v3.22's behaviour, re-stated from its source:
// dependencies enabled by condition and tags, aliases and import-values
// (ProcessDependenciesWithMerge), values coalescing with globals, the
// capabilities and the chart's kubeVersion check, the render values, the
// template engine with Sprig's and Helm's functions (no cluster: lookup is
// empty, DNS off), values.schema.json validation, and the check that every
// rendered document reads as a manifest head. Helm's own packages remain
// the oracle in this package's tests (diff_test.go, schema_diff_test.go), which compare
// every chart of the repository and generated variations byte for byte.
//
// The chart model (helm.sh/helm/v3/pkg/chart) is still Helm's: it links
// nothing heavy.
//
// One difference is deliberate and cannot be removed: Go type names. A
// template that prints the type of .Values, .Template, .Files or
// .Capabilities (typeOf, printf "%T") reads helmrender.Values,
// helmrender.Files, *helmrender.Capabilities where Helm gives
// chartutil.Values, engine.files, *chartutil.Capabilities; comparisons
// with "map[string]interface {}" come out the same. Schemas: see schema.go.
package helmrender
