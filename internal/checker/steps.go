package checker

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/taintlint/taintlint/loader"
	"github.com/taintlint/taintlint/rules"
)

// Annotation keys for in-source suppression (contract: Suppression).
const (
	IgnoreCheckPrefix = "ignore-check.taintlint.io/"
	IgnoreAll         = "taintlint.io/ignore-all"
)

// step is one post-processing stage over all findings.
type step func([]rules.Finding) []rules.Finding

// steps lists the post-processing stages in the order they must run:
// severities are final before suppression looks at them, suppression marks
// before de-duplication so a suppressed twin cannot hide a live finding, and
// sorting comes last. A baseline (internal/lint) applies to what they leave.
func steps(opts Options, in *rules.Input, files []string, res *Result) []step {
	return []step{
		overrideSeverity(opts.Severity),
		suppressByAnnotation(in, opts.Rules, res),
		suppressInline(opts, files, in, res),
		suppressByConfig(opts.Suppress),
		dedupe,
		sortFindings,
	}
}

func overrideSeverity(over map[string]rules.Severity) step {
	return func(fs []rules.Finding) []rules.Finding {
		if len(over) == 0 {
			return fs
		}
		for i := range fs {
			if s, ok := over[fs[i].Rule]; ok {
				fs[i].Severity = s
			}
		}
		return fs
	}
}

func suppressByAnnotation(in *rules.Input, all []*rules.Rule, res *Result) step {
	return func(fs []rules.Finding) []rules.Finding {
		type marks struct {
			all   *string
			rules map[string]string
		}
		known := map[string]bool{}
		for _, r := range all {
			known[r.ID] = true
		}
		byRef := map[loader.Ref][]marks{}
		for _, obj := range in.Objects {
			if !mayMark(obj) {
				continue
			}
			var meta struct {
				Annotations map[string]string `json:"annotations"`
			}
			if err := obj.Decode("metadata", &meta); err != nil || len(meta.Annotations) == 0 {
				continue
			}
			m := marks{rules: map[string]string{}}
			keys := make([]string, 0, len(meta.Annotations))
			for k := range meta.Annotations {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v := meta.Annotations[k]
				switch {
				case k == IgnoreAll:
					m.all = &v
				case strings.HasPrefix(k, IgnoreCheckPrefix):
					id := strings.TrimPrefix(k, IgnoreCheckPrefix)
					if !known[id] {
						pos, _ := obj.Locate("metadata.annotations[" + k + "]")
						res.Warnings = append(res.Warnings, fmt.Sprintf("%s: annotation %s names no known rule%s (taintlint rules lists them)", pos, k, Suggest(id, ruleIDs(all))))
						continue
					}
					m.rules[id] = v
				default:
					continue
				}
				if strings.TrimSpace(v) == "" {
					pos, _ := obj.Locate("metadata.annotations[" + k + "]")
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s: annotation %s has no reason; say why the finding is accepted", pos, k))
				}
			}
			if m.all != nil || len(m.rules) > 0 {
				byRef[obj.Ref] = append(byRef[obj.Ref], m)
			}
		}
		if len(byRef) == 0 {
			return fs
		}
		for i := range fs {
			f := &fs[i]
			if f.Object == nil || f.Suppressed != nil {
				continue
			}
			for _, m := range byRef[*f.Object] {
				if reason, ok := m.rules[f.Rule]; ok {
					f.Suppressed = &rules.Suppression{Kind: "inSource", Reason: reason}
				} else if m.all != nil {
					f.Suppressed = &rules.Suppression{Kind: "inSource", Reason: *m.all}
				}
			}
		}
		return fs
	}
}

// mayMark reports whether obj's metadata may hold a suppression
// annotation, without decoding it: both names hold annotationMark, and a
// JSON string can spell it otherwise only with an escape. Most objects'
// metadata holds neither.
func mayMark(obj *loader.Object) bool {
	j, found, ok := obj.JSONAt("metadata")
	return !ok || found && (bytes.Contains(j, []byte(annotationMark)) || bytes.IndexByte(j, '\\') >= 0)
}

// annotationMark is in both suppression annotations' names.
const annotationMark = "taintlint.io/"

func suppressByConfig(sups []Suppression) step {
	return func(fs []rules.Finding) []rules.Finding {
		if len(sups) == 0 {
			return fs
		}
		for i := range fs {
			f := &fs[i]
			if f.Suppressed != nil {
				continue
			}
			for _, s := range sups {
				if s.matches(f) {
					f.Suppressed = &rules.Suppression{Kind: "external", Reason: s.Reason}
					break
				}
			}
		}
		return fs
	}
}

func (s Suppression) matches(f *rules.Finding) bool {
	if len(s.Rules) > 0 && !contains(s.Rules, f.Rule) {
		return false
	}
	if len(s.Paths) > 0 {
		ok := false
		for _, g := range s.Paths {
			if MatchGlob(g, f.Pos.File) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(s.Objects) > 0 {
		if f.Object == nil {
			return false
		}
		name := f.Object.String()
		ok := false
		for _, g := range s.Objects {
			if m, _ := path.Match(g, name); m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// MatchGlob matches a slash path against a glob where ** matches any
// number of directories and *, ? and [] work as in path.Match.
func MatchGlob(glob, name string) bool {
	return matchParts(strings.Split(glob, "/"), strings.Split(name, "/"))
}

func matchParts(g, n []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(n); i++ {
				if matchParts(g[1:], n[i:]) {
					return true
				}
			}
			return false
		}
		if len(n) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], n[0]); !ok {
			return false
		}
		g, n = g[1:], n[1:]
	}
	return len(n) == 0
}

// dedupe drops findings identical in rule, place, path and message, as
// when a Kustomize base is reached through two overlays.
func dedupe(fs []rules.Finding) []rules.Finding {
	type key struct {
		rule, msg, path string
		pos             loader.Position
		suppressed      bool
	}
	seen := make(map[key]bool, len(fs))
	out := fs[:0]
	for _, f := range fs {
		k := key{f.Rule, f.Message, f.Path, f.Pos, f.Suppressed != nil}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// sortFindings orders findings totally: file, line, column, rule, message,
// then object and path, so equal inputs give byte-identical output.
func sortFindings(fs []rules.Finding) []rules.Finding {
	sort.SliceStable(fs, func(i, j int) bool { return rules.Less(&fs[i], &fs[j]) })
	return fs
}
