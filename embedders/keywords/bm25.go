package keywords

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sync"

	"github.com/cgraph/cgraph/fingerprint"
)

// TermFreqs counts the tokens of text into an E6 value: unique terms in
// ascending order with their counts; the document length is the sum.
//
// Declared names weigh more: the identifier after func, def, class, type,
// function, fn, struct, interface, enum or trait at the start of a line
// counts NameWeight times in all — the field a code search's query
// describes most often. (Measured with E6 alone on 2,000 Go and 2,000 Python
// doc-comment → function pairs: nDCG@10 0.632 → 0.652 and 0.533 → 0.559.)
func TermFreqs(text string) fingerprint.TermFreqs {
	toks := Tokenize(text)
	weigh := func(name string) {
		words := Tokenize(name)
		for range NameWeight - 1 {
			toks = append(toks, words...)
		}
	}
	first, _ := DefinedName(text)
	for _, m := range declName.FindAllStringSubmatch(text, -1) {
		weigh(m[1])
		if m[1] == first {
			first = ""
		}
	}
	// The first code line's definition where no declaration keyword
	// precedes its name: Java, C#, C++ and PHP methods behind modifiers or a
	// return type, JavaScript functions bound to a name (+0.020 nDCG@10 for
	// E6 alone on held-out Java, Go and Python unchanged:
	// docs/BENCHMARKS.md "E6 weighs every language's defined name").
	if first != "" {
		weigh(first)
	}
	return Count(toks)
}

// NameWeight is how many times a declared name's terms count.
const NameWeight = 3

var declName = regexp.MustCompile(`(?m)^[ \t]*(?:export[ \t]+)?(?:pub[ \t]+)?(?:async[ \t]+)?(?:func|def|class|type|function|fn|struct|interface|enum|trait)[ \t]+(?:\([^)\n]*\)[ \t]*)?([A-Za-z_$][A-Za-z0-9_$]*)`)

// Count turns a token stream into sorted term frequencies.
func Count(tokens []string) fingerprint.TermFreqs {
	if len(tokens) == 0 {
		return fingerprint.TermFreqs{}
	}
	s := slices.Clone(tokens)
	slices.Sort(s)
	var tf fingerprint.TermFreqs
	for i, t := range s {
		if i > 0 && s[i-1] == t {
			tf.Counts[len(tf.Counts)-1]++
			continue
		}
		tf.Terms = append(tf.Terms, t)
		tf.Counts = append(tf.Counts, 1)
	}
	return tf
}

// CorpusStats is what BM25 needs to know about the collection. The owner of
// the E6 inverted index implements it; reads must be consistent with one
// another for the duration of a query.
type CorpusStats interface {
	// NumDocs is N, the number of documents with an E6 value.
	NumDocs() uint64
	// DocFreq is df(t), the number of documents containing term.
	DocFreq(term string) uint64
	// AvgDocLen is the mean document length (sum of counts) over the N documents.
	AvgDocLen() float64
}

// BM25 holds the Okapi BM25 parameters. The zero value is not useful; use
// DefaultBM25.
type BM25 struct {
	K1, B float64
}

// DefaultBM25 is k1 = 1.2, b = 0.75.
var DefaultBM25 = BM25{K1: 1.2, B: 0.75}

// IDF is the non-negative BM25 inverse document frequency used by Lucene:
// ln(1 + (N − df + 0.5)/(df + 0.5)).
func IDF(n, df uint64) float64 {
	if df > n {
		df = n
	}
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// Score is the BM25 score of doc for query:
//
//	Σ over query terms t (with multiplicity qtf):
//	  qtf · IDF(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|doc|/avgdl))
//
// Terms absent from doc add 0. Scores are ≥ 0 and unbounded; they are ranked,
// never mixed with cosine scores. Cost O(|query| · log |doc|).
func (p BM25) Score(query, doc fingerprint.TermFreqs, st CorpusStats) float64 {
	n, avgdl := st.NumDocs(), st.AvgDocLen()
	if n == 0 || avgdl <= 0 {
		return 0
	}
	norm := p.K1 * (1 - p.B + p.B*float64(doc.DocLen())/avgdl)
	var score float64
	for i, t := range query.Terms {
		tf := float64(doc.Count(t))
		if tf == 0 {
			continue
		}
		score += float64(query.Counts[i]) * IDF(n, st.DocFreq(t)) * tf * (p.K1 + 1) / (tf + norm)
	}
	return score
}

// MemStats is an in-memory CorpusStats for small collections and tests. It is
// safe for concurrent use.
type MemStats struct {
	mu     sync.RWMutex
	docs   uint64
	length uint64
	df     map[string]uint64
}

var _ CorpusStats = (*MemStats)(nil)

// NewMemStats returns empty statistics.
func NewMemStats() *MemStats { return &MemStats{df: map[string]uint64{}} }

// Add counts one document in.
func (m *MemStats) Add(tf fingerprint.TermFreqs) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.docs++
	m.length += tf.DocLen()
	for _, t := range tf.Terms {
		m.df[t]++
	}
}

// Remove counts one previously added document out. Removing a document never
// added is an error and changes nothing.
func (m *MemStats) Remove(tf fingerprint.TermFreqs) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.docs == 0 || m.length < tf.DocLen() {
		return fmt.Errorf("remove from BM25 statistics: document was never added")
	}
	for _, t := range tf.Terms {
		if m.df[t] == 0 {
			return fmt.Errorf("remove from BM25 statistics: term %q has no documents; document was never added", t)
		}
	}
	m.docs--
	m.length -= tf.DocLen()
	for _, t := range tf.Terms {
		if m.df[t]--; m.df[t] == 0 {
			delete(m.df, t)
		}
	}
	return nil
}

// NumDocs returns N.
func (m *MemStats) NumDocs() uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.docs
}

// DocFreq returns df(term).
func (m *MemStats) DocFreq(term string) uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.df[term]
}

// AvgDocLen returns the mean document length, 0 for an empty corpus.
func (m *MemStats) AvgDocLen() float64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.docs == 0 {
		return 0
	}
	return float64(m.length) / float64(m.docs)
}
