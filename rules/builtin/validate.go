package builtin

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// This file is the validation core behind the taint-, toleration- and
// selector- rules. It mirrors k8s.io/kubernetes pkg/apis/core/validation
// (ValidateTolerations, validateNodeTaints, ValidateNodeSelector, …) and
// pkg/apis/node/validation at v1.37.1, check for check and in the same order,
// with the upstream apimachinery helpers doing every judgement. Each upstream
// error is kept as a *field.Error built exactly as upstream builds it (same
// constructor, same typed bad value), so its Error() text is the API
// server's; the issue around it adds the rule that reports it, the manifest
// field to point at and taintlint's own plain explanation.

// issue is one thing the API server would reject (or, with no errs, one
// thing taintlint flags beyond it), as one finding.
type issue struct {
	rule string
	obj  *loader.Object
	// path is the manifest field the finding points at (the CONTRACT's
	// path convention), which is not always the one the API server names.
	path *field.Path
	// msg says plainly what is wrong and how to fix it.
	msg string
	// errs are the API server's errors behind the finding, in its order.
	errs field.ErrorList
}

// message is msg followed by the API server's own words.
func (is issue) message() string {
	if len(is.errs) == 0 {
		return is.msg
	}
	texts := make([]string, len(is.errs))
	for i, e := range is.errs {
		texts[i] = e.Error()
	}
	return is.msg + " (API server: " + strings.Join(texts, "; ") + ")"
}

// issueSource is the prerequisite that computes every issue of one
// family for a run, once, for every rule of the family.
type issueSource = *rules.Prerequisite

// issues is the issueSource of compute.
func issues(name string, compute func(*rules.Input) []issue) issueSource {
	return &rules.Prerequisite{
		Name: name,
		Run:  func(p *rules.PrereqPass) (any, error) { return compute(p.Input), nil },
	}
}

// validationRule is a rule that reports the issues of src carrying its id.
func validationRule(r rules.Rule, src issueSource) *rules.Rule {
	id := r.ID
	r.Requires = []*rules.Prerequisite{src}
	r.Run = func(p *rules.Pass) error {
		for _, is := range p.ResultOf[src].([]issue) {
			if is.rule == id {
				p.Reportf(is.obj, is.path, "%s", is.message())
			}
		}
		return nil
	}
	return rule(r)
}

// apiErrors flattens issues into the error list the API server would
// return, for tests that compare with upstream's exact output.
func apiErrors(issues []issue) field.ErrorList {
	var out field.ErrorList
	for _, is := range issues {
		out = append(out, is.errs...)
	}
	return out
}

// decodeGuard keeps rules quiet about fields whose values did not fit
// their types: parse-error reports those, the decoder left them zero, and
// judging the zero value would report a second, wrong problem (an empty
// key where the manifest has key: 5).
type decodeGuard map[*loader.Object][]string

func newDecodeGuard(in *rules.Input) decodeGuard {
	g := decodeGuard{}
	for _, d := range in.DecodeIssues {
		g[d.Object] = append(g[d.Object], d.Path)
	}
	return g
}

// clean reports whether every value of obj decoded (ok holds at any path).
func (g decodeGuard) clean(obj *loader.Object) bool {
	_, bad := g[obj]
	return !bad
}

// ok reports whether the value at path decoded cleanly. A decode error
// stops at the first bad field of an object, so for an object with any
// issue the value is decoded again on its own into into, which must be a
// pointer to the field's type.
func (g decodeGuard) ok(obj *loader.Object, path *field.Path, into any) bool {
	issues, bad := g[obj]
	if !bad {
		return true
	}
	p := path.String()
	for _, q := range issues {
		if q == "" || q == p || within(q, p) || within(p, q) {
			return false
		}
	}
	return obj.Decode(p, into) == nil
}

// within reports whether field path p lies inside field path parent.
func within(p, parent string) bool {
	return strings.HasPrefix(p, parent) && len(p) > len(parent) && (p[len(parent)] == '.' || p[len(parent)] == '[')
}

// explainLabelKey says in plain words why IsQualifiedName rejected key,
// from its messages.
func explainLabelKey(key string, msgs []string) string {
	name := key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		name = key[i+1:]
	}
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	for _, m := range msgs {
		switch {
		case strings.HasPrefix(m, "a valid label key"):
			add(fmt.Sprintf(`it has %d "/"; a key is a name with an optional DNS subdomain prefix and a single "/" (like example.com/name)`, strings.Count(key, "/")))
		case m == "prefix part must be non-empty":
			add(`nothing comes before the "/": drop the "/", or put a domain before it`)
		case strings.HasPrefix(m, "prefix part must be no more than"):
			add(fmt.Sprintf(`the prefix before "/" is %d bytes, over the limit of 253`, strings.IndexByte(key, '/')))
		case strings.HasPrefix(m, "prefix part"):
			prefix := key[:strings.IndexByte(key, '/')]
			s := fmt.Sprintf("the prefix %q must be a lower-case DNS subdomain (a-z, 0-9, '-' and '.', starting and ending with a letter or digit)", prefix)
			if lp := strings.ToLower(prefix); lp != prefix && len(validLabelKey(lp+"/"+name)) == 0 {
				s += fmt.Sprintf(", as in %q", lp+"/"+name)
			}
			add(s)
		case m == "name part must be non-empty":
			if key == "" {
				add("the key is empty")
			} else {
				add(`nothing comes after the "/"`)
			}
		case strings.HasPrefix(m, "name part must be no more than"):
			add(fmt.Sprintf("the name part is %d bytes, over the limit of 63", len(name)))
		case strings.HasPrefix(m, "name part must consist"):
			if name == "" {
				continue // already said: empty
			}
			add(fmt.Sprintf("the name %q may hold only letters, digits, '-', '_' and '.', and must start and end with a letter or digit (%s)", name, badCharHint(name)))
		default:
			add(m)
		}
	}
	return strings.Join(out, "; ")
}

// explainLabelValue says in plain words why IsValidLabelValue rejected v.
func explainLabelValue(v string, msgs []string) string {
	var out []string
	for _, m := range msgs {
		switch {
		case strings.HasPrefix(m, "must be no more than"):
			out = append(out, fmt.Sprintf("it is %d bytes, over the limit of 63", len(v)))
		case strings.HasPrefix(m, "a valid label must"):
			out = append(out, fmt.Sprintf("a label value may hold only letters, digits, '-', '_' and '.', and must start and end with a letter or digit (%s)", badCharHint(v)))
		default:
			out = append(out, m)
		}
	}
	return strings.Join(out, "; ")
}

// labelValueLike suggests a valid label value close to v: runs of other
// characters become '-', and the ends are trimmed to letters or digits. It
// returns "" when nothing is left.
func labelValueLike(v string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if isAlnum(c) || c == '-' || c == '_' || c == '.' {
			b.WriteByte(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := b.String()
	if len(out) > 63 {
		out = out[:63]
	}
	out = strings.Trim(out, "-_.")
	if len(validation.IsValidLabelValue(out)) > 0 {
		return ""
	}
	return out
}

// badCharHint names the first thing that breaks the label regex in s.
func badCharHint(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			if r == utf8.RuneError {
				return "it is not valid UTF-8"
			}
			return fmt.Sprintf("it contains %q", r)
		}
	}
	if s != "" && !isAlnum(s[0]) {
		return fmt.Sprintf("it starts with %q", s[0])
	}
	if s != "" && !isAlnum(s[len(s)-1]) {
		return fmt.Sprintf("it ends with %q", s[len(s)-1])
	}
	return "it does not match"
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// sortedKeys returns a map's keys in order, so findings come out the same
// on every run (the API server walks the map in random order).
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validLabelKey is upstream's judgement of a label key (IsQualifiedName).
func validLabelKey(k string) []string { return validation.IsQualifiedName(k) }
