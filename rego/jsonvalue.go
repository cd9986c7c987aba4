package rego

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// jsonValue converts the compact JSON loader.ToJSON writes (and
// loader.Object.JSON returns) to an OPA value, as ast.ValueFromReader
// would, without going through map[string]any. The loader keeps each
// object's JSON rather than its node tree, so this is how Rego inputs are
// made; TestJSONValueMatchesToJSON holds it to ast.ValueFromReader on
// loader.ToJSON of the object's tree (what kubectl reads).
func jsonValue(data []byte) (ast.Value, error) {
	d := jsonDecoder{data: data}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.i != len(d.data) {
		return nil, fmt.Errorf("JSON input: trailing data at offset %d", d.i)
	}
	return v, nil
}

// jsonConvertible reports whether jsonValue accepts data as far as depth
// goes (the loader's JSON is valid otherwise): findings reused from
// another object must not reach one no policy could see, nor a part of
// the document be converted alone when the whole would not be. jsonValue
// refuses a value more than maxDepth containers deep, so data passes
// when some token sits that deep; counting the brackets first settles
// nearly every document at once.
func jsonConvertible(data []byte) bool {
	if bytes.Count(data, []byte{'{'})+bytes.Count(data, []byte{'['}) <= maxDepth {
		return true // no token can sit inside more than maxDepth containers
	}
	depth := 0 // the containers the next token is in
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '}', ']':
			depth--
			continue
		case ',', ':':
			continue
		}
		if depth > maxDepth {
			return false
		}
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		}
	}
	return true
}

// maxDepth bounds the nesting of an input document: deeper ones are not
// converted (no manifest nests a thousand levels).
const maxDepth = 1000

type jsonDecoder struct {
	data []byte
	i    int
}

var errJSON = errors.New("JSON input: malformed")

func (d *jsonDecoder) value(depth int) (ast.Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxDepth)
	}
	if d.i >= len(d.data) {
		return nil, errJSON
	}
	switch c := d.data[d.i]; {
	case c == '{':
		d.i++
		obj := ast.NewObject()
		if d.peek('}') {
			return obj, nil
		}
		for {
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			if !d.peek(':') {
				return nil, errJSON
			}
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj.Insert(ast.StringTerm(k), ast.NewTerm(v))
			if d.peek('}') {
				return obj, nil
			}
			if !d.peek(',') {
				return nil, errJSON
			}
		}
	case c == '[':
		d.i++
		var terms []*ast.Term
		if d.peek(']') {
			return ast.NewArray(), nil
		}
		for {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			terms = append(terms, ast.NewTerm(v))
			if d.peek(']') {
				return ast.NewArray(terms...), nil
			}
			if !d.peek(',') {
				return nil, errJSON
			}
		}
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return ast.String(s), nil
	case d.literal("true"):
		return ast.Boolean(true), nil
	case d.literal("false"):
		return ast.Boolean(false), nil
	case d.literal("null"):
		return ast.Null{}, nil
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		for d.i < len(d.data) && strings.IndexByte("+-.0123456789eE", d.data[d.i]) >= 0 {
			d.i++
		}
		n := json.Number(d.data[start:d.i])
		if _, err := n.Float64(); err != nil && !strings.Contains(err.Error(), "range") {
			return nil, errJSON
		}
		// OPA refuses an exponent it could not print in linear time
		// (1e70000); NumberChecked is its own test of that.
		num, err := ast.NumberChecked(string(n))
		if err != nil {
			return nil, err
		}
		return num, nil
	}
	return nil, errJSON
}

// peek consumes c if it is next.
func (d *jsonDecoder) peek(c byte) bool {
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *jsonDecoder) literal(lit string) bool {
	if strings.HasPrefix(string(d.data[d.i:min(d.i+len(lit), len(d.data))]), lit) {
		d.i += len(lit)
		return true
	}
	return false
}

// str reads a JSON string; escapes go through encoding/json.
func (d *jsonDecoder) str() (string, error) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", errJSON
	}
	start, escaped := d.i, false
	for d.i++; d.i < len(d.data); d.i++ {
		switch d.data[d.i] {
		case '\\':
			escaped = true
			d.i++
		case '"':
			d.i++
			if !escaped {
				return string(d.data[start+1 : d.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(d.data[start:d.i], &s); err != nil {
				return "", errJSON
			}
			return s, nil
		}
	}
	return "", errJSON
}
