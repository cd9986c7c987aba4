// Package input reads the loader's input files within the run's input
// budget: a file is refused before a byte is read when it is no regular
// file (a named pipe would block, a device stream without end) or larger
// than MaxFileSize, and its bytes are charged to the Budget first. The
// loader, its Helm charts and its Kustomize builds read through it, so
// that every byte of a run is counted once.
package input
