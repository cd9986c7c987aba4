package rego

import (
	"maps"
	"slices"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
)

// usesFacts reports whether the package at path, or any package it
// imports (transitively), refers to input.facts, to input as a whole, or
// to input with a computed key. Objects are given facts only when a rule
// that looks at them may read them: computing them is most of the cost of
// an input document.
func usesFacts(c *ast.Compiler, path ast.Ref) bool {
	return usesInput(inputUses(c), path, func(m *moduleUses) bool { return m.facts })
}

// usesNodeGroups is usesFacts for input.facts.nodeGroups: facts are given
// node groups only when a rule that looks at the object may read them.
func usesNodeGroups(c *ast.Compiler, path ast.Ref) bool {
	return usesInput(inputUses(c), path, func(m *moduleUses) bool { return m.groups })
}

// moduleUses is what a compiled module reads, for usesInput: found once
// for all the rules of a compile, not walked again for each.
type moduleUses struct {
	path          ast.Ref
	facts, groups bool      // refers to input.facts, input.facts.nodeGroups (refMentions)
	deps          []ast.Ref // the constant prefixes of its data refs
}

// inputUses is what each module of c reads.
func inputUses(c *ast.Compiler) []*moduleUses {
	out := make([]*moduleUses, 0, len(c.Modules))
	for _, name := range slices.Sorted(maps.Keys(c.Modules)) {
		m := c.Modules[name]
		u := &moduleUses{path: m.Package.Path}
		ast.WalkRefs(m, func(r ast.Ref) bool {
			u.facts = u.facts || refMentions(r, keyFacts)
			u.groups = u.groups || refMentions(r, keyFacts, keyNodeGroups)
			// Imports are resolved by now: the data refs are the
			// packages (and rules) it uses.
			if r[0].Equal(ast.DefaultRootDocument) {
				u.deps = append(u.deps, r.ConstantPrefix())
			}
			return false
		})
		out = append(out, u)
	}
	return out
}

// usesInput reports whether a module of the package at path, or of a
// package it uses (transitively), mentions what mentions looks for.
func usesInput(mods []*moduleUses, path ast.Ref, mentions func(*moduleUses) bool) bool {
	seen := map[string]bool{}
	var visit func(p ast.Ref) bool
	visit = func(p ast.Ref) bool {
		if seen[p.String()] {
			return false
		}
		seen[p.String()] = true
		for _, m := range mods {
			if !m.path.HasPrefix(p) && !p.HasPrefix(m.path) {
				continue
			}
			if mentions(m) {
				return true
			}
			for _, d := range m.deps {
				if visit(d) {
					return true
				}
			}
		}
		return false
	}
	return visit(path)
}

// inputReads returns the parts of the input the deny rules of the package
// at path, and every rule they refer to (transitively), read: each an input
// key with the constant keys and indexes that follow it (input.podSpec.
// tolerations), none below another. ok is false when the rules read the
// input in a way such a list cannot say: input as a whole, input with a
// computed key, or a with modifier. The deny set is then a function of
// the values at those paths alone (policies reach no clock, network or
// randomness), which is what lets evaluate reuse findings.
func inputReads(c *ast.Compiler, path ast.Ref) (reads []ast.Ref, ok bool) {
	seen := map[*ast.Rule]bool{}
	ok = true
	var visit func(rs []*ast.Rule)
	visit = func(rs []*ast.Rule) {
		for _, r := range rs {
			if !ok || seen[r] {
				continue
			}
			seen[r] = true
			var deps []ast.Ref
			ast.WalkExprs(r, func(e *ast.Expr) bool {
				if len(e.With) > 0 {
					ok = false
				}
				return !ok
			})
			elems := elementVars(r)
			ast.WalkRefs(r, func(ref ast.Ref) bool {
				switch {
				case !ok:
				case ref[0].Equal(ast.InputRootDocument):
					if len(ref) < 2 {
						ok = false
						break
					}
					if _, isStr := ref[1].Value.(ast.String); !isStr {
						ok = false
						break
					}
					if suffixes, bound := elems[ref.String()]; bound {
						// V = input.p[K], V read only as V.a.b: input.p[*].a.b
						for _, s := range suffixes {
							reads = append(reads, append(ref[:len(ref)-1:len(ref)-1].Copy(), append(ast.Ref{anyElement}, s...)...))
						}
						break
					}
					reads = append(reads, constantPath(ref))
				case ref[0].Equal(ast.DefaultRootDocument):
					deps = append(deps, ref.ConstantPrefix())
				}
				return !ok
			})
			for _, d := range deps {
				visit(c.GetRules(d))
			}
		}
	}
	visit(c.GetRules(path.Append(ast.StringTerm("deny"))))
	if !ok {
		return nil, false
	}
	return minimalPaths(reads), true
}

// constantPath is ref up to its first part that is not a string or an
// integer constant; a variable that stands for any element of an input
// list or object (input.p[K].a, K not bound before) becomes anyElement
// when constant keys follow it, the part after it up to the next that
// is not a string constant.
func constantPath(ref ast.Ref) ast.Ref {
	for i, t := range ref {
		switch v := t.Value.(type) {
		case ast.String:
			continue
		case ast.Number:
			if _, isInt := v.Int(); isInt && i > 1 {
				continue
			}
		case ast.Var:
			if i == 0 {
				continue
			}
			// A superset of what a bound K reads: exact for memo keys,
			// and a pruned document keeps every element's keys.
			if i > 1 && i+1 < len(ref) && isString(ref[i+1]) {
				j := i + 1
				for j < len(ref) && isString(ref[j]) {
					j++
				}
				out := ref[:j].Copy()
				out[i] = anyElement
				return out
			}
		}
		return ref[:i].Copy()
	}
	return ref.Copy()
}

// anyElement stands in a read path for every element of the list (or
// object) before it: input.podSpec.volumes[*].hostPath.path is the
// hostPath.path of each volume. No variable of a policy has its name.
var anyElement = ast.VarTerm("*")

func isString(t *ast.Term) bool {
	_, ok := t.Value.(ast.String)
	return ok
}

// elementVars finds in r the variables bound to an element of an input
// list or object, V = input.p[K] (some V in input.p, as compiled), that r
// reads only through constant keys (V.a.b), at least once: for each, by
// the binding's input ref, the key paths read below V. Any other use of
// V (V itself, V[x], V passed to a function), or none (the rule counts
// the elements, or reads K alone), leaves it out: the whole input.p is
// read then.
func elementVars(r *ast.Rule) map[string][]ast.Ref {
	type binding struct {
		ref      ast.Ref
		suffixes []ast.Ref
		uses     int // occurrences besides the binding
		bad      bool
	}
	bound := map[ast.Var]*binding{}
	ast.WalkExprs(r, func(e *ast.Expr) bool {
		if !e.IsEquality() || len(e.Operands()) != 2 {
			return false
		}
		a, b := e.Operand(0), e.Operand(1)
		if _, isRef := a.Value.(ast.Ref); isRef {
			a, b = b, a
		}
		v, isVar := a.Value.(ast.Var)
		ref, isRef := b.Value.(ast.Ref)
		if !isVar || !isRef || !v.IsGenerated() || len(ref) < 3 || !ref[0].Equal(ast.InputRootDocument) {
			return false
		}
		if _, last := ref[len(ref)-1].Value.(ast.Var); !last {
			return false
		}
		for _, t := range ref[1 : len(ref)-1] {
			if !isString(t) {
				return false
			}
		}
		if _, twice := bound[v]; twice {
			bound[v] = &binding{bad: true}
			return false
		}
		bound[v] = &binding{ref: ref}
		return false
	})
	if len(bound) == 0 {
		return nil
	}
	ast.WalkRefs(r, func(ref ast.Ref) bool {
		v, isVar := ref[0].Value.(ast.Var)
		b := bound[v]
		if !isVar || b == nil {
			return false
		}
		b.uses++
		j := 1
		for j < len(ref) && isString(ref[j]) {
			j++
		}
		if j == 1 || j < len(ref) {
			b.bad = true // V[x], or a computed key below V
			return false
		}
		b.suffixes = append(b.suffixes, ref[1:].Copy())
		return false
	})
	counts := map[ast.Var]int{}
	ast.WalkVars(r, func(v ast.Var) bool {
		if bound[v] != nil {
			counts[v]++
		}
		return false
	})
	out := map[string][]ast.Ref{}
	for v, b := range bound {
		// Without a key read below V the rule reads something else of
		// the list (how long it is, its keys): the whole list, then.
		if b.bad || b.uses == 0 || counts[v] != b.uses+1 {
			continue
		}
		out[b.ref.String()] = b.suffixes
	}
	return out
}

// minimalPaths sorts and de-duplicates paths, dropping those below another.
func minimalPaths(ps []ast.Ref) []ast.Ref {
	sort.Slice(ps, func(i, j int) bool { return ps[i].Compare(ps[j]) < 0 })
	var out []ast.Ref
	for _, p := range ps {
		if len(out) > 0 && p.HasPrefix(out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// refMentions reports whether r is input.<path...>, a part of input above
// it as a whole, or input with a computed key on the way.
func refMentions(r ast.Ref, path ...string) bool {
	if !r[0].Equal(ast.InputRootDocument) {
		return false
	}
	for i, key := range path {
		if len(r) == i+1 {
			return true
		}
		if s, ok := r[i+1].Value.(ast.String); !ok || string(s) != key {
			return !ok
		}
	}
	return true
}
