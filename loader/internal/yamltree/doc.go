// Package yamltree is the layer of yaml.v3 node trees under the loader and
// its Kustomize and Helm readers: parsing a document without letting a
// parser panic escape, following field paths through a tree (merge keys
// and aliases as kubectl's YAML applies them), writing a tree's JSON as
// kubectl reads it (YAML 1.1 scalars, and which plain scalars it reads as
// strings), and the packed positions of a plain tree's fields (Marks)
// that let the loader locate a field in an object's JSON without its
// tree. It knows nothing of objects or files, so that every reader of
// YAML in the loader shares one reading.
package yamltree
