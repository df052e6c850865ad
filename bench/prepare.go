package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Pair is one extracted (query, document) pair: a doc comment's first
// paragraph and the function it documents, without the comment.
type Pair struct {
	Path  string // slash-separated, relative to the source root
	Line  int    // 1-based line of the function
	Func  string // e.g. "(*Server).Serve" or "Reader.read"
	Query string // first paragraph of the doc comment, whitespace collapsed
	Code  string // the function's source without its doc comment
}

// Extractor pulls pairs out of one source file. src is the file's bytes; path
// is relative to the root and slash-separated.
type Extractor interface {
	// Match reports whether a file (by relative path) belongs to this language
	// and is not a test file.
	Match(path string) bool
	Extract(path string, src []byte) ([]Pair, error)
}

// PrepareOptions configures Prepare.
type PrepareOptions struct {
	Src   string // source tree root
	Out   string // output directory (created)
	Lang  string // "go" (default) or "python"
	Typos bool   // also write queries-typos.jsonl
	Max   int    // keep at most Max pairs (a seeded sample); 0 = all
	Seed  uint64 // sampling and typo seed
}

// PrepareStats summarises a Prepare run.
type PrepareStats struct {
	Files       int `json:"files"`
	Candidates  int `json:"candidates"`
	Trivial     int `json:"skipped_trivial"`
	Duplicates  int `json:"skipped_duplicate"`
	ParseErrors int `json:"skipped_unparsable_files"`
	Pairs       int `json:"pairs"`
}

// Filters for trivial pairs: a query needs MinQueryWords words, a function
// MinCodeLines lines (after dropping the doc comment).
const (
	MinQueryWords = 4
	MinCodeLines  = 3
)

// ExtractorFor returns the extractor of a language name.
func ExtractorFor(lang string) (Extractor, error) {
	switch lang {
	case "", "go":
		return goExtractor{}, nil
	case "python", "py":
		return pyExtractor{}, nil
	case "java":
		return javaExtractor, nil
	case "javascript", "js":
		return jsExtractor, nil
	case "rust", "rs":
		return rustExtractor{}, nil
	case "php":
		return phpExtractor, nil
	}
	return nil, fmt.Errorf("unknown --lang %q: use go, python, java, javascript, php or rust", lang)
}

// skipDir reports directories never walked: test fixtures, vendored code,
// hidden and underscore directories (Go ignores those too).
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || name == "node_modules" || name == "__pycache__" ||
		name == "test" || name == "tests" || name == "site-packages" ||
		(len(name) > 1 && (name[0] == '.' || name[0] == '_'))
}

// Collect walks src in lexical order and returns every non-trivial,
// non-duplicate pair, in walk order. Files that do not parse are counted
// and skipped (real trees hold deliberately broken files).
func Collect(src string, ex Extractor) ([]Pair, PrepareStats, error) {
	var st PrepareStats
	var pairs []Pair
	seenQ, seenC := map[string]bool{}, map[string]bool{}
	root, err := filepath.Abs(src)
	if err != nil {
		return nil, st, fmt.Errorf("source root %s: %w", src, err)
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, st, fmt.Errorf("source root: %w", err)
	} else if !fi.IsDir() {
		return nil, st, fmt.Errorf("source root %s is not a directory: pass --src DIR", src)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("walk %s: %w", p, err)
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return fmt.Errorf("relative path of %s: %w", p, err)
		}
		rel = filepath.ToSlash(rel)
		if !ex.Match(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read source: %w", err)
		}
		st.Files++
		ps, err := ex.Extract(rel, b)
		if err != nil {
			st.ParseErrors++
			return nil
		}
		for _, pr := range ps {
			st.Candidates++
			if len(strings.Fields(pr.Query)) < MinQueryWords || strings.Count(strings.TrimSpace(pr.Code), "\n")+1 < MinCodeLines {
				st.Trivial++
				continue
			}
			nq, nc := strings.ToLower(pr.Query), normalizeCode(pr.Code)
			if seenQ[nq] || seenC[nc] {
				st.Duplicates++
				continue
			}
			seenQ[nq], seenC[nc] = true, true
			pairs = append(pairs, pr)
		}
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	st.Pairs = len(pairs)
	return pairs, st, nil
}

func normalizeCode(s string) string { return strings.Join(strings.Fields(s), " ") }

// Sample keeps at most max pairs, chosen by a seeded shuffle, returned in
// their original order. Same input and seed → same output.
func Sample(pairs []Pair, max int, seed uint64) []Pair {
	if max <= 0 || len(pairs) <= max {
		return pairs
	}
	idx := sampleIndexes(len(pairs), max, seed)
	out := make([]Pair, max)
	for i, j := range idx {
		out[i] = pairs[j]
	}
	return out
}

// sampleIndexes returns max of the indexes 0…n-1, a seeded uniform sample,
// in ascending order. max must be in (0, n).
func sampleIndexes(n, max int, seed uint64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	idx = idx[:max]
	sort.Ints(idx)
	return idx
}

// Prepare builds a CodeSearchNet-style BEIR set in o.Out: corpus.jsonl,
// queries.jsonl, qrels/test.tsv (one positive per query, grade 1),
// queries-typos.jsonl when o.Typos, and prepare.json (options and counts).
// Output is byte-identical for the same source tree and options. Files are
// written to temporary names and renamed, so a failed run leaves no
// half-written set behind.
func Prepare(o PrepareOptions) (PrepareStats, error) {
	ex, err := ExtractorFor(o.Lang)
	if err != nil {
		return PrepareStats{}, err
	}
	if o.Out == "" {
		return PrepareStats{}, fmt.Errorf("no output directory: pass --out DIR")
	}
	pairs, st, err := Collect(o.Src, ex)
	if err != nil {
		return st, err
	}
	if len(pairs) == 0 {
		return st, fmt.Errorf("no documented functions found under %s for --lang %s (%d files read): point --src at a source tree", o.Src, langName(o.Lang), st.Files)
	}
	pairs = Sample(pairs, o.Max, o.Seed)
	st.Pairs = len(pairs)

	var corpus, queries, typos, qrels bytes.Buffer
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for i, p := range pairs {
		qid, did := fmt.Sprintf("q%06d", i+1), fmt.Sprintf("d%06d", i+1)
		if err := writeJSONLine(&corpus, map[string]any{"_id": did, "title": "", "text": p.Code,
			"metadata": map[string]any{"path": p.Path, "line": p.Line, "func": p.Func}}); err != nil {
			return st, err
		}
		if err := writeJSONLine(&queries, map[string]any{"_id": qid, "text": p.Query}); err != nil {
			return st, err
		}
		if o.Typos {
			if err := writeJSONLine(&typos, map[string]any{"_id": qid, "text": AddTypos(p.Query, o.Seed, qid)}); err != nil {
				return st, err
			}
		}
		fmt.Fprintf(&qrels, "%s\t%s\t1\n", qid, did)
	}
	manifest, err := json.MarshalIndent(map[string]any{
		"kind": "csn-" + langName(o.Lang), "lang": langName(o.Lang), "seed": o.Seed, "max": o.Max,
		"typos": o.Typos, "typo_rate": TypoRate, "stats": st,
		"min_query_words": MinQueryWords, "min_code_lines": MinCodeLines, "go_leading_name_stripped": true,
	}, "", "  ")
	if err != nil {
		return st, fmt.Errorf("encode prepare.json: %w", err)
	}
	files := map[string][]byte{
		"corpus.jsonl": corpus.Bytes(), "queries.jsonl": queries.Bytes(),
		"qrels/test.tsv": qrels.Bytes(), "prepare.json": append(manifest, '\n'),
	}
	if o.Typos {
		files["queries-typos.jsonl"] = typos.Bytes()
	}
	return st, writeFilesAtomically(o.Out, files)
}

func langName(l string) string {
	if l == "" {
		return "go"
	}
	return NormLang(l)
}

func writeJSONLine(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON line: %w", err)
	}
	return nil
}

// writeFilesAtomically writes every file under dir to a temporary name first
// and renames them only when all writes succeeded.
func writeFilesAtomically(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var tmps []string
	cleanup := func() {
		for _, t := range tmps {
			_ = os.Remove(t) // best effort: the temporary may not exist
		}
	}
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			cleanup()
			return fmt.Errorf("create output directory: %w", err)
		}
		t := p + ".tmp"
		if err := os.WriteFile(t, files[n], 0o644); err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", n, err)
		}
		tmps = append(tmps, t)
	}
	for i, n := range names {
		if err := os.Rename(tmps[i], filepath.Join(dir, filepath.FromSlash(n))); err != nil {
			cleanup()
			return fmt.Errorf("rename %s into place: %w", n, err)
		}
	}
	return nil
}
