package taintlint_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPublicAPINoInternal holds the public packages to naming no type of
// an internal/ package in their exported API: a user of rules.Input or
// rego.Load could not name such a type, nor could a rule written outside
// this module.
func TestPublicAPINoInternal(t *testing.T) {
	for _, dir := range []string{"loader", "k8s", "rules", "rules/rulestest", "report", "rego"} {
		fset := token.NewFileSet()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			internal := map[string]string{} // local import name → path
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !strings.Contains(path, "/internal/") {
					continue
				}
				local := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					local = imp.Name.Name
				}
				internal[local] = path
			}
			if len(internal) == 0 {
				continue
			}
			check := func(n ast.Node, what string) {
				ast.Inspect(n, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] != "" {
							t.Errorf("%s: %s names %s.%s (%s)", fset.Position(sel.Pos()), what, x.Name, sel.Sel.Name, internal[x.Name])
						}
					}
					return true
				})
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv) {
						continue
					}
					check(d.Type, "func "+d.Name.Name)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fl := range st.Fields.List {
									if exportedField(fl) {
										check(fl.Type, "type "+s.Name.Name)
									}
								}
								continue
							}
							check(s.Type, "type "+s.Name.Name)
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && s.Type != nil {
									check(s.Type, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
}

func exportedRecv(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

func exportedField(fl *ast.Field) bool {
	if len(fl.Names) == 0 { // embedded
		return true
	}
	for _, n := range fl.Names {
		if n.IsExported() {
			return true
		}
	}
	return false
}
