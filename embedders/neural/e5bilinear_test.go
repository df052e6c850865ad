package neural

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// heldOutPair is causalgen's split: a pair is held out when the last hex
// digit of the first 8 bytes of sha256(lower(cause|effect)) is odd.
func heldOutPair(c, e string) bool {
	h := sha256.Sum256([]byte(strings.ToLower(c + "|" + e)))
	key := fmt.Sprintf("%x", h[:8])
	return strings.IndexByte("13579bdf", key[len(key)-1]) >= 0
}

func loadPairFile(t *testing.T, path string) (train, test []causalPair) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var p causalPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if heldOutPair(p.Cause, p.Effect) {
			test = append(test, p)
		} else {
			train = append(train, p)
		}
	}
	return train, test
}

// findEffects ranks, for each held-out cause, every held-out cause and
// effect by score(query, doc) and reports the mean reciprocal rank of the
// true effect and how often it beats the cause text itself: the
// directional dev set in miniature.
func findEffects(q [][]float32, docs [][]float32, n int) (mrr, beatsSelf float64) {
	for i := range n {
		want := cosine(q[i], docs[n+i]) // docs: causes 0..n-1, effects n..2n-1
		rank := 1
		for j := range docs {
			if j != n+i && cosine(q[i], docs[j]) > want {
				rank++
			}
		}
		mrr += 1 / float64(rank)
		if want > cosine(q[i], docs[i]) {
			beatsSelf++
		}
	}
	return mrr / float64(n), beatsSelf / float64(n)
}

// TestE5BilinearExperiment compares E5 heads on the mined pairs. Result (bge-small-en-v1.5-q,
// 2,000 training / 800 held-out pairs of causalgen -all): the bilinear head reaches pair
// accuracy 0.55–0.58 and find-effects MRR 0.048–0.090 for λ 0.1–3, against 0.000 / 0.081 for
// the plain encoder and 0.696 / 0.082 for the shift head — no retrieval gain, so it is not
// shipped. It compares
// (CGRAPH_E5_PAIRS, e.g. causalgen -all output), fitted on the training half
// and measured on the held-out half. CGRAPH_E5_MODEL picks the encoder
// (default bge-small-en-v1.5-q); CGRAPH_E5_PREFIX a passage prefix.
func TestE5BilinearExperiment(t *testing.T) {
	path := os.Getenv("CGRAPH_E5_PAIRS")
	if path == "" {
		t.Skip("set CGRAPH_E5_PAIRS to a causalgen -all file to compare E5 heads")
	}
	train, test := loadPairFile(t, path)
	train, test = train[:min(len(train), 2000)], test[:min(len(test), 800)]
	id := os.Getenv("CGRAPH_E5_MODEL")
	if id == "" {
		id = "bge-small-en-v1.5-q"
	}
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	lm, why, err := l.get(modelID(id))
	if err != nil || lm == nil {
		t.Skipf("model %s: %v %s", id, err, why)
	}
	prefix := os.Getenv("CGRAPH_E5_PREFIX")
	texts := func(ps []causalPair) (cs, es []string) {
		for _, p := range ps {
			cs, es = append(cs, p.Cause), append(es, p.Effect)
		}
		return
	}
	tc, te := texts(train)
	hc, he := texts(test)
	xc, xe := embedAll(t, lm.m, prefix, tc), embedAll(t, lm.m, prefix, te)
	yc, ye := embedAll(t, lm.m, prefix, hc), embedAll(t, lm.m, prefix, he)
	n := len(test)
	t.Logf("%s: %d training pairs, %d held out", id, len(train), n)
	plain := append(append([][]float32{}, yc...), ye...)
	mrr, self := findEffects(yc, plain, n)
	t.Logf("symmetric       %s; find-effects MRR %.3f, effect beats its cause %.3f", evalDirection(ye, yc, yc, ye), mrr, self)
	sh := fitShiftHead(xc, xe, 0.5)
	docsE := append(append([][]float32{}, sh.mapAll(yc, +1)...), sh.mapAll(ye, +1)...)
	mrr, self = findEffects(sh.mapAll(yc, -1), docsE, n)
	t.Logf("shift head      %s; find-effects MRR %.3f, effect beats its cause %.3f",
		evalDirection(sh.mapAll(ye, +1), sh.mapAll(yc, +1), sh.mapAll(yc, -1), sh.mapAll(ye, -1)), mrr, self)
	for _, lambda := range []float64{0.03, 0.1, 0.3, 1, 3} {
		h, err := fitBilinearHead(xc, xe, lambda)
		if err != nil {
			t.Fatal(err)
		}
		asCause := func(xs [][]float32) [][]float32 {
			out := make([][]float32, len(xs))
			for i, x := range xs {
				out[i] = h.asCause(x)
			}
			return out
		}
		asEffect := func(xs [][]float32) [][]float32 {
			out := make([][]float32, len(xs))
			for i, x := range xs {
				out[i] = h.asEffect(x)
			}
			return out
		}
		docs := append(append([][]float32{}, asEffect(yc)...), asEffect(ye)...)
		mrr, self := findEffects(yc, docs, n)
		t.Logf("bilinear λ=%-4g %s; find-effects MRR %.3f, effect beats its cause %.3f",
			lambda, evalDirection(ye, yc, asCause(yc), asCause(ye)), mrr, self)
	}
}

// bilinearHead is a directional head. M maps a cause's unit vector to its
// effect's (M c ≈ e), so with x a memory's vector, its as-cause vector is
// normalize(M x) — the effect it would have — and its as-effect vector
// normalize(Mᵀ x); a query is its plain vector:
//
//	cos(query, as-cause(d))  ∝ (M xᵈ)·x^q = xᵈᵀ Mᵀ x^q   (d as a cause of the query)
//	cos(query, as-effect(d)) ∝ (Mᵀ xᵈ)·x^q = x^qᵀ Mᵀ xᵈ  (d as an effect of the query)
//
// which differ whenever M is not symmetric: the direction lives in M.
type bilinearHead struct {
	FittedOn string    `json:"fitted_on"`
	Lambda   float64   `json:"lambda"`
	Dim      int       `json:"dim"`
	M        []float32 `json:"m"` // row-major Dim × Dim
}

// fitBilinearHead solves the ridge regression of effects on causes pulled
// toward the identity: M = argmin Σ‖M cᵢ − eᵢ‖² + λ·tr(CᵀC)/dim·‖M − I‖²,
// in closed form Mᵀ = (CᵀC + λ'I)⁻¹(CᵀE + λ'I). λ is relative to the
// average eigenvalue of CᵀC, so it does not depend on the set's size.
func fitBilinearHead(causes, effects [][]float32, lambda float64) (bilinearHead, error) {
	n, dim := len(causes), len(causes[0])
	c := mat.NewDense(n, dim, nil)
	e := mat.NewDense(n, dim, nil)
	for i := range n {
		for k := range dim {
			c.Set(i, k, float64(causes[i][k]))
			e.Set(i, k, float64(effects[i][k]))
		}
	}
	var ctc, cte mat.Dense
	ctc.Mul(c.T(), c)
	cte.Mul(c.T(), e)
	tr := 0.0
	for k := range dim {
		tr += ctc.At(k, k)
	}
	reg := lambda * tr / float64(dim)
	for k := range dim {
		ctc.Set(k, k, ctc.At(k, k)+reg)
		cte.Set(k, k, cte.At(k, k)+reg)
	}
	var mt mat.Dense // Mᵀ
	if err := mt.Solve(&ctc, &cte); err != nil {
		return bilinearHead{}, fmt.Errorf("fit the E5 head: %w", err)
	}
	h := bilinearHead{Lambda: lambda, Dim: dim, M: make([]float32, dim*dim)}
	for i := range dim {
		for j := range dim {
			h.M[i*dim+j] = float32(mt.At(j, i))
		}
	}
	return h, nil
}

// asCause is normalize(M x); asEffect is normalize(Mᵀ x).
func (h bilinearHead) asCause(x []float32) []float32  { return h.mul(x, false) }
func (h bilinearHead) asEffect(x []float32) []float32 { return h.mul(x, true) }

func (h bilinearHead) mul(x []float32, transpose bool) []float32 {
	out := make([]float32, h.Dim)
	var ss float64
	for i := range h.Dim {
		var s float32
		for j := range h.Dim {
			if transpose {
				s += h.M[j*h.Dim+i] * x[j]
			} else {
				s += h.M[i*h.Dim+j] * x[j]
			}
		}
		out[i] = s
		ss += float64(s) * float64(s)
	}
	if ss > 0 {
		inv := float32(1 / math.Sqrt(ss))
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}
