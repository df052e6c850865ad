package bench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A dataset directory comes in one of two layouts:
//
//   - BEIR: corpus.jsonl, queries.jsonl and qrels/<split>.tsv at its top, any
//     of them gzip-compressed (corpus.jsonl.gz …);
//   - MTEB / Hugging Face hub: one directory per config, corpus/, queries/
//     and the qrels in data/ (the "default" config, as the hub names it),
//     default/ or qrels/; each holds parquet or JSON Lines files (.parquet,
//     .jsonl, .jsonl.gz; qrels also .tsv) of one or more splits, named
//     <split>-00000-of-00001.parquet, <split>.jsonl or <split>/0000.parquet.
//
// In the MTEB layout a part's split is the requested one when present, else
// its only split (corpus and queries often have a single split named
// "corpus" or "queries"); qrels must have the requested split. A split in
// several files (shards) is read file by file, in name order.

// hfQrelsDirs are the directory names the qrels config may have, in order.
var hfQrelsDirs = []string{"data", "default", "qrels"}

// findLayout names the files of each part of the dataset in dir.
func findLayout(dir string, o LoadOptions) (layout, error) {
	if isDir(filepath.Join(dir, "corpus")) {
		return hfLayout(dir, o)
	}
	var l layout
	c, err := pickFile(dir, "corpus", "corpus.jsonl", "corpus.jsonl.gz")
	if err != nil {
		return l, err
	}
	l.corpus = []string{c}
	if l.queries = []string{o.QueriesFile}; o.QueriesFile == "" {
		q, err := pickFile(dir, "queries", "queries.jsonl", "queries.jsonl.gz")
		if err != nil {
			return l, err
		}
		l.queries = []string{q}
	}
	if l.qrels = []string{o.QrelsFile}; o.QrelsFile == "" {
		q, err := pickFile(dir, "qrels", filepath.Join("qrels", o.Split+".tsv"), filepath.Join("qrels", o.Split+".tsv.gz"))
		if err != nil {
			return l, err
		}
		l.qrels = []string{q}
	}
	return l, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// hfLayout finds the files of an MTEB / Hugging Face layout directory.
func hfLayout(dir string, o LoadOptions) (layout, error) {
	var l layout
	var err error
	if l.corpus, err = splitFiles(filepath.Join(dir, "corpus"), o.Split, false); err != nil {
		return l, err
	}
	if l.queries = []string{o.QueriesFile}; o.QueriesFile == "" {
		if l.queries, err = splitFiles(filepath.Join(dir, "queries"), o.Split, false); err != nil {
			return l, err
		}
	}
	if l.qrels = []string{o.QrelsFile}; o.QrelsFile != "" {
		return l, nil
	}
	for _, d := range hfQrelsDirs {
		if p := filepath.Join(dir, d); isDir(p) {
			l.qrels, err = splitFiles(p, o.Split, true)
			return l, err
		}
	}
	return l, fmt.Errorf("%s: no qrels directory (looked for %s): the MTEB layout keeps qrels in the \"default\" config, data/ on the hub",
		dir, strings.Join(hfQrelsDirs, "/, ")+"/")
}

// dataExts are the file kinds a part directory of the MTEB layout may hold.
var dataExts = []string{".parquet", ".jsonl", ".jsonl.gz", ".tsv", ".tsv.gz"}

func dataExt(name string) string {
	for _, e := range dataExts {
		if strings.HasSuffix(name, e) {
			return e
		}
	}
	return ""
}

// splitFiles groups the data files under dir by split and returns the
// files of split, or (unless strict) of the only split there is.
func splitFiles(dir, split string, strict bool) ([]string, error) {
	groups := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || dataExt(d.Name()) == "" {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		s := splitOf(rel)
		groups[s] = append(groups[s], p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	if files, ok := groups[split]; ok {
		sort.Strings(files)
		return files, nil
	}
	names := sortedKeys(groups)
	switch {
	case len(names) == 0:
		return nil, fmt.Errorf("%s holds no data file (%s)", dir, strings.Join(dataExts, ", "))
	case len(names) == 1 && !strict:
		files := groups[names[0]]
		sort.Strings(files)
		return files, nil
	}
	return nil, fmt.Errorf("%s has no split %q (it has %s): choose one with --split", dir, split, strings.Join(names, ", "))
}

// splitOf names the split of a data file from its path relative to its
// config directory: the first directory ("test/0000.parquet"), else the
// file name up to its first "-" or extension ("test-00000-of-00001.parquet",
// "test.jsonl").
func splitOf(rel string) string {
	rel = filepath.ToSlash(rel)
	if dir, _, ok := strings.Cut(rel, "/"); ok {
		return dir
	}
	base := strings.TrimSuffix(rel, dataExt(rel))
	name, _, _ := strings.Cut(base, "-")
	return name
}

// pickFile returns the one of names (relative to dir) that exists; none or
// more than one is an error naming them.
func pickFile(dir, part string, names ...string) (string, error) {
	var found []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err == nil {
			found = append(found, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s file: %w", part, err)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("open dataset file: no %s file in %s (looked for %s, and for a corpus/ directory of the MTEB layout)", part, dir, strings.Join(names, ", "))
	}
	return "", fmt.Errorf("%s has both %s: remove one, the %s must come from one file", dir, strings.Join(names, " and "), part)
}

// readCorpusFile reads one corpus file: parquet, or JSON Lines (plain or gzip).
func readCorpusFile(path string) ([]Doc, error) {
	if strings.HasSuffix(path, ".parquet") {
		return ParseCorpusParquet(path)
	}
	return readFile(path, func(r io.Reader, name string) ([]Doc, error) { return ParseJSONLGz(r, name, ParseCorpus) })
}

// readQueriesFile reads one queries file: parquet, or JSON Lines (plain or gzip).
func readQueriesFile(path string) ([]Query, error) {
	if strings.HasSuffix(path, ".parquet") {
		return ParseQueriesParquet(path)
	}
	return readFile(path, func(r io.Reader, name string) ([]Query, error) { return ParseJSONLGz(r, name, ParseQueries) })
}

// readQrelsFile reads one qrels file: parquet, or text in any format
// ParseQrelsAuto tells apart.
func readQrelsFile(path string) ([]Judgement, error) {
	if strings.HasSuffix(path, ".parquet") {
		return ParseQrelsParquet(path)
	}
	return readFile(path, ParseQrelsAuto)
}
