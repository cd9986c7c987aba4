package loader

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/taintlint/taintlint/loader/internal/yamltree"
	"github.com/taintlint/taintlint/loader/jsonscan"
	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// The loader writes the JSON of the documents it reads itself (the fast
// path, and yaml.v3 trees through writeJSON) only where that JSON is what
// kubectl's YAML (sigs.k8s.io/yaml: goyaml.v2, YAML 1.1) makes of the
// same bytes. Every other document gets its JSON, or its error, from
// sigs.k8s.io/yaml itself: tags, keys that YAML 1.1 reads as booleans,
// numbers or null, infinities and NaN, aliases and merge keys.

// kubectlReading is the JSON kubectl reads from one document, made once for
// all the objects of the document that need it.
type kubectlReading struct {
	data []byte
	json []byte
	err  error
	done bool
}

// object is the JSON of the document's object, or of its List's item
// (item >= 0), as kubectl reads it, or why kubectl cannot read it.
func (k *kubectlReading) object(item int) ([]byte, error) {
	if !k.done {
		k.json, k.err = kubectlYAMLToJSON(k.data)
		k.done = true
	}
	if k.err != nil || item < 0 {
		return k.json, k.err
	}
	j, found, ok := jsonscan.Walk(k.json, "items", item)
	if !found || !ok {
		return nil, errors.New("kubectl reads no such List item")
	}
	if string(j) == "null" {
		return []byte("{}"), nil // decodeToList's object with no fields (listItems)
	}
	return j, nil
}

// kubectlYAMLToJSON is sigs.k8s.io/yaml's YAMLToJSON, which kubectl reads each
// document with, with a panic turned into an error: it sees hostile bytes.
func kubectlYAMLToJSON(data []byte) (j []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			j, err = nil, fmt.Errorf("yaml: parser failed: %v", p)
		}
	}()
	j, err = sigsyaml.YAMLToJSON(data)
	if err != nil && strings.HasPrefix(err.Error(), "unsupported map key of type") {
		// Its text names the key and value Go's map order met first.
		err = errors.New("a mapping key that is null or a number past int64: kubectl cannot write it as JSON")
	}
	return j, err
}

// kubectlString is the value of key in mapping m when kubectl reads it as
// a string, and "" otherwise: apiVersion and kind of another type are
// absent to kubectl's unstructured decoding ("Object 'Kind' is missing").
func kubectlString(m *yaml.Node, key string) string {
	if m == nil || m.Kind != yaml.MappingNode {
		return ""
	}
	_, v := yamltree.Lookup(m, key, 0)
	if v = yamltree.Deref(v); v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	if v.Style&yaml.TaggedStyle != 0 {
		// !!str, or a tag of one's own, which goyaml.v2 drops.
		if t := v.ShortTag(); t != "!!str" && strings.HasPrefix(t, "!!") {
			return ""
		}
		return v.Value
	}
	if v.Style == 0 && !yamltree.PlainIsString(v.Value) {
		return ""
	}
	return v.Value
}

// notItems reports whether v, the value of an object's items, is neither
// a sequence nor null: kubectl's unstructured decoding reads every object
// with items as a List and refuses it then.
func notItems(v *yaml.Node) bool {
	v = yamltree.Deref(v)
	return v != nil && v.Kind != yaml.SequenceNode && !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null")
}

// bareTag reports whether data may hold the non-specific tag ! on an
// empty node ("key: !"): goyaml.v2, and so kubectl, reads it as the empty
// string, while yaml.v3 drops the tag and reads null, so that no node
// shows it. Any ! standing alone sends the document to kubectl's own
// reading (a quoted "wow !" too, which costs time, not truth).
func bareTag(data []byte) bool {
	for i := bytes.IndexByte(data, '!'); i >= 0; {
		before := i == 0 || strings.IndexByte(" \t\n\r-:,[{", data[i-1]) >= 0
		after := i+1 == len(data) || strings.IndexByte(" \t\n\r,]}", data[i+1]) >= 0
		if before && after {
			return true
		}
		j := bytes.IndexByte(data[i+1:], '!')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// numberPastFloat returns the first number of JSON value v that is past
// float64's range (1e700), or "": kubectl's unstructured decoding reads
// every JSON number as an int64 or a float64 and refuses the document
// then, where YAML (goyaml.v2) would read the number as a string. v is
// valid JSON (decoded before), so one pass that skips strings finds its
// numbers; only one with an exponent or more than 300 digits is parsed.
func numberPastFloat(v []byte) string {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			for i++; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' {
					i++
				}
			}
		case c == '-' || c >= '0' && c <= '9':
			start, exp := i, false
			for ; i < len(v) && strings.IndexByte("+-.0123456789eE", v[i]) >= 0; i++ {
				exp = exp || v[i] == 'e' || v[i] == 'E'
			}
			if n := v[start:i]; exp || len(n) > 300 {
				if _, err := strconv.ParseFloat(string(n), 64); err != nil {
					return string(n)
				}
			}
			i-- // the byte after the number is looked at again
		}
	}
	return ""
}
