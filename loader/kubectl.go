package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

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

// yaml11Words are the plain scalars goyaml.v2 resolves by its table
// (resolveMap) to something other than a string: booleans, null,
// infinities and NaN.
var yaml11Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"n": true, "N": true, "no": true, "No": true, "NO": true,
	"true": true, "True": true, "TRUE": true,
	"false": true, "False": true, "FALSE": true,
	"on": true, "On": true, "ON": true,
	"off": true, "Off": true, "OFF": true,
	"~": true, "null": true, "Null": true, "NULL": true,
	".inf": true, ".Inf": true, ".INF": true,
	"+.inf": true, "+.Inf": true, "+.INF": true,
	"-.inf": true, "-.Inf": true, "-.INF": true,
	".nan": true, ".NaN": true, ".NAN": true,
}

// infOrNaN reports whether plain scalar v is one goyaml.v2 reads as an
// infinity or NaN, which kubectl cannot write as JSON: it refuses the
// document ("json: unsupported value: +Inf").
func infOrNaN(v []byte) bool {
	return len(v) >= 4 && (v[0] == '.' || v[1] == '.') && yaml11Words[string(v)]
}

// keyAsWritten reports whether kubectl reads the plain mapping key v as
// the string v: a key YAML 1.1 reads as a boolean (yes, on, y), a number
// (0x10, 010, 1e3) or null becomes another JSON key ("true", "16",
// "1000") or an error. It errs on the side of false, which only sends
// the document to sigs.k8s.io/yaml.
func keyAsWritten(v []byte) bool {
	switch {
	case len(v) == 0:
		return false // null
	case !resolveHint(v[0]):
		return true
	case v[0] == '~':
		return len(v) > 1
	case v[0] == '.':
		if yaml11Words[string(v)] {
			return false
		}
		_, err := strconv.ParseFloat(string(v), 64)
		return err != nil
	case (v[0] == '+' || v[0] == '-') && (len(v) == 1 || v[1] != '.' && (v[1] < '0' || v[1] > '9')):
		return true // no number follows the sign (-k, --)
	case v[0] == '+' || v[0] == '-' || v[0] >= '0' && v[0] <= '9':
		return decimal(v) || digitString(v) || digitWord(v)
	}
	return !yaml11Words[string(v)] || string(v) == "true" || string(v) == "false"
}

// asWritten reports whether writeJSON writes n as kubectl reads it, as
// far as single scalars decide: no explicit tag (!!int "3" is 3, !!binary
// is decoded, !foo is dropped), no infinity or NaN, and every mapping key
// a scalar kubectl reads as the string it is. Aliases and merge keys are
// plainTree's.
func asWritten(n *yaml.Node, depth int) bool {
	if depth > maxDepth || n.Style&yaml.TaggedStyle != 0 {
		return false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Style != 0 || !infOrNaN([]byte(n.Value))
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Style&yaml.TaggedStyle != 0 || k.Style == 0 && !keyAsWritten([]byte(k.Value)) {
				return false
			}
		}
	}
	for _, c := range n.Content {
		if !asWritten(c, depth+1) {
			return false
		}
	}
	return true
}

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

// plainString reports whether kubectl reads plain scalar v as the string
// v (not a boolean, a number or null).
func plainString(v []byte) bool {
	return keyAsWritten(v) && !decimal(v) && string(v) != "true" && string(v) != "false"
}

// kubectlString is the value of key in mapping m when kubectl reads it as
// a string, and "" otherwise: apiVersion and kind of another type are
// absent to kubectl's unstructured decoding ("Object 'Kind' is missing").
func kubectlString(m *yaml.Node, key string) string {
	if m == nil || m.Kind != yaml.MappingNode {
		return ""
	}
	_, v := lookup(m, key, 0)
	if v = deref(v); v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	if v.Style&yaml.TaggedStyle != 0 {
		// !!str, or a tag of one's own, which goyaml.v2 drops.
		if t := v.ShortTag(); t != "!!str" && strings.HasPrefix(t, "!!") {
			return ""
		}
		return v.Value
	}
	if v.Style == 0 && !plainIsString(v.Value) {
		return ""
	}
	return v.Value
}

// plainIsString reports whether kubectl reads plain scalar s as a string:
// at a glance where it can, else by kubectl's own reading.
func plainIsString(s string) bool {
	return plainString([]byte(s)) || readsAsString(s)
}

// readsAsString asks kubectl's own YAML reading whether the plain scalar
// s is a string, where plainString cannot tell at a glance (0B2 is no
// binary number: a string to goyaml.v2, so a kind).
func readsAsString(s string) bool {
	j, err := sigsyaml.YAMLToJSON([]byte(s))
	if err != nil || len(j) == 0 || j[0] != '"' {
		return false
	}
	var got string
	return json.Unmarshal(j, &got) == nil && got == s
}

// notItemsMsg is the error for an object whose items is no list.
const notItemsMsg = "items is not a list: kubectl reads an object with items as a List, and refuses it"

// notItems reports whether v, the value of an object's items, is neither
// a sequence nor null: kubectl's unstructured decoding reads every object
// with items as a List and refuses it then.
func notItems(v *yaml.Node) bool {
	v = deref(v)
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
// then, where YAML (goyaml.v2) would read the number as a string. Only a
// value with an exponent or a run of more than 300 digits can hold one,
// which a byte scan rules out first.
func numberPastFloat(v []byte) string {
	suspect, digits := false, 0
	for i, c := range v {
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits > 300 {
				suspect = true
			}
		case (c == 'e' || c == 'E') && i > 0 && i+1 < len(v) && (v[i-1] >= '0' && v[i-1] <= '9' || v[i-1] == '.'):
			suspect = true
			digits = 0
		default:
			digits = 0
		}
		if suspect {
			break
		}
	}
	if !suspect {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	for {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		if n, ok := t.(json.Number); ok {
			if _, err := strconv.ParseFloat(string(n), 64); err != nil {
				return string(n)
			}
		}
	}
}
