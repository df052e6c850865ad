package hdc

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestTypoStaysClose is the E9 acceptance test: a misspelling stays close,
// unrelated words do not. The figures are logged for the report.
func TestTypoStaysClose(t *testing.T) {
	pairs := []struct {
		a, b    string
		related bool
	}{
		{"authentication", "authetication", true},
		{"authentication", "authentcation", true},
		{"authentication", "athentication", true},
		{"configuration", "configuraiton", true},
		{"ListenAndServe", "ListenAndSrve", true},
		{"authentication", "database", false},
		{"authentication", "performance", false},
		{"configuration", "goroutine", false},
		{"ListenAndServe", "ReadAll", false},
	}
	minRelated, maxUnrelated := 1.0, 0.0
	minRelatedCos, maxUnrelatedCos := 1.0, -1.0
	for _, p := range pairs {
		a, b := Encode(p.a), Encode(p.b)
		h := Similarity(a, b)
		c := cosine(Project(a), Project(b))
		t.Logf("E9 %-16s vs %-16s Hamming similarity %.4f, projection cosine %.4f", p.a, p.b, h, c)
		if p.related {
			minRelated, minRelatedCos = min(minRelated, h), min(minRelatedCos, c)
		} else {
			maxUnrelated, maxUnrelatedCos = max(maxUnrelated, h), max(maxUnrelatedCos, c)
		}
	}
	if minRelated < 0.70 || maxUnrelated > 0.60 {
		t.Errorf("typos: lowest similarity %.4f (want ≥ 0.70); unrelated: highest %.4f (want ≤ 0.60)", minRelated, maxUnrelated)
	}
	if minRelatedCos <= maxUnrelatedCos+0.2 {
		t.Errorf("projection does not separate: typo cosine ≥ %.4f, unrelated ≤ %.4f", minRelatedCos, maxUnrelatedCos)
	}
}

func TestEncodeProperties(t *testing.T) {
	a := Encode("The quick brown fox")
	if Similarity(a, Encode("the QUICK   brown fox!")) != 1 {
		t.Error("case and punctuation should not matter")
	}
	if got := Similarity(a, a); got != 1 {
		t.Errorf("self similarity %v", got)
	}
	ones := 0
	for _, w := range a {
		for ; w != 0; w &= w - 1 {
			ones++
		}
	}
	if ones < 4500 || ones > 5500 {
		t.Errorf("%d of %d bits set; a bundled hypervector should be about half ones", ones, fingerprint.HyperBits)
	}
	if a[len(a)-1]>>(fingerprint.HyperBits%64) != 0 {
		t.Error("bits beyond HyperBits set")
	}
	// Non-ASCII runes take the on-demand path and still behave.
	if s := Similarity(Encode("Größenänderung"), Encode("Grössenänderung")); s < 0.7 {
		t.Errorf("non-ASCII typo similarity %v", s)
	}
	// Rotation is a permutation: rotating by nbits is the identity.
	var v, r1, r2 hv
	randomHV(&v, 42)
	rotate(&r1, &v, 1)
	rotate(&r2, &r1, nbits-1)
	if r2 != v || r1 == v {
		t.Error("rotate is not a cyclic permutation over HyperBits")
	}
}

func TestEmbedder(t *testing.T) {
	ctx := context.Background()
	es, err := Embedder{}.EmbedDocuments(ctx, []embedders.Input{{Text: "fix authentication bug"}, {Text: "--- !!"}})
	if err != nil {
		t.Fatal(err)
	}
	var f fingerprint.Fingerprint
	if err := f.Set(fingerprint.E9, es[0]); err != nil {
		t.Fatalf("E9 entry does not validate: %v", err)
	}
	if es[1].Status != fingerprint.StatusUnavailable {
		t.Errorf("text without letters: %+v", es[1])
	}
	q, err := Embedder{}.EmbedQuery(ctx, embedders.Query{Text: "authetication bug"})
	if err != nil {
		t.Fatal(err)
	}
	h := q.Value.(fingerprint.Hyper)
	if s := Similarity(h.Bits, es[0].Value.(fingerprint.Hyper).Bits); s < 0.6 {
		t.Errorf("query with a typo vs document: %v", s)
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, n := range []int{100, 400} {
		text := strings.Repeat("handle the authentication error in ServeHTTP ", n/6)
		b.Run(map[int]string{100: "100tokens", 400: "400tokens"}[n], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_ = Project(Encode(text))
			}
		})
	}
}

// encodeNaive is the definition of Encode written plainly: per-bit integer
// counts of every bound trigram, majority over more than half.
func encodeNaive(text string) []uint64 {
	rs := normalize(text)
	var counts [fingerprint.HyperBits]int
	n := 0
	addVec := func(v *hv) {
		n++
		for i := range counts {
			if v[i>>6]>>(i&63)&1 != 0 {
				counts[i]++
			}
		}
	}
	for i := 0; i+N <= len(rs); i++ {
		var g, t hv
		for p := range N {
			charVector(&t, rs[i+p], p)
			for w := range g {
				g[w] ^= t[w]
			}
		}
		addVec(&g)
	}
	out := make([]uint64, fingerprint.HyperWords)
	if n == 0 {
		return out
	}
	if n%2 == 0 {
		tb := tieBreaker
		addVec(&tb)
	}
	for i, c := range counts {
		if c > n/2 {
			out[i>>6] |= 1 << (i & 63)
		}
	}
	return out
}

// TestEncodeMatchesDefinition pins the bit-sliced Harley–Seal bundle to the
// plain per-bit majority, for odd and even trigram counts and non-ASCII text.
func TestEncodeMatchesDefinition(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "abcd", "authentication", "Größenänderung 世界",
		strings.Repeat("func main() { http.ListenAndServe(\":8080\", nil) } ", 7)} {
		got, want := Encode(s), encodeNaive(s)
		if Similarity(got, want) != 1 {
			t.Errorf("Encode(%q) differs from the definition in %.0f bits", s, (1-Similarity(got, want))*fingerprint.HyperBits)
		}
	}
}

// TestSentenceLevel: a whole memory with one typo stays near its original, a
// short query with the typo still lands closer than an unrelated memory.
func TestSentenceLevel(t *testing.T) {
	mem := Encode("fix the authentication middleware so expired tokens return 401")
	cases := []struct {
		text     string
		min, max float64
	}{
		{"fix the authetication middleware so expired tokens return 401", 0.85, 1},
		{"authetication middleware expired token", 0.70, 0.85},
		{"the compaction job in rocksdb stalls when the disk is full", 0, 0.62},
	}
	for _, c := range cases {
		s := Similarity(mem, Encode(c.text))
		t.Logf("E9 memory vs %q: %.4f", c.text, s)
		if s < c.min || s > c.max {
			t.Errorf("%q: similarity %.4f, want in [%v, %v]", c.text, s, c.min, c.max)
		}
	}
}

// FuzzEncodeMatchesDefinition: Encode is the plain per-bit majority on any
// text, right after a longer text has used (and left dirty) the pooled
// counter planes.
func FuzzEncodeMatchesDefinition(f *testing.F) {
	for _, s := range []string{"", "ab", "abcd", "Größe 世界", "func main() {}"} {
		f.Add(s)
	}
	long := strings.Repeat("the quick brown fox jumps over the lazy dog 0123456789 ", 40)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 300 {
			return
		}
		Encode(long)
		if got, want := Encode(s), encodeNaive(s); Similarity(got, want) != 1 {
			t.Fatalf("Encode(%q) differs from the definition in %.0f bits", s, (1-Similarity(got, want))*fingerprint.HyperBits)
		}
	})
}

// TestEncodeConcurrent: Encode is safe for concurrent use (its counter
// state comes from a pool): texts of different lengths encoded at once
// give what they give one at a time.
func TestEncodeConcurrent(t *testing.T) {
	texts := []string{"a", "authentication", strings.Repeat("handle the error in ServeHTTP ", 30), "Größe 世界", strings.Repeat("x", 500)}
	want := make([][]uint64, len(texts))
	for i, s := range texts {
		want[i] = Encode(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 50 {
				i := (g + k) % len(texts)
				if got := Encode(texts[i]); Similarity(got, want[i]) != 1 {
					t.Errorf("Encode(%.20q) differs under concurrency", texts[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
