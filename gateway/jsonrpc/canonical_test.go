package jsonrpc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCanonicalMethods: the list holds every Method* constant of
// methods.go, once, and each maps to itself; a method added there without
// being listed here (and so without its metrics) fails.
func TestCanonicalMethods(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "methods.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Method") {
					v, _ := strconv.Unquote(lit.Value)
					declared = append(declared, v)
				}
			}
		}
	}
	got := CanonicalMethods()
	if len(declared) == 0 || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(declared))) {
		t.Fatalf("CanonicalMethods() = %v, methods.go declares %v", got, declared)
	}
	for _, m := range got {
		if c, known := MethodGeneration(m); !known || c != m {
			t.Errorf("MethodGeneration(%q) = %q, %v", m, c, known)
		}
	}
}
