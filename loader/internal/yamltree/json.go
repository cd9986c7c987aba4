package yamltree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// MaxAliasExpansion bounds how many nodes alias expansion may produce while
// converting one object to JSON, so a "billion laughs" document costs
// bounded time and memory.
const MaxAliasExpansion = 1_000_000

// JSON is n as sigs.k8s.io/yaml converts it for kubectl (plain scalars
// resolve with YAML 1.1 booleans, aliases and merge keys are expanded
// within MaxAliasExpansion, map keys become strings), followed by tail,
// into a buffer of about sizeHint bytes; the result is trimmed to its
// length when the buffer grew well past it, since the loader keeps it
// for the whole run.
func JSON(n *yaml.Node, sizeHint int, tail []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(sizeHint)
	budget := MaxAliasExpansion
	if err := writeJSON(&b, n, &budget, 0); err != nil {
		return nil, err
	}
	b.Write(tail)
	out := b.Bytes()
	if cap(out)-len(out) > len(out)/8 {
		out = bytes.Clone(out)
	}
	return out, nil
}

// MaxDepth bounds the nesting every walk of a tree follows, so that a
// hostile document cannot exhaust the stack.
const MaxDepth = 1000

// writeJSON writes n to b as JSON does, within budget nodes.
func writeJSON(b *bytes.Buffer, n *yaml.Node, budget *int, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("nesting deeper than %d levels", MaxDepth)
	}
	*budget--
	if *budget < 0 {
		return fmt.Errorf("alias expansion exceeds %d nodes", MaxAliasExpansion)
	}
	if n == nil {
		b.WriteString("null")
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeJSON(b, n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		return writeJSON(b, n.Alias, budget, depth+1)
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c, budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.MappingNode:
		pairs, err := mappingPairs(n, budget, 0)
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, p := range pairs {
			if i > 0 {
				b.WriteByte(',')
			}
			WriteString(b, p.key)
			b.WriteByte(':')
			if err := writeJSON(b, p.val, budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		if n.Style == 0 && InfOrNaN([]byte(n.Value)) {
			// As kubectl: JSON has no infinity or NaN (InfOrNaN).
			return fmt.Errorf("json: unsupported value: %s", n.Value)
		}
		WriteScalar(b, n)
		return nil
	}
	b.WriteString("null")
	return nil
}

type pair struct {
	key string
	val *yaml.Node
}

// mappingPairs lists a mapping's entries with merge keys applied as
// kubectl's YAML (sigs.k8s.io/yaml, goyaml.v2) applies them: in order,
// each entry, an explicit key or the keys a merge brings, overrides the
// same key before it, so a merge written after an explicit key wins over
// it (YAML 1.2 and yaml.v3 let explicit keys win wherever they stand); of
// a sequence of merged mappings, the earlier win. The last duplicate wins.
func mappingPairs(n *yaml.Node, budget *int, depth int) ([]pair, error) {
	if depth > 64 {
		return nil, fmt.Errorf("merge keys nested deeper than 64 levels")
	}
	// writes are the entries in the order goyaml.v2 writes them into the
	// map; the last write of a key is its value.
	var writes []pair
	merged := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			src := Deref(v)
			if src == nil {
				continue
			}
			merged = true
			srcs := []*yaml.Node{src}
			if src.Kind == yaml.SequenceNode {
				srcs = src.Content
			}
			// goyaml.v2 merges a sequence's mappings from the last, so
			// that the earlier override the later.
			for j := len(srcs) - 1; j >= 0; j-- {
				s := Deref(srcs[j])
				if s == nil || s.Kind != yaml.MappingNode {
					return nil, fmt.Errorf("line %d: merge key << needs a mapping", k.Line)
				}
				*budget -= len(s.Content)
				if *budget < 0 {
					return nil, fmt.Errorf("alias expansion exceeds %d nodes", MaxAliasExpansion)
				}
				ps, err := mappingPairs(s, budget, depth+1)
				if err != nil {
					return nil, err
				}
				writes = append(writes, ps...)
			}
			continue
		}
		key := k.Value
		if kk := Deref(k); kk != nil && kk.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a map key must be a scalar", k.Line)
		} else if kk != nil {
			key = kk.Value
		}
		writes = append(writes, pair{key, v})
	}
	if !merged && !hasDup(writes) {
		return writes, nil
	}
	// One entry per key, where the key first stands, with its last value.
	seen := make(map[string]int, len(writes))
	out := writes[:0:0]
	for _, p := range writes {
		if i, ok := seen[p.key]; ok {
			out[i] = p
			continue
		}
		seen[p.key] = len(out)
		out = append(out, p)
	}
	return out, nil
}

func hasDup(ps []pair) bool {
	if len(ps) < 2 {
		return false
	}
	if len(ps) < 16 {
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				if ps[i].key == ps[j].key {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(ps))
	for _, p := range ps {
		if _, ok := seen[p.key]; ok {
			return true
		}
		seen[p.key] = struct{}{}
	}
	return false
}

// yaml11Bool are the plain scalars YAML 1.1 (and so kubectl) reads as booleans.
var yaml11Bool = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"on": true, "On": true, "ON": true, "true": true, "True": true, "TRUE": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"off": false, "Off": false, "OFF": false, "false": false, "False": false, "FALSE": false,
}

// WriteScalar writes scalar n as kubectl's YAML 1.1 reading makes it.
func WriteScalar(b *bytes.Buffer, n *yaml.Node) {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		WriteString(b, n.Value)
		return
	}
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			b.WriteString(strconv.FormatInt(i, 10))
			return
		}
		if u, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			b.WriteString(strconv.FormatUint(u, 10))
			return
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			// As encoding/json writes it for kubectl: 0080000000 is
			// 80000000, an integer to the JSON decoder, not 8e+07.
			if j, err := json.Marshal(f); err == nil {
				b.Write(j)
				return
			}
		}
	case "!!bool":
		if v, ok := yaml11Bool[n.Value]; ok {
			b.WriteString(strconv.FormatBool(v))
			return
		}
	case "!!str":
		// yaml.v3 reads yes/no/on/off as strings (YAML 1.2); kubectl's
		// YAML 1.1 reads them as booleans, and so must we.
		if n.Style == 0 {
			if v, ok := yaml11Bool[n.Value]; ok {
				b.WriteString(strconv.FormatBool(v))
				return
			}
		}
	}
	WriteString(b, n.Value)
}

// WriteString writes s as a JSON string, as encoding/json writes it.
func WriteString(b *bytes.Buffer, s string) {
	if plainJSON(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc, err := json.Marshal(s)
	if err != nil { // invalid UTF-8 is replaced by json.Marshal, never an error
		enc = []byte(strconv.Quote(s))
	}
	b.Write(enc)
}

// WriteStringBytes is writeString of s's bytes, without a copy for the
// usual string that needs no escaping.
func WriteStringBytes(b *bytes.Buffer, s []byte) {
	if plainJSON(s) {
		b.WriteByte('"')
		b.Write(s)
		b.WriteByte('"')
		return
	}
	WriteString(b, string(s))
}

// plainJSON reports whether s is written in JSON as it is, between
// quotes: json.Marshal escapes control characters, quotes, backslashes,
// <, > and &, and replaces invalid UTF-8.
func plainJSON[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// AsWritten reports whether JSON writes n as kubectl reads it, as
// far as single scalars decide: no explicit tag (!!int "3" is 3, !!binary
// is decoded, !foo is dropped), no infinity or NaN, and every mapping key
// a scalar kubectl reads as the string it is. Aliases and merge keys are
// Plain's.
func AsWritten(n *yaml.Node, depth int) bool {
	if depth > MaxDepth || n.Style&yaml.TaggedStyle != 0 {
		return false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Style != 0 || !InfOrNaN([]byte(n.Value))
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Style&yaml.TaggedStyle != 0 || k.Style == 0 && !KeyAsWritten([]byte(k.Value)) {
				return false
			}
		}
	}
	for _, c := range n.Content {
		if !AsWritten(c, depth+1) {
			return false
		}
	}
	return true
}
