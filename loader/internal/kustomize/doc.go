// Package kustomize builds a kustomization as `kustomize build` would, for
// the loader, in a sandboxed worker process (Build; RunWorker is the
// worker's side): builtin plugins only, loads restricted to each
// kustomization's root, a read-only file system that turns on origin
// annotations and charges every read to the run's input budget, no PATH
// and a network that refuses everything unless remote content is allowed
// (Helm, when enabled, only through a shim that refuses to pull). The
// commonest large kustomization, one that only lists local files, is
// built with kustomize's own parts without its quadratic cost (direct.go).
//
// It also reads kustomization files as kustomize reads them (Names, Field,
// Strs, IsRemote, RemoteRefs), for the worker and for the loader's scan of
// a kustomization tree. The build hands back kustomize's output resources
// with their origins (Reply); the loader finds each in its source file
// and locates its fields, so this package knows nothing of the loader's
// Objects.
package kustomize
