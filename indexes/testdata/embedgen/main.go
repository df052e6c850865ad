// Command embedgen embeds Go standard-library comment blocks with all-MiniLM-L6-v2 and
// writes docs.f32 / queries.f32 (little-endian float32, 384 per row) into the
// directory given as its argument, for the indexes package's real-embedding
// recall test (from the module root):
//
//	go run ./indexes/testdata/embedgen /tmp/vec && CGRAPH_VECTORS_DIR=/tmp/vec go test ./indexes -run Real -v
//
// It lives under testdata so that package indexes does not depend on models.
// It needs all-minilm-l6-v2 installed under ~/.cache/cgraph/models.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	rt "github.com/cgraph/cgraph/models/runtime"
)

func main() {
	if len(os.Args) != 2 {
		fatal(fmt.Errorf("usage: embedgen OUTPUT_DIR"))
	}
	out := os.Args[1]
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
	n := 20000
	if len(blocks) < n+500 {
		n = len(blocks) - 500
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
		} else if len(docs) < n {
			docs = append(docs, b)
		}
	}
	fmt.Fprintln(os.Stderr, "blocks", len(blocks), "docs", len(docs), "queries", len(queries))
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

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "embedgen:", err)
	os.Exit(1)
}
