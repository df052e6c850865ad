package neural

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders/codeview"
)

// This file is E7's code-head program: it mines doc-comment → code pairs
// from source trees on this machine (bench's extractors), embeds both sides
// with all-MiniLM-L6-v2, fits a square map of the query vector toward its
// code vector, reports each recipe leave-one-language-out, and (with
// -update-e7-head) refits the best one on every pair and writes the shipped
// e7head.bin and its provenance e7head.txt. Everything is seeded: the same
// trees give the same pairs and the same file. Embeddings are cached in
// $CGRAPH_E7_CACHE (default $TMPDIR/cgraph-e7head): the first run embeds
// about 20k texts with MiniLM and 5k with e5-small-v2 (25 minutes on two
// shared cores), later runs only fit.
//
//	go test ./embedders/neural -run E7HeadExperiment -v -timeout 0   (LOLO figures; CGRAPH_E7_EXPERIMENT=1)
//	go test ./embedders/neural -run UpdateE7Head -update-e7-head -timeout 0
//
// The development bench sets are built from GOROOT/src and /usr/lib/python3.11;
// those trees are never mined here, so dev-set figures stay clean.

var updateE7Head = flag.Bool("update-e7-head", false, "mine code pairs, refit e7head.bin and e7head.txt")

// e7Tree is one source tree mined for one language.
type e7Tree struct {
	Lang string // bench extractor name
	Root string // directory walked
}

// e7Trees are the training trees (none is a dev-set tree). The JDK sources
// come out of temurin-25's src.zip (OpenJDK 17's src.zip is a dangling link
// here), unpacked by e7Unpack.
func e7Trees() []e7Tree {
	home, _ := os.UserHomeDir()
	return []e7Tree{
		{"go", filepath.Join(home, "go/pkg/mod")},
		{"python", "/usr/lib/python3/dist-packages"},
		{"java", e7JavaRoot()},
		{"javascript", e7JSRoot()},
	}
}

// e7JSRoot is the npm tree of the project's MCP inspector (.deps, installed
// by make setup): 2,437 JavaScript files with JSDoc. /usr/lib/node_modules
// (npm, corepack) gives one pair.
func e7JSRoot() string {
	p, err := filepath.Abs("../../.deps/mcp-inspector/node_modules")
	if err != nil {
		return ""
	}
	return p
}

const (
	e7JavaZip      = "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip"
	e7JavaModules  = "java.base/* java.sql/* java.net.http/* java.logging/* java.xml/javax/*"
	e7MaxPerLang   = 3000 // a seeded sample per language
	e7TestPerLang  = 800  // of which held out per language for the LOLO test
	e7CodeMaxBytes = 2000 // code text cut here before embedding (MiniLM sees 256 tokens anyway)
	e7Seed         = 7
)

func e7CacheDir() string {
	if d := os.Getenv("CGRAPH_E7_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "cgraph-e7head")
}

func e7JavaRoot() string { return filepath.Join(e7CacheDir(), "jdk-src") }

// e7Unpack unpacks the JDK modules e7JavaModules names, once.
func e7Unpack(t testing.TB) {
	t.Helper()
	root := e7JavaRoot()
	if _, err := os.Stat(filepath.Join(root, "java.base")); err == nil {
		return
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-q", "-o", e7JavaZip}, strings.Fields(e7JavaModules)...)
	cmd := exec.Command("unzip", append(args, "-d", root)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("unzip %s: %v\n%s", e7JavaZip, err, out)
	}
}

// e7Lang is one language's mined pairs, sampled and split.
type e7Lang struct {
	Lang        string
	Mined       int // pairs the tree gave before sampling
	Train, Test []bench.Pair
}

func e7Mine(t testing.TB) []e7Lang {
	t.Helper()
	e7Unpack(t)
	var out []e7Lang
	for _, tr := range e7Trees() {
		ex, err := bench.ExtractorFor(tr.Lang)
		if err != nil {
			t.Fatal(err)
		}
		ps, st, err := bench.Collect(tr.Root, ex)
		if err != nil {
			t.Fatalf("mine %s: %v", tr.Root, err)
		}
		t.Logf("%s: %s: %d files, %d pairs (%d trivial, %d duplicates)", tr.Lang, tr.Root, st.Files, st.Pairs, st.Trivial, st.Duplicates)
		all := ps
		ps = bench.Sample(ps, e7MaxPerLang, e7Seed)
		r := rand.New(rand.NewPCG(e7Seed, 1))
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		nt := min(e7TestPerLang, len(ps)/4)
		lang := e7Lang{Lang: tr.Lang, Mined: st.Pairs, Test: ps[:nt], Train: ps[nt:]}
		lang.Train = append(lang.Train, e7Extra(t, tr.Lang, all, ps)...)
		out = append(out, lang)
	}
	return out
}

// e7Extra is, for the fine-tune experiment only (TestE7Dump), up to
// $CGRAPH_E7_EXTRA_PER_LANG more training pairs of lang, a seeded sample of
// the mined pairs outside the fixed sample used (so the test split stays
// the same pairs), for the languages $CGRAPH_E7_EXTRA_LANGS names (all when
// unset). Unset: none, and the head's and the shipped fit's pairs are
// unchanged.
func e7Extra(t testing.TB, lang string, all, used []bench.Pair) []bench.Pair {
	n, _ := strconv.Atoi(os.Getenv("CGRAPH_E7_EXTRA_PER_LANG"))
	if n <= 0 {
		return nil
	}
	if langs := os.Getenv("CGRAPH_E7_EXTRA_LANGS"); langs != "" && !slices.Contains(strings.Split(langs, ","), lang) {
		return nil
	}
	seen := map[string]bool{}
	for _, p := range used {
		seen[p.Query+"\x00"+p.Code] = true
	}
	var rest []bench.Pair
	for _, p := range all {
		if !seen[p.Query+"\x00"+p.Code] {
			rest = append(rest, p)
		}
	}
	extra := bench.Sample(rest, n, e7Seed+1)
	t.Logf("%s: %d extra training pairs of %d unused", lang, len(extra), len(rest))
	return extra
}

func e7CodeText(c string) string {
	if len(c) <= e7CodeMaxBytes {
		return c
	}
	c = c[:e7CodeMaxBytes]
	for len(c) > 0 && c[len(c)-1]&0xC0 == 0x80 { // do not split a rune
		c = c[:len(c)-1]
	}
	return c[:max(0, len(c)-1)]
}

// e7Cache is a disk cache of embeddings keyed by sha256(model, prefix, text).
type e7Cache struct {
	path string
	m    map[[32]byte][]float32
}

func openE7Cache(t testing.TB, model string) *e7Cache {
	t.Helper()
	c := &e7Cache{path: filepath.Join(e7CacheDir(), model+".gob"), m: map[[32]byte][]float32{}}
	f, err := os.Open(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return c
	} else if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := gob.NewDecoder(f).Decode(&c.m); err != nil {
		t.Fatalf("cache %s: %v", c.path, err)
	}
	return c
}

func (c *e7Cache) save(t testing.TB) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(filepath.Dir(c.path), "cache")
	if err != nil {
		t.Fatal(err)
	}
	if err := gob.NewEncoder(f).Encode(c.m); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(f.Name(), c.path); err != nil {
		t.Fatal(err)
	}
}

// embed returns the vectors of texts, embedding the ones not cached in
// chunks and saving the cache after each.
func (c *e7Cache) embed(t testing.TB, lm *loaded, prefix string, texts []string) [][]float32 {
	t.Helper()
	return c.embedAs(t, lm, prefix, texts, 0)
}

// embedAs is embed with the documents head-pooled over their first head
// token states (headPooled at e7HeadWeight) when head is positive, as E7
// v2 stores MiniLM's documents; those vectors are cached under their own
// keys.
func (c *e7Cache) embedAs(t testing.TB, lm *loaded, prefix string, texts []string, head int) [][]float32 {
	t.Helper()
	recipe := ""
	if head > 0 {
		recipe = fmt.Sprintf("\x00head %d x%g", head, float64(e7HeadWeight))
	}
	key := func(s string) [32]byte {
		return sha256.Sum256([]byte(string(lm.id) + recipe + "\x00" + prefix + "\x00" + s))
	}
	var todo []string
	seen := map[[32]byte]bool{}
	for _, s := range texts {
		if k := key(s); c.m[k] == nil && !seen[k] {
			todo, seen[k] = append(todo, s), true
		}
	}
	for i := 0; i < len(todo); i += 512 {
		chunk := todo[i:min(i+512, len(todo))]
		var vs [][]float32
		if head > 0 {
			ps, err := lm.EmbedWithTokens(context.Background(), prefix, chunk)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				vs = append(vs, headPooled(p, head, e7HeadWeight))
			}
		} else {
			ds, err := lm.EmbedPrefixed(context.Background(), prefix, chunk)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				vs = append(vs, d.Vector)
			}
		}
		for j, v := range vs {
			c.m[key(chunk[j])] = v
		}
		c.save(t)
		t.Logf("%s: embedded %d/%d", lm.id, i+len(chunk), len(todo))
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		out[i] = c.m[key(s)]
	}
	return out
}

// e7Vecs are one split's query and code vectors under one model.
type e7Vecs struct{ Q, D [][]float32 }

// e7Embedder embeds pairs with one model and its prefixes.
type e7Embedder struct {
	lm     *loaded
	qp, dp string
	cache  *e7Cache
	head   int // documents head-pooled (E7 v2 on MiniLM); 0 for E1
}

func (e e7Embedder) pairs(t testing.TB, ps []bench.Pair) e7Vecs {
	qs, ds := make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		qs[i], ds[i] = p.Query, codeview.View(e7CodeText(p.Code)) // as E7 stores a document
	}
	return e7Vecs{Q: e.cache.embed(t, e.lm, e.qp, qs), D: e.cache.embedAs(t, e.lm, e.dp, ds, e.head)}
}

func newE7Embedder(t testing.TB, l *loader, id string) e7Embedder {
	t.Helper()
	lm, why, err := l.get(modelID(id))
	if err != nil || lm == nil {
		t.Fatal(why, err)
	}
	return e7Embedder{lm: lm, qp: lm.meta.QueryPrefix, dp: lm.meta.PassagePrefix, cache: openE7Cache(t, id)}
}

// e7Score is retrieval quality of queries against a corpus where query i's
// one relevant document is document i.
type e7Score struct{ NDCG, MRR float64 }

func (s e7Score) String() string { return fmt.Sprintf("nDCG@10 %.3f MRR@10 %.3f", s.NDCG, s.MRR) }

// e7Retrieval scores queries (already mapped) against docs by dot product
// (both sides unit length), exhaustively, and returns per-query nDCG@10 and
// MRR@10 plus their means.
func e7Retrieval(qs, ds [][]float32) (e7Score, []float64) {
	per := make([]float64, len(qs))
	var s e7Score
	for i, q := range qs {
		own := dot32(q, ds[i])
		rank := 0
		for j, d := range ds {
			if j != i && dot32(q, d) > own {
				rank++
			}
		}
		if rank < 10 {
			s.NDCG += 1 / math.Log2(float64(rank)+2)
			s.MRR += 1 / float64(rank+1)
			per[i] = 1 / math.Log2(float64(rank)+2)
		}
	}
	s.NDCG /= float64(len(qs))
	s.MRR /= float64(len(qs))
	return s, per
}

func dot32(a, b []float32) float64 {
	var s float64
	for k := range a {
		s += float64(a[k]) * float64(b[k])
	}
	return s
}

func mapQueries(h projection, qs [][]float32) [][]float32 {
	out := make([][]float32, len(qs))
	for i, q := range qs {
		out[i] = h.apply(q)
	}
	return out
}

// fitRidgeHead fits W minimising Σ‖W·q − d‖² + λ·n·‖W − I‖²: the query
// vector pulled toward its code's vector, shrunk toward the identity (raw
// MiniLM) by λ. Closed form Wᵀ = (QᵀQ + λnI)⁻¹(QᵀD + λnI).
func fitRidgeHead(q, d [][]float32, lambda float64) projection {
	n, dim := len(q), len(q[0])
	Q, D := toDense(q), toDense(d)
	var a, b mat.Dense
	a.Mul(Q.T(), Q)
	b.Mul(Q.T(), D)
	for k := range dim {
		a.Set(k, k, a.At(k, k)+lambda*float64(n))
		b.Set(k, k, b.At(k, k)+lambda*float64(n))
	}
	var wt mat.Dense
	if err := wt.Solve(&a, &b); err != nil {
		panic(err) // a + λnI is positive definite for λ > 0
	}
	p := projection{In: dim, Out: dim, Mean: make([]float32, dim), Components: make([]float32, dim*dim)}
	for j := range dim {
		for k := range dim {
			p.Components[j*dim+k] = float32(wt.At(k, j))
		}
	}
	return p
}

func toDense(xs [][]float32) *mat.Dense {
	m := mat.NewDense(len(xs), len(xs[0]), nil)
	for i, x := range xs {
		for k, v := range x {
			m.Set(i, k, float64(v))
		}
	}
	return m
}

// fitInfoNCEHead fits W by Adam on the InfoNCE loss of normalize(W·q)
// against the batch's code vectors (in-batch negatives, temperature tau),
// plus reg·‖W − I‖², starting from the identity. Seeded batches.
func fitInfoNCEHead(q, d [][]float32, epochs, batch int, lr, tau, reg float64, seed uint64) projection {
	n, dim := len(q), len(q[0])
	W := mat.NewDense(dim, dim, nil)
	for k := range dim {
		W.Set(k, k, 1)
	}
	m1, m2 := mat.NewDense(dim, dim, nil), mat.NewDense(dim, dim, nil)
	const b1, b2, eps = 0.9, 0.999, 1e-8
	step := 0
	r := rand.New(rand.NewPCG(seed, 2))
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for range epochs {
		r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		for s := 0; s+batch <= n; s += batch {
			idx := order[s : s+batch]
			Qb, Db := mat.NewDense(batch, dim, nil), mat.NewDense(batch, dim, nil)
			for i, k := range idx {
				for c := range dim {
					Qb.Set(i, c, float64(q[k][c]))
					Db.Set(i, c, float64(d[k][c]))
				}
			}
			var P mat.Dense
			P.Mul(Qb, W.T()) // batch×dim
			norms := make([]float64, batch)
			for i := range batch {
				norms[i] = mat.Norm(P.RowView(i), 2)
				row := P.RawRowView(i)
				for c := range row {
					row[c] /= norms[i]
				}
			}
			var S mat.Dense
			S.Mul(&P, Db.T())
			G := mat.NewDense(batch, batch, nil) // dLoss/dS
			for i := range batch {
				row := S.RawRowView(i)
				mx := math.Inf(-1)
				for _, v := range row {
					mx = max(mx, v/tau)
				}
				var z float64
				for _, v := range row {
					z += math.Exp(v/tau - mx)
				}
				for j, v := range row {
					g := math.Exp(v/tau-mx) / z
					if j == i {
						g--
					}
					G.Set(i, j, g/tau/float64(batch))
				}
			}
			var dPhat mat.Dense
			dPhat.Mul(G, Db) // batch×dim
			for i := range batch {
				ph, dp := P.RawRowView(i), dPhat.RawRowView(i)
				var pd float64
				for c := range ph {
					pd += ph[c] * dp[c]
				}
				for c := range dp {
					dp[c] = (dp[c] - ph[c]*pd) / norms[i]
				}
			}
			var grad mat.Dense
			grad.Mul(dPhat.T(), Qb) // dim×dim
			step++
			c1, c2 := 1-math.Pow(b1, float64(step)), 1-math.Pow(b2, float64(step))
			for j := range dim {
				for k := range dim {
					w := W.At(j, k)
					id := 0.0
					if j == k {
						id = 1
					}
					g := grad.At(j, k) + 2*reg*(w-id)
					a := b1*m1.At(j, k) + (1-b1)*g
					v := b2*m2.At(j, k) + (1-b2)*g*g
					m1.Set(j, k, a)
					m2.Set(j, k, v)
					W.Set(j, k, w-lr*(a/c1)/(math.Sqrt(v/c2)+eps))
				}
			}
		}
	}
	p := projection{In: dim, Out: dim, Mean: make([]float32, dim), Components: make([]float32, dim*dim)}
	for j := range dim {
		for k := range dim {
			p.Components[j*dim+k] = float32(W.At(j, k))
		}
	}
	return p
}

// e7Fit names one head recipe.
type e7Fit struct {
	Name string
	Fit  func(q, d [][]float32) projection
}

func e7Fits() []e7Fit {
	fs := []e7Fit{{"ridge λ=0.1", func(q, d [][]float32) projection { return fitRidgeHead(q, d, 0.1) }}}
	for _, c := range []struct {
		epochs   int
		tau, reg float64
	}{{3, 0.05, 0.01}, {10, 0.05, 0.01}, {10, 0.05, 0.1}, {10, 0.02, 0.01}} {
		fs = append(fs, e7Fit{fmt.Sprintf("infonce τ=%g reg=%g %dep", c.tau, c.reg, c.epochs), func(q, d [][]float32) projection {
			return fitInfoNCEHead(q, d, c.epochs, 256, 1e-3, c.tau, c.reg, e7Seed)
		}})
	}
	return fs
}

// e7Data mines, embeds (E7's MiniLM and E1's e5) and returns per language
// the train/test vectors.
type e7Data struct {
	Langs    []e7Lang
	E7Train  []e7Vecs
	E7Test   []e7Vecs
	E1Test   []e7Vecs
	E7ID     string
	E1ID     string
	E7, E1   e7Embedder // the embedders (E1's only withE1), for more texts
	withE1   bool
	loaderCl func()
}

func loadE7Data(t *testing.T, withE1 bool) e7Data {
	t.Helper()
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.close() })
	d := e7Data{Langs: e7Mine(t), E7ID: string(l.cfg.variant(l.mf, modelMiniLM)), E1ID: string(l.cfg.variant(l.mf, modelE1))}
	e7 := newE7Embedder(t, l, d.E7ID)
	e7.head = e7HeadTokens // the documents as E7 v2 stores them
	var e1 e7Embedder
	if withE1 {
		e1 = newE7Embedder(t, l, d.E1ID)
	}
	d.E7, d.E1 = e7, e1
	for _, lg := range d.Langs {
		d.E7Train = append(d.E7Train, e7.pairs(t, lg.Train))
		d.E7Test = append(d.E7Test, e7.pairs(t, lg.Test))
		if withE1 {
			d.E1Test = append(d.E1Test, e1.pairs(t, lg.Test))
		}
	}
	return d
}

// e7LOLOResult is one recipe's leave-one-language-out figures.
type e7LOLOResult struct {
	Fit     e7Fit
	PerLang []e7Score
	Mean    float64 // mean nDCG@10 over the languages
}

// e7LOLO fits every recipe leave-one-language-out — on the pairs of every
// language but L, tested on L's held-out pairs (a corpus of L's held-out
// code) — and logs it beside raw MiniLM and E1 on the same pairs, with
// paired bootstrap CIs of the nDCG@10 differences.
func e7LOLO(t *testing.T, d e7Data, fits []e7Fit) ([]e7LOLOResult, []string) {
	res := make([]e7LOLOResult, len(fits))
	var lines []string
	logf := func(format string, args ...any) {
		lines = append(lines, fmt.Sprintf(format, args...))
		t.Log(lines[len(lines)-1])
	}
	for i, lg := range d.Langs {
		var q, dd [][]float32
		for j := range d.Langs {
			if j != i {
				q = append(append(q, d.E7Train[j].Q...), d.E7Test[j].Q...)
				dd = append(append(dd, d.E7Train[j].D...), d.E7Test[j].D...)
			}
		}
		raw, rawPer := e7Retrieval(d.E7Test[i].Q, d.E7Test[i].D)
		e1, e1Per := e7Retrieval(d.E1Test[i].Q, d.E1Test[i].D)
		logf("LOLO %-10s test %d pairs, train %d: E1 %s | E7 raw %s", lg.Lang, len(lg.Test), len(q), e1, raw)
		for f, fit := range fits {
			h := fit.Fit(q, dd)
			s, per := e7Retrieval(mapQueries(h, d.E7Test[i].Q), d.E7Test[i].D)
			lo, hi := pairedCI(per, rawPer)
			lo1, hi1 := pairedCI(per, e1Per)
			logf("LOLO %-10s %-28s %s  Δ nDCG vs raw [%+.3f, %+.3f]  vs E1 [%+.3f, %+.3f]", lg.Lang, fit.Name, s, lo, hi, lo1, hi1)
			res[f].Fit = fit
			res[f].PerLang = append(res[f].PerLang, s)
			res[f].Mean += s.NDCG / float64(len(d.Langs))
		}
	}
	for _, r := range res {
		logf("LOLO mean nDCG@10 %.4f  %s", r.Mean, r.Fit.Name)
	}
	return res, lines
}

// TestE7HeadExperiment reports every head recipe leave-one-language-out.
func TestE7HeadExperiment(t *testing.T) {
	if os.Getenv("CGRAPH_E7_EXPERIMENT") == "" {
		t.Skip("set CGRAPH_E7_EXPERIMENT=1 to mine code pairs and compare E7 heads leave-one-language-out")
	}
	e7LOLO(t, loadE7Data(t, true), e7Fits())
}

// pairedCI is a seeded bootstrap 95% interval of mean(a − b).
func pairedCI(a, b []float64) (float64, float64) {
	r := rand.New(rand.NewPCG(1, 3))
	const reps = 2000
	means := make([]float64, reps)
	for k := range means {
		var s float64
		for range a {
			i := r.IntN(len(a))
			s += a[i] - b[i]
		}
		means[k] = s / float64(len(a))
	}
	sort.Float64s(means)
	return means[reps*25/1000], means[reps*975/1000]
}

// TestUpdateE7Head runs the leave-one-language-out comparison of e7Fits,
// takes the recipe with the best mean nDCG@10, refits it on every mined pair
// of every language (train and test splits), and writes e7head.bin and its
// provenance e7head.txt (with the LOLO figures).
func TestUpdateE7Head(t *testing.T) {
	if !*updateE7Head {
		t.Skip("run with -update-e7-head to mine code pairs and refit e7head.bin")
	}
	d := loadE7Data(t, true)
	res, lines := e7LOLO(t, d, e7Fits())
	best := res[0]
	for _, r := range res[1:] {
		if r.Mean > best.Mean {
			best = r
		}
	}
	var q, dd [][]float32
	var counts []string
	for i, lg := range d.Langs {
		q = append(append(q, d.E7Train[i].Q...), d.E7Test[i].Q...)
		dd = append(append(dd, d.E7Train[i].D...), d.E7Test[i].D...)
		counts = append(counts, fmt.Sprintf("%s %d of %d mined", lg.Lang, len(lg.Train)+len(lg.Test), lg.Mined))
	}
	h := best.Fit.Fit(q, dd)
	b, err := h.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("e7head.bin", b, 0o644); err != nil {
		t.Fatal(err)
	}
	var trees []string
	for _, tr := range e7Trees() {
		trees = append(trees, tr.Lang+": "+tr.Root)
	}
	prov := fmt.Sprintf("E7 query head (e7head.bin), written by TestUpdateE7Head (e7head_test.go)\nmodel: %s\nrecipe: %s (best mean LOLO nDCG@10 of %d recipes), fitted on all %d pairs\npairs: %s (seed %d, code cut at %d bytes)\ndocuments: the code view, as E7 and E1 store them (%s)\ntrees:\n  %s\n  (java unpacked from %s: %s)\nsha256: %x\n\nleave-one-language-out (E1 = %s):\n%s\n",
		d.E7ID, best.Fit.Name, len(res), len(q), strings.Join(counts, ", "), e7Seed, e7CodeMaxBytes, codeViewRecipe, strings.Join(trees, "\n  "), e7JavaZip, e7JavaModules, sha256.Sum256(b), d.E1ID, strings.Join(lines, "\n"))
	if err := os.WriteFile("e7head.txt", []byte(prov), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(prov)
}

// TestE7Dump writes the mined pairs and their vectors for the fine-tune
// experiment (scripts/e7tune): per language and split, queries.jsonl (the
// query texts), and little-endian float32 matrices e7q, e7d (MiniLM raw over
// the query / the code view) and, for the test split, e1q, e1d. With
// $CGRAPH_E7_DUMP_E5 set it adds e5d (both splits) and e5qv (test): E5's raw
// bge vectors, before its direction head.
func TestE7Dump(t *testing.T) {
	dir := os.Getenv("CGRAPH_E7_DUMP")
	if dir == "" {
		t.Skip("set CGRAPH_E7_DUMP=dir to write the mined pairs and vectors for scripts/e7tune")
	}
	d := loadE7Data(t, true)
	var e5 *e7Embedder
	if os.Getenv("CGRAPH_E7_DUMP_E5") != "" { // E5's vectors too, for a bge query encoder (scripts/e7tune --docs e5)
		l, err := newLoader(Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.close() })
		m := newE7Embedder(t, l, string(l.cfg.variant(l.mf, modelE5)))
		e5 = &m
	}
	writeMat := func(path string, vs [][]float32) { writeF32(t, path, vs) }
	for i, lg := range d.Langs {
		for _, sp := range []struct {
			name  string
			pairs []bench.Pair
			e7    e7Vecs
		}{{"train", lg.Train, d.E7Train[i]}, {"test", lg.Test, d.E7Test[i]}} {
			sub := filepath.Join(dir, lg.Lang, sp.name)
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			var js []byte
			for _, p := range sp.pairs {
				line, err := json.Marshal(map[string]string{"q": p.Query, "qv": queryView(p.Query), "d": codeview.View(e7CodeText(p.Code))})
				if err != nil {
					t.Fatal(err)
				}
				js = append(append(js, line...), '\n')
			}
			if err := os.WriteFile(filepath.Join(sub, "pairs.jsonl"), js, 0o644); err != nil {
				t.Fatal(err)
			}
			writeMat(filepath.Join(sub, "e7q.f32"), sp.e7.Q)
			writeMat(filepath.Join(sub, "e7d.f32"), sp.e7.D)
			if sp.name == "train" { // E1's stored vectors of the training documents: a query encoder fitted on e5 fits against them
				writeMat(filepath.Join(sub, "e1d.f32"), d.E1.pairs(t, sp.pairs).D)
			}
			if sp.name == "test" { // queries as typed and as the engine reads them (queryView)
				qv := make([]string, len(sp.pairs))
				for k, p := range sp.pairs {
					qv[k] = queryView(p.Query)
				}
				writeMat(filepath.Join(sub, "e1q.f32"), d.E1Test[i].Q)
				writeMat(filepath.Join(sub, "e1d.f32"), d.E1Test[i].D)
				writeMat(filepath.Join(sub, "e1qv.f32"), d.E1.cache.embed(t, d.E1.lm, d.E1.qp, qv))
				writeMat(filepath.Join(sub, "e7qv.f32"), d.E7.cache.embed(t, d.E7.lm, d.E7.qp, qv))
				if e5 != nil {
					writeMat(filepath.Join(sub, "e5qv.f32"), e5.cache.embed(t, e5.lm, "", qv))
				}
			}
			if e5 != nil { // E5's raw bge vectors (CLS, L2, no instruction) of the code view; the trainer applies e5head.json
				ds := make([]string, len(sp.pairs))
				for k, p := range sp.pairs {
					ds[k] = codeview.View(e7CodeText(p.Code))
				}
				writeMat(filepath.Join(sub, "e5d.f32"), e5.cache.embed(t, e5.lm, "", ds))
			}
		}
	}
}

// writeF32 writes vs as one little-endian float32 matrix, row after row (the
// .f32 files scripts/e7tune reads).
func writeF32(t *testing.T, path string, vs [][]float32) {
	t.Helper()
	var b []byte
	for _, v := range vs {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
