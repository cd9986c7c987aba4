// Package loader reads Kubernetes manifests from files, directories, standard
// input and Kustomize trees into Objects that remember where every field came
// from, so that a rule can name a field path and get back a file, line and
// column.
//
// The loader knows YAML, JSON, multi-document streams, List kinds and
// Kustomize, and nothing about rules: a file it cannot read or parse becomes
// an Error with a position, which the driver turns into a parse-error finding.
//
// A Kustomize directory is built with kustomize's krusty API in a worker
// process (loader/internal/kustomize, started by loader/internal/worker):
// the running program started again, with no PATH and an HTTP transport
// and resolver that refuse everything unless remote content is allowed,
// so kustomize cannot clone or fetch whatever a kustomization says. The
// tree is read first (loader/internal/kusttree): anything that would run a
// program (KRM functions, legacy plugins, Helm charts unless allowed) is
// an Error at the line that names it and nothing is built then; each
// remote reference, as kustomize's own decoding reads it
// (kustomize.RemoteRefs), is an Error at its line, and the worker builds
// the rest without it. The build runs with builtin plugins only, loads
// restricted to each kustomization's root and a read-only file system
// that turns on origin annotations for the root. Each output object is
// found again in its origin file, and each field is located where a person
// would change it: the patch that set it, the source file, or the
// kustomization entry of the generator or transformer that made it
// (Exactness Generated).
//
// A Helm chart (a directory with Chart.yaml, or a .tgz) is read with
// Helm's chart loader, handed the files taintlint read itself, and
// rendered by internal/helmrender as helm template renders it, with no
// cluster, network or program behind it (loader/internal/helmchart); the
// loader reads each rendered template as a file (helm.go), and rendered
// fields are located in the template, the helper template or the values
// file line that supplied them (helmchart.Locator).
//
// An Object gets its JSON, the positions of its fields and its YAML tree
// from one backing (backing.go), one implementation for each way objects
// are read: a document of a file or of standard input, an item of a List
// read lean, Kustomize output, a rendered Helm template. The JSON toolkit
// that reads objects' JSON without decoding it (field paths, members,
// type checks) is the leaf package loader/jsonscan.
//
// Which kustomizations are built follows kustomize build: every root once,
// Components only through the kustomizations that include them, and a
// named file through the roots that include it (kusttree.Roots,
// kusttree.RootsIncluding). kusttree parses source files with the
// loader's Parse, handed in as kusttree.Hooks, and kustomize.go turns its
// output into Objects (kustBacking), as helm.go does for charts.
//
// Most manifests are read without yaml.v3's node trees: a fast path
// (loader/internal/fastyaml) reads the YAML they are written in (block collections,
// one-line scalars and flow collections, literal and folded block scalars,
// comments) straight into each object's JSON and field positions, and
// hands every document it is not sure of (anchors, tags, multi-line plain
// or quoted scalars, tabs, duplicate keys, errors, ...) to yaml.v3, whose
// results it must equal: FuzzFastYAML holds the two to that. The items of
// a long List (a `kubectl get nodes -o yaml` of thousands of nodes is one
// document) are read by the fast path on every core, in chunks whose
// seams are checked to be where reading the List whole would put them
// (fastyaml.ReadList; FuzzListChunks). The fast path hands back each
// document's objects as values of its own, which the loader turns into
// Objects (addFast).
//
// Below the loader, and never importing it: loader/internal/yamltree (the
// yaml.v3 tree layer: field paths, the JSON kubectl reads, marks),
// loader/internal/stream (cutting streams into documents),
// loader/internal/input (reading a file within the input budget) and
// loader/internal/worker (worker processes), besides fastyaml, helmchart
// and kustomize above.
//
// Files and standard input are read as kubectl apply -f reads them
// (kubectl.go, loader/internal/stream): documents cut as apimachinery's
// YAMLReader cuts them, a stream starting with { read as JSON values, and
// every document whose JSON the loader cannot write as sigs.k8s.io/yaml
// reads it (YAML 1.1 keys, tags, aliases and merge keys, infinities)
// converted by sigs.k8s.io/yaml itself; lines kubectl reads otherwise than YAML (a
// separator followed by text, text after "...") are errors that say
// what kubectl does. FuzzStreamAsKubectl and FuzzGeneratedStreamAsKubectl
// hold both readings to kubectl's, document by document.
//
// Positions are 1-based; columns count Unicode code points, as yaml.v3 does,
// which is also what SARIF's "unicodeCodePoints" column kind means.
package loader
