// Package worker starts the running program again as a worker process,
// for the loader's Kustomize builds and Helm renders: work that cannot be
// interrupted or sandboxed in-process (a template engine in a loop,
// process-wide HTTP and git settings) runs in a child the parent can kill
// and whose standard error it relays escaped.
package worker
