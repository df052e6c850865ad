package indexes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

func tfOf(words ...string) fingerprint.TermFreqs {
	counts := map[string]uint32{}
	for _, w := range words {
		counts[w]++
	}
	var tf fingerprint.TermFreqs
	for w := range counts {
		tf.Terms = append(tf.Terms, w)
	}
	slices.Sort(tf.Terms)
	for _, w := range tf.Terms {
		tf.Counts = append(tf.Counts, counts[w])
	}
	return tf
}

func TestBM25HandComputed(t *testing.T) {
	x, err := NewBM25("E6", DefaultBM25)
	must(t, err)
	must(t, x.Add(1, tfOf("parse", "error", "parse")))           // dl 3
	must(t, x.Add(2, tfOf("parse", "config", "file", "loader"))) // dl 4
	must(t, x.Add(3, tfOf("error")))                             // dl 1
	st := x.Stats()
	if st.Docs != 3 || st.Terms != 5 || math.Abs(st.AvgDocLen-8.0/3) > 1e-12 {
		t.Fatalf("stats %+v, want 3 docs, 5 terms, avgdl 8/3", st)
	}
	got, err := x.Search([]string{"parse"}, 10, nil)
	must(t, err)
	// idf(parse) = ln(1 + (3−2+0.5)/(2+0.5)) = ln 1.6
	idf := math.Log(1.6)
	bm := func(tf, dl float64) float64 {
		return idf * tf * 2.2 / (tf + 1.2*(1-0.75+0.75*dl/(8.0/3)))
	}
	want := Hits{{1, float32(bm(2, 3))}, {2, float32(bm(1, 4))}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Search(parse) = %v, want %v", got, want)
	}
	// Deleting doc 2 updates N, df and avgdl: parse now has df 1 of N 2.
	if !x.Delete(2) {
		t.Fatal("Delete(2) = false")
	}
	if st := x.Stats(); st.Docs != 2 || st.Terms != 2 || st.AvgDocLen != 2 {
		t.Fatalf("stats after delete %+v, want 2 docs, 2 terms, avgdl 2", st)
	}
	if b := x.Bytes(); b < 2*8+3*4 {
		t.Errorf("Bytes = %d, below the 2 postings and 3 forward terms left", b)
	}
	if x.DocFreq("parse") != 1 || x.DocFreq("config") != 0 {
		t.Errorf("df(parse) = %d, df(config) = %d; want 1, 0", x.DocFreq("parse"), x.DocFreq("config"))
	}
	got, _ = x.Search([]string{"parse", "loader"}, 10, nil)
	idf = math.Log(1 + 1.5/1.5)
	w := idf * 2 * 2.2 / (2 + 1.2*(1-0.75+0.75*3/2.0))
	if len(got) != 1 || got[0].Doc != 1 || math.Abs(float64(got[0].Score)-w) > 1e-6 {
		t.Fatalf("after delete Search = %v, want doc 1 score %v", got, w)
	}
	// Term frequency and length both matter (real BM25, not IDF only).
	y, _ := NewBM25("E6", DefaultBM25)
	must(t, y.Add(1, tfOf("a", "x")))
	must(t, y.Add(2, tfOf("a", "a", "x")))
	must(t, y.Add(3, tfOf("a", "x", "y", "z", "w")))
	must(t, y.Add(4, tfOf("q")))
	got, _ = y.Search([]string{"a"}, 3, nil)
	if fmt.Sprint(got.Docs()) != "[2 1 3]" {
		t.Errorf("tf/length ranking %v, want [2 1 3]", got)
	}
}

func TestBM25BadInput(t *testing.T) {
	if _, err := NewBM25("E6", BM25Params{K1: 1.2, B: 1.5}); err == nil || !strings.Contains(err.Error(), "[0, 1]") {
		t.Errorf("b = 1.5: %v", err)
	}
	x, _ := NewBM25("E6", DefaultBM25)
	for _, c := range []struct {
		tf   fingerprint.TermFreqs
		want string
	}{
		{fingerprint.TermFreqs{Terms: []string{"b", "a"}, Counts: []uint32{1, 1}}, "strictly ascending"},
		{fingerprint.TermFreqs{Terms: []string{"a"}, Counts: []uint32{0}}, "count 0"},
		{fingerprint.TermFreqs{Terms: []string{"a"}}, "1 terms but 0 counts"},
	} {
		if err := x.Add(1, c.tf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%v): %v, want %q", c.tf, err, c.want)
		}
	}
	if x.Stats().Docs != 0 {
		t.Error("a rejected add was indexed")
	}
	if err := x.Build([]record.DocNum{1, 1}, []fingerprint.TermFreqs{tfOf("a"), tfOf("b")}); err == nil {
		t.Error("Build with a duplicate doc succeeded")
	}
}

// zipfCorpus makes n docs over a vocabulary of v terms with Zipfian frequencies,
// the shape of real keyword and SPLADE postings.
func zipfCorpus(seed uint64, n, v int) ([]fingerprint.TermFreqs, []fingerprint.Sparse, *rand.Rand) {
	rng := rand.New(rand.NewPCG(seed, 1))
	z := rand.NewZipf(rng, 1.1, 2, uint64(v-1))
	tfs := make([]fingerprint.TermFreqs, n)
	sps := make([]fingerprint.Sparse, n)
	for i := range n {
		words := make([]string, 5+rng.IntN(60))
		weights := map[uint32]float32{}
		for j := range words {
			t := z.Uint64()
			words[j] = fmt.Sprintf("t%d", t)
			weights[uint32(t)] = float32(math.Log1p(rng.Float64() * 3))
		}
		tfs[i] = tfOf(words...)
		for t := range weights {
			sps[i].Indices = append(sps[i].Indices, t)
		}
		slices.Sort(sps[i].Indices)
		for _, t := range sps[i].Indices {
			sps[i].Weights = append(sps[i].Weights, weights[t])
		}
	}
	return tfs, sps, rng
}

func sameHits(t *testing.T, label string, got, want Hits) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, exhaustive %d", label, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: rank %d: MaxScore %v, exhaustive %v", label, i, got[i], want[i])
		}
	}
}

func TestMaxScoreEqualsExhaustive(t *testing.T) {
	const n, v = 3000, 2000
	tfs, sps, rng := zipfCorpus(5, n, v)
	bm, _ := NewBM25("E6", DefaultBM25)
	sp := NewSplade("E13")
	docs := make([]record.DocNum, n)
	for i := range docs {
		docs[i] = record.DocNum(i)
	}
	must(t, bm.Build(docs, tfs))
	must(t, sp.Build(docs, sps))
	for d := record.DocNum(0); d < n; d += 4 {
		bm.Delete(d)
		sp.Delete(d)
	}
	filter := roaring.New()
	for d := uint32(0); d < n; d += 3 {
		filter.Add(d)
	}
	for qi := range 200 {
		nt := 1 + rng.IntN(8)
		var words []string
		var sq fingerprint.Sparse
		seen := map[uint32]bool{}
		for range nt {
			term := uint32(rng.IntN(300)) // mix of frequent and rare terms
			if qi%3 == 0 {
				term = uint32(rng.IntN(v))
			}
			words = append(words, fmt.Sprintf("t%d", term))
			if !seen[term] {
				seen[term] = true
				sq.Indices = append(sq.Indices, term)
			}
		}
		slices.Sort(sq.Indices)
		for range sq.Indices {
			sq.Weights = append(sq.Weights, float32(rng.Float64()*2))
		}
		for _, k := range []int{1, 10, 100} {
			for _, f := range []*roaring.Bitmap{nil, filter} {
				label := fmt.Sprintf("query %d %v k=%d filter=%v", qi, words, k, f != nil)
				got, err := bm.search(words, nil, k, f, algoMaxScore)
				must(t, err)
				want, _ := bm.SearchExhaustive(words, k, f)
				sameHits(t, "BM25 "+label, got, want)
				got, err = sp.search(sq, k, f, algoMaxScore)
				must(t, err)
				want, _ = sp.SearchExhaustive(sq, k, f)
				sameHits(t, "SPLADE "+label, got, want)
				for _, h := range got {
					if h.Doc%4 == 0 {
						t.Fatalf("deleted doc %d returned", h.Doc)
					}
				}
			}
		}
	}
}

func TestMaxScoreTies(t *testing.T) {
	// Many equal scores: the tie-break (ascending doc) must match exactly.
	sp := NewSplade("E13")
	for d := range record.DocNum(500) {
		must(t, sp.Add(d, fingerprint.Sparse{Indices: []uint32{uint32(d % 3), 7}, Weights: []float32{1, 0.5}}))
	}
	q := fingerprint.Sparse{Indices: []uint32{0, 1, 7}, Weights: []float32{1, 1, 1}}
	for _, k := range []int{1, 5, 50, 499, 600} {
		got, _ := sp.search(q, k, nil, algoMaxScore)
		want, _ := sp.SearchExhaustive(q, k, nil)
		sameHits(t, fmt.Sprintf("k=%d", k), got, want)
	}
	got, _ := sp.Search(q, 3, nil)
	if fmt.Sprint(got) != "[{0 1.5} {1 1.5} {3 1.5}]" {
		t.Errorf("top 3 with ties = %v", got)
	}
}

func TestSpladeBadInput(t *testing.T) {
	sp := NewSplade("E13")
	for _, c := range []struct {
		v    fingerprint.Sparse
		want string
	}{
		{fingerprint.Sparse{Indices: []uint32{1}, Weights: []float32{-1}}, "≥ 0"},
		{fingerprint.Sparse{Indices: []uint32{2, 2}, Weights: []float32{1, 1}}, "strictly ascending"},
		{fingerprint.Sparse{Indices: []uint32{2}}, "1 indices but 0 weights"},
	} {
		if err := sp.Add(1, c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%v) = %v, want %q", c.v, err, c.want)
		}
		if _, err := sp.Search(c.v, 5, nil); err == nil {
			t.Errorf("Search(%v) accepted", c.v)
		}
	}
	if sp.Len() != 0 {
		t.Error("a rejected add was indexed")
	}
}

// FuzzMaxScoreExact checks on arbitrary small corpora that MaxScore returns
// exactly the exhaustive top k, for BM25 and SPLADE.
func FuzzMaxScoreExact(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(3))
	f.Add([]byte{0, 0, 0, 0, 255, 255, 1, 1, 1, 2, 2, 2, 3, 3}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, k8 uint8) {
		if len(data) < 2 {
			return
		}
		k := int(k8%20) + 1
		bm, _ := NewBM25("E6", DefaultBM25)
		sp := NewSplade("E13")
		// Each doc: bytes until a 0xFF separator; byte → term (b%16), weight (b/16).
		doc := record.DocNum(0)
		var words []string
		sv := map[uint32]float32{}
		flush := func() {
			if len(words) > 0 {
				must(t, bm.Add(doc, tfOf(words...)))
				var v fingerprint.Sparse
				for term := range sv {
					v.Indices = append(v.Indices, term)
				}
				slices.Sort(v.Indices)
				for _, term := range v.Indices {
					v.Weights = append(v.Weights, sv[term])
				}
				must(t, sp.Add(doc, v))
			}
			doc++
			words, sv = nil, map[uint32]float32{}
		}
		query := data[:min(4, len(data))]
		for _, b := range data[len(query):] {
			if b == 0xFF {
				flush()
				continue
			}
			words = append(words, fmt.Sprintf("t%d", b%16))
			sv[uint32(b%16)] = float32(b/16) / 4
		}
		flush()
		if doc > 2 { // delete one doc to exercise stale bounds
			bm.Delete(1)
			sp.Delete(1)
		}
		var qw []string
		var qs fingerprint.Sparse
		for _, b := range query {
			qw = append(qw, fmt.Sprintf("t%d", b%16))
			if !slices.Contains(qs.Indices, uint32(b%16)) {
				qs.Indices = append(qs.Indices, uint32(b%16))
			}
		}
		slices.Sort(qs.Indices)
		for i := range qs.Indices {
			qs.Weights = append(qs.Weights, float32(i+1)/2)
		}
		got, _ := bm.search(qw, nil, k, nil, algoMaxScore)
		want, _ := bm.SearchExhaustive(qw, k, nil)
		sameHits(t, "BM25", got, want)
		got, _ = sp.search(qs, k, nil, algoMaxScore)
		want, _ = sp.SearchExhaustive(qs, k, nil)
		sameHits(t, "SPLADE", got, want)
	})
}

func TestBuildOrderDoesNotMatter(t *testing.T) {
	tfs, sps, _ := zipfCorpus(17, 500, 300)
	docs := make([]record.DocNum, len(tfs))
	for i := range docs {
		docs[i] = record.DocNum((i * 7919) % len(tfs)) // a permutation: arbitrary order
	}
	a, _ := NewBM25("E6", DefaultBM25)
	b, _ := NewBM25("E6", DefaultBM25)
	must(t, a.Build(docs, tfs))
	for i, d := range docs {
		must(t, b.Add(d, tfs[i]))
	}
	sa, sb := NewSplade("a"), NewSplade("b")
	must(t, sa.Build(docs, sps))
	for i, d := range docs {
		must(t, sb.Add(d, sps[i]))
	}
	for q := range 20 {
		words := []string{fmt.Sprintf("t%d", q), fmt.Sprintf("t%d", q*3+1)}
		ha, _ := a.Search(words, 20, nil)
		hb, _ := b.Search(words, 20, nil)
		sameHits(t, fmt.Sprintf("BM25 query %v", words), ha, hb)
		if len(ha) == 0 {
			t.Fatalf("query %v matched nothing", words)
		}
		sq := fingerprint.Sparse{Indices: []uint32{uint32(q), uint32(q*3 + 1)}, Weights: []float32{1, 0.5}}
		ha, _ = sa.Search(sq, 20, nil)
		hb, _ = sb.Search(sq, 20, nil)
		sameHits(t, fmt.Sprintf("SPLADE query %v", sq), ha, hb)
	}
}
