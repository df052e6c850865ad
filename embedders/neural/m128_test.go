package neural

import (
	"context"
	"crypto/sha256"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// goDocComments returns the doc comments of the functions, methods, types,
// constants and variables of the Go standard library (non-test files outside testdata and vendor), ordered by
// a hash of their text, so the first n are a fixed sample for a Go version.
func goDocComments(t testing.TB) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	seen := map[string]bool{}
	var docs []string
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil // a file that does not parse alone (build tags) is skipped
		}
		for _, decl := range f.Decls {
			var doc *ast.CommentGroup
			switch d := decl.(type) {
			case *ast.FuncDecl:
				doc = d.Doc
			case *ast.GenDecl:
				doc = d.Doc
			}
			if doc == nil {
				continue
			}
			text := strings.TrimSpace(doc.Text())
			if len(strings.Fields(text)) >= 6 && !seen[text] {
				seen[text] = true
				docs = append(docs, text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	key := func(s string) string { h := sha256.Sum256([]byte(s)); return string(h[:]) }
	sort.Slice(docs, func(i, j int) bool { return key(docs[i]) < key(docs[j]) })
	return docs
}

// firstSentence is a doc comment's summary, used as a query.
func firstSentence(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

func topK(q []float32, docs [][]float32, k int) []int {
	idx := make([]int, len(docs))
	sc := make([]float64, len(docs))
	for i, d := range docs {
		idx[i], sc[i] = i, cosine(q, d)
	}
	sort.SliceStable(idx, func(a, b int) bool { return sc[idx[a]] > sc[idx[b]] })
	return idx[:min(k, len(idx))]
}

// TestM128Recall measures how much of full E1's top 10 the E1-Matryoshka-128
// filter keeps in its top F: corpus = Go standard-library doc comments
// (passage view), queries = the first sentences of other doc comments (query
// view). CGRAPH_M128_DOCS sets the corpus size (default 2000; the package
// doc's figure uses 10000).
func TestM128Recall(t *testing.T) {
	r := testRegistry(t)
	n, nq := 2000, 100
	if s := os.Getenv("CGRAPH_M128_DOCS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
		nq = 200
	}
	all := goDocComments(t)
	if len(all) < n+nq {
		t.Fatalf("only %d doc comments, want %d", len(all), n+nq)
	}
	ctx := context.Background()
	e1 := r.Get(fingerprint.E1)
	entries, err := e1.EmbedDocuments(ctx, inputs(all[:n]...))
	if err != nil {
		t.Fatal(err)
	}
	full, m128 := make([][]float32, n), make([][]float32, n)
	for i, en := range entries {
		full[i] = dense(t, en)
		m128[i] = fingerprint.Matryoshka128(full[i])
	}
	filters := []int{100, 200, 1000}
	recall := make([]float64, len(filters))
	var top1 float64
	for _, doc := range all[n : n+nq] {
		qv, err := e1.EmbedQuery(ctx, embedders.Query{Text: firstSentence(doc)})
		if err != nil {
			t.Fatal(err)
		}
		q := qv.Value.(fingerprint.Dense)
		truth := topK(q, full, 10)
		ranked := topK(fingerprint.Matryoshka128(q), m128, filters[len(filters)-1])
		for fi, f := range filters {
			for _, d := range truth {
				if slices.Contains(ranked[:min(f, len(ranked))], d) {
					recall[fi]++
				}
			}
		}
		if ranked[0] == truth[0] {
			top1++
		}
	}
	for fi, f := range filters {
		recall[fi] /= float64(10 * nq)
		t.Logf("%d docs, %d queries: full-E1 top-10 recall in the M128 top %d = %.4f", n, nq, f, recall[fi])
	}
	t.Logf("M128 top-1 = full top-1 in %.3f of queries", top1/float64(nq))
	// The filter feeds 1000 candidates to fusion; losing more than 5% of
	// full E1's top 10 there would show in every profile.
	if recall[len(recall)-1] < 0.95 {
		t.Errorf("M128 keeps only %.3f of full E1's top 10 in its top %d", recall[len(recall)-1], filters[len(filters)-1])
	}
}
