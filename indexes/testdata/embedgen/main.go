// Command embedgen embeds Go standard-library comment blocks with all-MiniLM-L6-v2 and
// writes docs.f32 / queries.f32 (little-endian float32, 384 per row) into the
// directory given as its argument, for the indexes package's real-embedding
// recall test (from the module root):
//
//	go run ./indexes/testdata/embedgen /tmp/vec && CGRAPH_VECTORS_DIR=/tmp/vec go test ./indexes -run Real -v
//
// It lives under testdata so that package indexes does not depend on models.
// It needs all-minilm-l6-v2 installed under ~/.cache/cgraph/models.
//
// With -e1 it embeds with E1's own embedder instead (e5-small-v2 through
// the neural registry, "passage: " / "query: " views, the store's
// precision), and -n sets how many documents (default 20,000; the Go
// sources hold about COUNT blocks):
//
//	go run ./indexes/testdata/embedgen -e1 -n 100000 /tmp/e1vec
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/fingerprint"
	rt "github.com/cgraph/cgraph/models/runtime"
)

func main() {
	e1 := flag.Bool("e1", false, "embed with E1's embedder (e5-small-v2) instead of all-MiniLM-L6-v2")
	slotName := flag.String("slot", "E1", "with -e1: the slot whose embedder to use (E1, E5, E7, E10, E11); a pair slot writes its side-A vectors, queried as side B (the engine's \"seeks causes\" view)")
	n := flag.Int("n", 20000, "documents to embed (at most the blocks found less the 500 queries)")
	flag.Parse()
	if flag.NArg() != 1 {
		fatal(fmt.Errorf("usage: embedgen [-e1] [-n N] OUTPUT_DIR"))
	}
	out := flag.Arg(0)
	if err := os.MkdirAll(out, 0o755); err != nil {
		fatal(err)
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	seen := map[string]bool{}
	var blocks []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "testdata") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close() // read-only: a close error loses nothing
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20) // generated sources have megabyte lines
		var cur []string
		flush := func() {
			t := strings.Join(cur, " ")
			cur = nil
			if len(t) >= 60 && len(t) <= 600 && !seen[t] && !strings.Contains(t, "Copyright") {
				seen[t] = true
				blocks = append(blocks, t)
			}
		}
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "//go:") {
				cur = append(cur, strings.TrimSpace(strings.TrimPrefix(l, "//")))
			} else if len(cur) > 0 {
				flush()
			}
		}
		return sc.Err()
	})
	if err != nil {
		fatal(fmt.Errorf("read the Go sources under %s: %w", root, err))
	}
	sort.Strings(blocks)
	if len(blocks) < *n+500 {
		*n = len(blocks) - 500
	}
	// deterministic spread: every step-th block is a query source
	var docs, queries []string
	for i, b := range blocks {
		if i%41 == 0 && len(queries) < 500 {
			q := b
			if j := strings.Index(q, ". "); j > 20 {
				q = q[:j+1]
			}
			queries = append(queries, q)
		} else if len(docs) < *n {
			docs = append(docs, b)
		}
	}
	fmt.Fprintln(os.Stderr, "blocks", len(blocks), "docs", len(docs), "queries", len(queries))
	if *e1 {
		slot, err := fingerprint.ParseSlot(*slotName)
		if err != nil {
			fatal(err)
		}
		embedE1(out, slot, docs, queries)
		return
	}
	home, _ := os.UserHomeDir()
	dir := filepath.Join(home, ".cache/cgraph/models/all-minilm-l6-v2")
	m, err := rt.Open(rt.Config{ID: "all-minilm-l6-v2", ONNXPath: filepath.Join(dir, "model.onnx"),
		TokenizerPath: filepath.Join(dir, "tokenizer.json"), Normalize: true, Dims: 384, MaxLength: 128, IntraOpThreads: 2})
	if err != nil {
		fatal(err)
	}
	defer func() {
		if err := m.Close(); err != nil {
			fatal(err)
		}
	}()
	write := func(name string, texts []string, view rt.View) {
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := 0; i < len(texts); i += 256 {
			batch := texts[i:min(i+256, len(texts))]
			vs, err := m.Embed(context.Background(), view, batch)
			if err != nil {
				fatal(fmt.Errorf("embed %s batch at %d: %w", name, i, err))
			}
			for _, v := range vs {
				for _, x := range v.Vector {
					if _, err := w.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))); err != nil {
						fatal(fmt.Errorf("write %s: %w", name, err))
					}
				}
			}
			if i%2560 == 0 {
				fmt.Fprintln(os.Stderr, name, i)
			}
		}
		if err := w.Flush(); err != nil {
			fatal(fmt.Errorf("write %s: %w", name, err))
		}
		if err := f.Close(); err != nil {
			fatal(fmt.Errorf("close %s: %w", name, err))
		}
	}
	write("queries.f32", queries, rt.ViewQuery)
	write("docs.f32", docs, rt.ViewPassage)
}

// embedE1 writes docs.f32 and queries.f32 with E1's embedder from the
// neural registry: the vectors a store holds and searches with.
func embedE1(out string, slot fingerprint.SlotID, docs, queries []string) {
	ctx := context.Background()
	home, _ := os.UserHomeDir()
	reg, closeReg, err := neural.Registry(ctx, neural.Config{ModelsDir: filepath.Join(home, ".cache/cgraph/models")})
	if err != nil {
		fatal(err)
	}
	defer func() { _ = closeReg() }()
	e := reg.Get(slot)
	pair := slot.Kind() == fingerprint.KindPair
	vec := func(v fingerprint.Value) []float32 {
		switch x := v.(type) {
		case fingerprint.Dense:
			return x
		case fingerprint.Pair:
			return x.A
		case fingerprint.Entities:
			return x.Vector
		}
		return nil
	}
	writeRows := func(name string, n int, row func(i int) ([]float32, error)) {
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := range n {
			v, err := row(i)
			if err != nil {
				fatal(fmt.Errorf("embed %s row %d: %w", name, i, err))
			}
			for _, x := range v {
				if _, err := w.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))); err != nil {
					fatal(err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			fatal(err)
		}
		if err := f.Close(); err != nil {
			fatal(err)
		}
	}
	writeRows("queries.f32", len(queries), func(i int) ([]float32, error) {
		in := embedders.Query{Text: queries[i]}
		if pair {
			in.As = fingerprint.SideB
		}
		q, err := e.EmbedQuery(ctx, in)
		if err != nil {
			return nil, err
		}
		return vec(q.Value), nil
	})
	var rows [][]float32
	for i := 0; i < len(docs); i += 64 {
		batch := docs[i:min(i+64, len(docs))]
		in := make([]embedders.Input, len(batch))
		for j, t := range batch {
			in[j] = embedders.Input{Text: t}
		}
		es, err := e.EmbedDocuments(ctx, in)
		if err != nil {
			fatal(fmt.Errorf("embed docs at %d: %w", i, err))
		}
		for _, en := range es {
			if v := vec(en.Value); len(v) > 0 {
				rows = append(rows, v)
			}
		}
		if i%6400 == 0 {
			fmt.Fprintln(os.Stderr, "docs", i)
		}
	}
	writeRows("docs.f32", len(rows), func(i int) ([]float32, error) { return rows[i], nil })
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "embedgen:", err)
	os.Exit(1)
}
