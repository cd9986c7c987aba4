// Package stream cuts a YAML stream into its documents where YAML and
// kubectl's reader (apimachinery's YAMLReader) cut it, and names the lines
// the two read differently. It is its own package because every reader of
// manifests in the loader (files, standard input, Helm templates,
// Kustomize sources and the fast path) must cut streams the same way.
package stream
