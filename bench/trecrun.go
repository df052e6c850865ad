package bench

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// TREC run files: one line per retrieved document,
//
//	qid Q0 docid rank score run_name
//
// whitespace-separated, as trec_eval, pytrec_eval, Anserini and Pyserini
// read and write them. trec_eval ignores the rank column: it orders each
// query's documents by score, descending, ties broken by docid descending.
// So that it evaluates the ranking cgraph evaluated, WriteTRECRun keeps the
// retriever's scores but lowers a score that is not strictly below the
// previous one (a tie, an inversion, NaN) to the next float below it, and
// counts those lines. ParseTRECRun orders documents the trec_eval way.

// RankedQuery is one query's ranking, best first.
type RankedQuery struct {
	Query  QueryID
	Ranked []Ranked
}

// TRECRun is a parsed TREC run: the rankings of one run tag, in trec_eval's
// order, and the queries in first-seen order.
type TRECRun struct {
	Tag      string
	Queries  []QueryID
	Rankings map[QueryID][]Ranked
}

// TRECRunTag turns a run name into a run tag (the sixth column), which
// cannot hold whitespace.
func TRECRunTag(name string) string {
	return strings.Join(strings.Fields(name), "_")
}

// TRECRunFileName is the file a run's TREC run is written to: the name with
// every character outside [A-Za-z0-9._-] replaced by "_", plus ".trec".
func TRECRunFileName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b) + ".trec"
}

// trecScores returns the scores to write for one ranking, strictly
// decreasing, and how many differ from the retriever's.
func trecScores(ranked []Ranked) ([]float64, int) {
	out := make([]float64, len(ranked))
	changed := 0
	for i, r := range ranked {
		s := r.Score
		switch {
		case i == 0 && (math.IsNaN(s) || math.IsInf(s, 0)):
			s = 0
		case i > 0 && !(s < out[i-1]) || math.IsNaN(s) || math.IsInf(s, 0):
			s = math.Nextafter(out[i-1], math.Inf(-1))
		}
		if s != r.Score {
			changed++
		}
		out[i] = s
	}
	return out, changed
}

// WriteTRECRun writes rankings as TREC run lines under run tag tag,
// returning how many scores it had to lower (see the file comment).
func WriteTRECRun(w io.Writer, tag string, rankings []RankedQuery) (adjusted int, err error) {
	bw := bufio.NewWriter(w)
	for _, rq := range rankings {
		n, err := writeTRECQuery(bw, tag, rq)
		if err != nil {
			return adjusted, err
		}
		adjusted += n
	}
	if err := bw.Flush(); err != nil {
		return adjusted, fmt.Errorf("write TREC run: %w", err)
	}
	return adjusted, nil
}

// writeTRECQuery writes one query's lines; ids holding whitespace cannot be
// written (the format has no quoting) and are refused.
func writeTRECQuery(w io.Writer, tag string, rq RankedQuery) (int, error) {
	if strings.ContainsFunc(string(rq.Query), isSpace) {
		return 0, fmt.Errorf("query id %q holds whitespace, which a TREC run cannot", rq.Query)
	}
	scores, adjusted := trecScores(rq.Ranked)
	for i, r := range rq.Ranked {
		if strings.ContainsFunc(string(r.ID), isSpace) {
			return 0, fmt.Errorf("document id %q holds whitespace, which a TREC run cannot", r.ID)
		}
		if _, err := fmt.Fprintf(w, "%s Q0 %s %d %s %s\n", rq.Query, r.ID, i+1, strconv.FormatFloat(scores[i], 'g', -1, 64), tag); err != nil {
			return 0, fmt.Errorf("write TREC run: %w", err)
		}
	}
	return adjusted, nil
}

// isSpace is what separates TREC fields when read (strings.Fields).
func isSpace(r rune) bool { return unicode.IsSpace(r) }

// ParseTRECRun parses a TREC run file (plain or gzip), one TRECRun per run
// tag in first-seen order. Lines need six whitespace-separated fields with a
// numeric score; a document listed twice for one query and tag is refused
// (trec_eval refuses it too). Rankings are sorted as trec_eval sorts them.
func ParseTRECRun(r io.Reader, name string) (_ []*TRECRun, err error) {
	dr, closeZ, err := decompressed(r, name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := closeZ(); err == nil && cerr != nil {
			err = fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	var runs []*TRECRun
	byTag := map[string]*TRECRun{}
	seen := map[[3]string]int{}
	sc := bufio.NewScanner(dr)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("%s:%d: want 6 whitespace-separated fields (qid Q0 docid rank score run_name), got %d", name, n, len(f))
		}
		score, err := strconv.ParseFloat(f[4], 64)
		if err != nil || math.IsNaN(score) {
			return nil, fmt.Errorf("%s:%d: score %q is not a number", name, n, f[4])
		}
		key := [3]string{f[5], f[0], f[2]}
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s:%d: run %s lists document %s for query %s again (first on line %d)", name, n, f[5], f[2], f[0], prev)
		}
		seen[key] = n
		run := byTag[f[5]]
		if run == nil {
			run = &TRECRun{Tag: f[5], Rankings: map[QueryID][]Ranked{}}
			byTag[f[5]] = run
			runs = append(runs, run)
		}
		q := QueryID(f[0])
		if _, ok := run.Rankings[q]; !ok {
			run.Queries = append(run.Queries, q)
		}
		run.Rankings[q] = append(run.Rankings[q], Ranked{ID: DocID(f[2]), Score: score})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no run lines (qid Q0 docid rank score run_name)", name)
	}
	for _, run := range runs {
		for _, rs := range run.Rankings {
			sortTREC(rs)
		}
	}
	return runs, nil
}

// sortTREC orders a ranking as trec_eval does: score descending, then docid
// descending.
func sortTREC(rs []Ranked) {
	slices.SortStableFunc(rs, func(a, b Ranked) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(string(b.ID), string(a.ID))
	})
}

// ReadTRECRun reads a TREC run file; see ParseTRECRun.
func ReadTRECRun(path string) ([]*TRECRun, error) {
	return readFileOne(path, ParseTRECRun)
}

func readFileOne[T any](path string, parse func(io.Reader, string) (T, error)) (out T, err error) {
	f, err := os.Open(path)
	if err != nil {
		return out, fmt.Errorf("open run file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	return parse(f, path)
}

// trecRunWriter streams one run's TREC lines into a temporary file beside
// its final name and renames it into place when the run is complete.
type trecRunWriter struct {
	tag, final, tmp string
	f               *os.File
	w               *bufio.Writer
	adjusted        int
}

func newTRECRunWriter(dir, name string) (*trecRunWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	final := filepath.Join(dir, TRECRunFileName(name))
	f, err := os.CreateTemp(dir, "."+filepath.Base(final)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create TREC run for %s: %w", name, err)
	}
	return &trecRunWriter{tag: TRECRunTag(name), final: final, tmp: f.Name(), f: f, w: bufio.NewWriter(f)}, nil
}

func (t *trecRunWriter) add(rq RankedQuery) error {
	n, err := writeTRECQuery(t.w, t.tag, rq)
	t.adjusted += n
	return err
}

// commit flushes, closes and renames the file into place.
func (t *trecRunWriter) commit() error {
	if err := t.w.Flush(); err != nil {
		t.abort()
		return fmt.Errorf("write %s: %w", t.final, err)
	}
	if err := t.f.Close(); err != nil {
		_ = os.Remove(t.tmp) // the close error is what matters
		return fmt.Errorf("close %s: %w", t.final, err)
	}
	if err := os.Rename(t.tmp, t.final); err != nil {
		return fmt.Errorf("rename %s: %w", t.final, err)
	}
	return nil
}

// abort drops the temporary file of an unfinished run.
func (t *trecRunWriter) abort() {
	_ = t.f.Close()      // nothing was promised about an unfinished run
	_ = os.Remove(t.tmp) // best effort, as above
}

// EvaluateTRECRun scores a parsed run over ds's evaluated queries with
// metrics, as a RunResult that Compare pairs with cgraph's runs. A query the
// run lacks is scored as an empty ranking, as trec_eval -c scores it; its
// rankings are cut at k (0 = whole).
func EvaluateTRECRun(run *TRECRun, ds *Dataset, metrics []Metric, k int) RunResult {
	res := RunResult{Name: run.Tag, Mode: "trec_run", Metrics: Metrics{}, CI95: map[string]CI{}}
	per := make([]Metrics, 0, len(ds.Queries))
	for _, q := range ds.Queries {
		rs := run.Rankings[q.ID]
		if k > 0 && len(rs) > k {
			rs = rs[:k]
		}
		ids := make([]DocID, len(rs))
		for i, r := range rs {
			ids[i] = r.ID
		}
		m := EvaluateMetrics(ids, ds.Qrels[q.ID], metrics)
		per = append(per, m)
		res.Queries = append(res.Queries, QueryResult{ID: q.ID, Metrics: m, Top: ids[:min(10, len(ids))]})
	}
	res.Metrics = Mean(per)
	return res
}
