// Package fastyaml is the loader's fast path: it reads the YAML that
// manifests are written in (block mappings and sequences, plain and
// quoted scalars on one line, literal and folded block scalars, flow
// collections on one line, comments) straight into a small tree of its
// own, and from it each object's JSON and the positions of its fields
// (Doc), which the loader turns into Objects: yaml.v3 builds tokens,
// events and a node per scalar first, which cost the bulk of a run.
//
// It gives up on anything it is not sure of (anchors, tags, multi-line
// flow or plain scalars, tabs, CR line ends, duplicate keys, a document
// that is not a mapping, anything yaml.v3 would reject), and the loader
// reads such a document with yaml.v3: the fast path decides only how fast
// a document is read, never what it says. The loader's FuzzFastYAML holds
// the two paths to the same results, and its FuzzListChunks holds a long
// List read in chunks on every core (ReadList) to the List read whole.
//
// Items of one kind of List can be read lean (Lean): only a few members
// are kept, and the rest is read again from the List when first asked for.
//
// It imports no loader package but yamltree and stream, so that the
// loader and its tests drive it and it knows nothing of files or Objects.
package fastyaml
