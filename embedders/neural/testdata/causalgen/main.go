// Command causalgen mines cause→effect pairs from real text on this machine —
// Go doc comments under $(go env GOROOT)/src, Python standard-library
// docstrings and comments under /usr/lib/python3*, Debian changelogs and man
// pages — and writes them as JSON lines for E5's direction tests:
//
//	go run ./embedders/neural/testdata/causalgen > embedders/neural/testdata/causal_pairs.jsonl
//
// With -all the per-bucket caps are lifted (about 4,500 pairs here); with
// -beir DIR it also writes a directional BEIR set from the held-out half of
// the pairs (those whose hash key is odd): every cause and every effect is a
// document, each cause is a query whose one relevant document is its effect,
// so a search must find the effect and not the cause it paraphrases.
//
// A sentence "E because C", "E due to C", "E (is) caused by C", "C, so that
// E", "C leads to E" or "C. As a result, E" gives the pair (cause C, effect
// E); the marker is dropped from both halves. Each half has 4–40 words.
// Pairs are deduplicated, capped per source and marker, and chosen by a hash
// of their text, so the output is deterministic for a given machine. Each
// line: {"cause", "effect", "marker", "source"}, source being the file.
package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type pair struct {
	Cause  string `json:"cause"`
	Effect string `json:"effect"`
	Marker string `json:"marker"`
	Source string `json:"source"`
	key    string
}

// marker splits a sentence; effectFirst says the effect precedes the marker.
type marker struct {
	name        string
	re          *regexp.Regexp
	effectFirst bool
}

var markers = []marker{
	{"because", regexp.MustCompile(`(?i)^(.+?),?\s+because\s+(?:of\s+)?(.+)$`), true},
	{"due to", regexp.MustCompile(`(?i)^(.+?),?\s+(?:is\s+|are\s+|was\s+|were\s+)?due\s+to\s+(.+)$`), true},
	{"caused by", regexp.MustCompile(`(?i)^(.+?),?\s+(?:is\s+|are\s+|was\s+|were\s+|being\s+)?caused\s+by\s+(.+)$`), true},
	{"so that", regexp.MustCompile(`(?i)^(.+?),?\s+so\s+that\s+(.+)$`), false},
	{"leads to", regexp.MustCompile(`(?i)^(.+?)\s+(?:leads|lead|led|leading)\s+to\s+(.+)$`), false},
	{"as a result", regexp.MustCompile(`(?i)^(.+?)[,;]\s+(?:and\s+)?as\s+a\s+result,?\s+(.+)$`), false},
}

// asResultNext handles "C. As a result, E" across two sentences.
var asResultNext = regexp.MustCompile(`(?i)^as\s+a\s+result,?\s+(.+)$`)

// perBucket caps pairs per (source kind, marker).
var perBucket = map[string]int{"go": 40, "python": 30, "debian": 20, "man": 15}

var (
	all   = flag.Bool("all", false, "keep every pair (no per-bucket cap)")
	beir  = flag.String("beir", "", "also write a directional BEIR set of the held-out pairs into this directory")
	trees = flag.String("trees", "default", "default: GOROOT/src, /usr/lib/python3*, Debian changelogs and man pages; "+
		"other: the Go module cache, /usr/lib/python3/dist-packages and the JDK sources in $CAUSALGEN_JDK "+
		"(trees neither the default pairs nor E5's head saw; -beir then writes every pair, none was fitted on)")
)

func main() {
	flag.Parse()
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "causalgen:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	buckets := map[string][]pair{}
	seen := map[string]bool{}
	add := func(kind, src string, texts []string) {
		for _, p := range mine(texts) {
			p.Source = src
			k := strings.ToLower(p.Cause + "|" + p.Effect)
			if seen[k] {
				continue
			}
			seen[k] = true
			h := sha256.Sum256([]byte(k))
			p.key = fmt.Sprintf("%x", h[:8])
			b := kind + "/" + p.Marker
			buckets[b] = append(buckets[b], p)
		}
	}
	if *trees == "other" {
		return runOther(w, add, buckets)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	err = walk(root, func(path string) {
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "/testdata/") {
			add("go", rel(root, path), goComments(path))
		}
	})
	if err != nil {
		return err
	}
	pys, _ := filepath.Glob("/usr/lib/python3*")
	for _, dir := range pys {
		_ = walk(dir, func(path string) {
			if strings.HasSuffix(path, ".py") && !strings.Contains(path, "/test/") && !strings.Contains(path, "/tests/") {
				add("python", path, pyText(path))
			}
		})
	}
	logs, _ := filepath.Glob("/usr/share/doc/*/changelog.Debian.gz")
	for _, path := range logs {
		add("debian", path, debianEntries(path))
	}
	mans, _ := filepath.Glob("/usr/share/man/man[1-8]/*.gz")
	for _, path := range mans {
		add("man", path, manText(path))
	}
	return emit(w, buckets, heldOut)
}

// runOther mines the trees of -trees other and writes every pair they give
// (capped per bucket unless -all); a -beir set takes all of them.
func runOther(w io.Writer, add func(kind, src string, texts []string), buckets map[string][]pair) error {
	home, _ := os.UserHomeDir()
	mod := filepath.Join(home, "go", "pkg", "mod")
	_ = walk(mod, func(path string) {
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "/testdata/") {
			add("go", path, goComments(path))
		}
	})
	_ = walk("/usr/lib/python3/dist-packages", func(path string) {
		if strings.HasSuffix(path, ".py") && !strings.Contains(path, "/test/") && !strings.Contains(path, "/tests/") {
			add("python", path, pyText(path))
		}
	})
	if jdk := os.Getenv("CAUSALGEN_JDK"); jdk != "" {
		_ = walk(jdk, func(path string) {
			if strings.HasSuffix(path, ".java") {
				add("java", path, append(commentBlocks(path, "*"), goComments(path)...))
			}
		})
	}
	return emit(w, buckets, func(pair) bool { return true })
}

// emit writes the kept pairs of every bucket and, with -beir, the set of
// those inSet accepts.
func emit(w io.Writer, buckets map[string][]pair, inSet func(pair) bool) error {
	names := make([]string, 0, len(buckets))
	for b := range buckets {
		names = append(names, b)
	}
	sort.Strings(names)
	enc := json.NewEncoder(w)
	var kept []pair
	for _, b := range names {
		ps := buckets[b]
		sort.Slice(ps, func(i, j int) bool { return ps[i].key < ps[j].key })
		limit := cmp.Or(perBucket[strings.SplitN(b, "/", 2)[0]], perBucket["go"])
		if *all {
			limit = len(ps)
		}
		for _, p := range ps[:min(limit, len(ps))] {
			if err := enc.Encode(p); err != nil {
				return err
			}
			kept = append(kept, p)
		}
		fmt.Fprintf(os.Stderr, "%-22s %5d found, %3d kept\n", b, len(ps), min(limit, len(ps)))
	}
	if *beir != "" {
		return writeBEIR(*beir, kept, inSet)
	}
	return nil
}

// heldOut reports whether a pair belongs to the held-out half: its hash
// key's last hex digit is odd. Tools that fit a direction head use the
// other half.
func heldOut(p pair) bool { return strings.IndexByte("13579bdf", p.key[len(p.key)-1]) >= 0 }

// writeBEIR writes corpus.jsonl, queries.jsonl and qrels/test.tsv of the
// pairs inSet accepts (the held-out half by default) into dir.
func writeBEIR(dir string, ps []pair, inSet func(pair) bool) error {
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		return err
	}
	var corpus, queries, qrels strings.Builder
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	line := func(b *strings.Builder, v any) {
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	n := 0
	for _, p := range ps {
		if !inSet(p) {
			continue
		}
		n++
		cause, effect, q := "c"+p.key, "e"+p.key, "q"+p.key
		line(&corpus, map[string]string{"_id": cause, "text": p.Cause})
		line(&corpus, map[string]string{"_id": effect, "text": p.Effect})
		line(&queries, map[string]string{"_id": q, "text": p.Cause})
		fmt.Fprintf(&qrels, "%s\t%s\t1\n", q, effect)
	}
	for name, body := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "wrote a directional set of %d pairs (%d documents) to %s\n", n, 2*n, dir)
	return nil
}

func rel(root, path string) string {
	r, err := filepath.Rel(filepath.Dir(root), path)
	if err != nil {
		return path
	}
	return "$GOROOT/" + r
}

func walk(root string, fn func(string)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped
		}
		if !d.IsDir() {
			fn(path)
		}
		return nil
	})
}

var (
	space    = regexp.MustCompile(`\s+`)
	sentEnd  = regexp.MustCompile(`([.!?])\s+([A-Z])`)
	badChars = regexp.MustCompile("[{}=<>|\\\\`$@#]|://|\\(\\)|\\[\\]")
)

// sentences splits a paragraph into sentences.
func sentences(par string) []string {
	par = strings.TrimSpace(space.ReplaceAllString(par, " "))
	if par == "" {
		return nil
	}
	marked := sentEnd.ReplaceAllString(par, "$1\x00$2")
	return strings.Split(marked, "\x00")
}

// mine finds causal pairs in the paragraphs texts.
func mine(texts []string) []pair {
	var out []pair
	for _, par := range texts {
		ss := sentences(par)
		for i, s := range ss {
			if badChars.MatchString(s) {
				continue
			}
			if m := asResultNext.FindStringSubmatch(s); m != nil && i > 0 && !badChars.MatchString(ss[i-1]) {
				if p, ok := mkPair(ss[i-1], m[1], "as a result"); ok {
					out = append(out, p)
				}
				continue
			}
			for _, mk := range markers {
				m := mk.re.FindStringSubmatch(s)
				if m == nil {
					continue
				}
				c, e := m[1], m[2]
				if mk.effectFirst {
					c, e = m[2], m[1]
				}
				if p, ok := mkPair(c, e, mk.name); ok {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

func mkPair(cause, effect, name string) (pair, bool) {
	cause, effect = clean(cause), clean(effect)
	for _, s := range []string{cause, effect} {
		n := len(strings.Fields(s))
		if n < 4 || n > 40 {
			return pair{}, false
		}
		for _, m := range []string{"because", "due to", "caused by", "so that", "as a result", "leads to", "led to"} {
			if strings.Contains(strings.ToLower(s), m) {
				return pair{}, false
			}
		}
	}
	return pair{Cause: cause, Effect: effect, Marker: name}, true
}

func clean(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ".,;:")
	s = strings.TrimLeft(s, "-*,;: ")
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// goComments returns the // comment blocks of a Go file as paragraphs.
func goComments(path string) []string {
	return commentBlocks(path, "//")
}

func commentBlocks(path, prefix string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, prefix) {
			flush()
			continue
		}
		body := strings.TrimSpace(strings.TrimPrefix(line, prefix))
		if prefix == "*" && body == "/" { // a Javadoc block's closing "*/"
			flush()
			continue
		}
		if body == "" || strings.HasPrefix(line, prefix+"\t") || strings.HasPrefix(line, prefix+"  ") {
			flush() // blank line or code block inside the comment
			continue
		}
		cur = append(cur, body)
	}
	flush()
	return out
}

var docstring = regexp.MustCompile(`(?s)"""(.*?)"""`)

// pyText returns a Python file's docstring paragraphs and # comment blocks.
func pyText(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range docstring.FindAllStringSubmatch(string(data), -1) {
		for _, par := range strings.Split(m[1], "\n\n") {
			if strings.Contains(par, ">>>") {
				continue
			}
			out = append(out, par)
		}
	}
	return append(out, commentBlocks(path, "#")...)
}

func gunzip(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(z, 4<<20))
	if err != nil {
		return ""
	}
	return string(data)
}

// debianEntries returns the "  * …" entries of a Debian changelog.
func debianEntries(path string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(gunzip(path), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "+ "):
			flush()
			cur = append(cur, t[2:])
		case strings.HasPrefix(line, "    ") && len(cur) > 0 && t != "":
			cur = append(cur, t)
		default:
			flush()
		}
	}
	flush()
	return out
}

var troffEsc = regexp.MustCompile(`\\f[BIRP]|\\f\(..|\\&|\\\(..|\\-|\\e|\\s[-+]?\d`)

// manText returns the prose paragraphs of a man page (troff requests dropped).
func manText(path string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(gunzip(path), "\n") {
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			flush()
			continue
		}
		line = strings.ReplaceAll(troffEsc.ReplaceAllString(line, ""), `\-`, "-")
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}
