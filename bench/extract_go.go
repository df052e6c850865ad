package bench

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goExtractor extracts (doc comment, function) pairs from Go files with
// go/parser. It skips test files, generated files and bodiless (assembly)
// declarations. Safe for concurrent use (stateless).
type goExtractor struct{}

var _ Extractor = goExtractor{}

func (goExtractor) Match(path string) bool {
	return strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
}

var generatedRE = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

func (goExtractor) Extract(path string, src []byte) ([]Pair, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if generatedRE.Match(src) {
		return nil, nil
	}
	var out []Pair
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Doc == nil || fd.Body == nil {
			continue
		}
		q := StripLeadingName(FirstParagraph(fd.Doc.Text()), fd.Name.Name)
		if q == "" {
			continue
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		out = append(out, Pair{
			Path:  path,
			Line:  start.Line,
			Func:  goFuncName(fd),
			Query: q,
			Code:  string(bytes.TrimSpace(src[start.Offset:end.Offset])),
		})
	}
	return out, nil
}

func goFuncName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	name := "?"
	if id, ok := t.(*ast.Ident); ok {
		name = id.Name
	}
	if star != "" {
		return "(*" + name + ")." + fd.Name.Name
	}
	return name + "." + fd.Name.Name
}

// FirstParagraph returns the first paragraph of a doc text (up to the first
// blank line) with whitespace collapsed, or "" for a deprecation notice, a
// "TODO"/"BUG" note or an empty text.
func FirstParagraph(doc string) string {
	doc = strings.TrimSpace(strings.ReplaceAll(doc, "\r\n", "\n"))
	var lines []string
	for _, l := range strings.Split(doc, "\n") {
		if strings.TrimSpace(l) == "" {
			if len(lines) > 0 {
				break
			}
			continue
		}
		lines = append(lines, l)
	}
	p := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	for _, pre := range []string{"Deprecated:", "TODO", "BUG(", "XXX"} {
		if strings.HasPrefix(p, pre) {
			return ""
		}
	}
	return p
}

// StripLeadingName drops a leading function name from a query ("Split slices s
// into …" → "Slices s into …"). Go doc comments start with the name by
// convention; leaving it in would let any keyword matcher find the function
// by its name alone and measure nothing about the description.
func StripLeadingName(q, name string) string {
	rest, ok := strings.CutPrefix(q, name+" ")
	if !ok || rest == "" {
		return q
	}
	r, n := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[n:]
}
