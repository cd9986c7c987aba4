package rego

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// denied are built-in functions a policy may not call, whatever OPA says
// about them: they reach the network (http.send, net.lookup_ip_addr), the
// process and its configuration (opa.runtime), the clock or randomness
// (time.now_ns, rand.intn, uuid.rfc4122, the io.jwt functions that sign or
// check expiry), or may load files and URLs through a JSON schema's $ref
// (json.verify_schema, json.match_schema). A linter's findings must depend
// on the manifests alone, and the same input must give the same output.
var denied = []string{
	"http.send",
	"net.lookup_ip_addr",
	"opa.runtime",
	"time.now_ns",
	"rand.intn",
	"uuid.rfc4122",
	"io.jwt.decode_verify",
	"io.jwt.encode_sign",
	"io.jwt.encode_sign_raw",
	"json.verify_schema",
	"json.match_schema",
}

// capabilities is this OPA version's language without the denied
// built-ins and without anything OPA itself marks non-deterministic (so a
// future OPA that adds such a built-in does not widen what policies can
// reach). AllowNet is empty, not nil: no host may be contacted, not even
// for a schema the type checker would fetch.
//
// It is built from the in-memory built-in table (a clone and a filter,
// microseconds), never from OPA's embedded capability JSON files.
func capabilities() *ast.Capabilities {
	c := ast.CapabilitiesForThisVersion(ast.CapabilitiesRegoVersion(ast.RegoV1))
	c.Builtins = slices.DeleteFunc(c.Builtins, func(b *ast.Builtin) bool {
		return b.Nondeterministic || slices.Contains(denied, b.Name)
	})
	c.AllowNet = []string{}
	return c
}

// isDenied reports whether name is a built-in taken away from policies,
// so the "undefined function" error can say why.
func isDenied(name string, all []*ast.Builtin) bool {
	if slices.Contains(denied, name) {
		return true
	}
	for _, b := range all {
		if b.Name == name && b.Nondeterministic {
			return true
		}
	}
	return false
}
