package yamltree

import (
	"encoding/json"
	"strconv"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

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

// InfOrNaN reports whether plain scalar v is one goyaml.v2 reads as an
// infinity or NaN, which kubectl cannot write as JSON: it refuses the
// document ("json: unsupported value: +Inf").
func InfOrNaN(v []byte) bool {
	return len(v) >= 4 && (v[0] == '.' || v[1] == '.') && yaml11Words[string(v)]
}

// KeyAsWritten reports whether kubectl reads the plain mapping key v as
// the string v: a key YAML 1.1 reads as a boolean (yes, on, y), a number
// (0x10, 010, 1e3) or null becomes another JSON key ("true", "16",
// "1000") or an error. It errs on the side of false, which only sends
// the document to sigs.k8s.io/yaml.
func KeyAsWritten(v []byte) bool {
	switch {
	case len(v) == 0:
		return false // null
	case !ResolveHint(v[0]):
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
		return Decimal(v) || DigitString(v) || DigitWord(v)
	}
	return !yaml11Words[string(v)] || string(v) == "true" || string(v) == "false"
}

// plainString reports whether kubectl reads plain scalar v as the string
// v (not a boolean, a number or null).
func plainString(v []byte) bool {
	return KeyAsWritten(v) && !Decimal(v) && string(v) != "true" && string(v) != "false"
}

// ResolveHint reports whether yaml.v3's resolve looks past the first byte
// c of a plain scalar (its resolveTable): any other first byte makes a
// string.
func ResolveHint(c byte) bool {
	switch c {
	case '+', '-', '.', '~', 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O':
		return true
	}
	return c >= '0' && c <= '9'
}

// DigitString reports whether yaml.v3 resolves v, a plain scalar, to a
// string for a reason seen at a glance: it starts with a digit (so
// resolve tries a timestamp, an int and a float, and no entry of its
// table of words) and holds a byte none of those can (a unit: 3920m,
// 16Gi), or only digits and more than one dot (an address: 10.0.0.1).
func DigitString(v []byte) bool {
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return false
	}
	dots, other := 0, false
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
		case c == '.':
			dots++
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || strings.IndexByte("xXoO_+-:tTzZ ", c) >= 0:
			other = true // in hex, a base prefix, a sign, an exponent or a timestamp
		default:
			return true
		}
	}
	return dots > 1 && !other
}

// DigitWord reports whether yaml.v3 resolves v, a plain scalar, to a
// string because it starts with a digit and holds a byte that no int,
// float or timestamp resolve tries can hold (a UUID, a boot ID: 6f1c0000-
// 0d1e-4b6a-...): resolve looks for a timestamp only after four digits
// and a '-', and with no base prefix (0x, 0o, 0b) and no underscore (which
// it drops before reading a number), an int or a float has only digits,
// dots, signs and exponents.
func DigitWord(v []byte) bool {
	if len(v) < 2 || v[0] < '0' || v[0] > '9' || v[0] == '0' && strings.IndexByte("xXoObB", v[1]) >= 0 {
		return false
	}
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 4 && i < len(v) && v[i] == '-' {
		return false // maybe a timestamp
	}
	word := false
	for _, c := range v {
		switch {
		case c == '_':
			return false
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-':
		default:
			word = true
		}
	}
	return word
}

// Decimal reports whether v is "0" or a decimal of at most 18 digits
// without a leading zero: an int (no timestamp has fewer than 4 digits
// before a '-') that fits int64 and is printed back as it is.
func Decimal(v []byte) bool {
	if len(v) == 0 || len(v) > 18 || v[0] == '0' && len(v) > 1 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// PlainIsString reports whether kubectl reads plain scalar s as a string:
// at a glance where it can, else by kubectl's own reading.
func PlainIsString(s string) bool {
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
