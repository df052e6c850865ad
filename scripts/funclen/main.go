// Command funclen lists the longest Go functions and function literals of the
// non-test files under a directory, longest first (issue #28: no function
// over ~80 lines except tables). Usage: go run ./scripts/funclen [DIR [N]]
// (default . and 10). It reads the files only.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type fn struct {
	name  string
	pos   string
	lines int
}

func main() {
	root, n := ".", 10
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	fset := token.NewFileSet()
	var fns []fn
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if info.IsDir() && (info.Name() == ".deps" || info.Name() == "testdata" || strings.HasPrefix(info.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		ast.Inspect(f, func(nd ast.Node) bool {
			switch x := nd.(type) {
			case *ast.FuncDecl:
				if x.Body == nil {
					return true
				}
				name := x.Name.Name
				if x.Recv != nil && len(x.Recv.List) > 0 {
					t := x.Recv.List[0].Type
					if s, ok := t.(*ast.StarExpr); ok {
						t = s.X
					}
					if id, ok := t.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				a, b := fset.Position(x.Pos()), fset.Position(x.End())
				fns = append(fns, fn{name, fmt.Sprintf("%s:%d", rel, a.Line), b.Line - a.Line + 1})
			case *ast.FuncLit:
				a, b := fset.Position(x.Pos()), fset.Position(x.End())
				fns = append(fns, fn{"func literal", fmt.Sprintf("%s:%d", rel, a.Line), b.Line - a.Line + 1})
			}
			return true
		})
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(1)
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].lines > fns[j].lines })
	if len(os.Args) > 2 {
		fmt.Sscan(os.Args[2], &n)
	}
	for i := 0; i < n && i < len(fns); i++ {
		fmt.Printf("%4d  %-30s %s\n", fns[i].lines, fns[i].name, fns[i].pos)
	}
}
