package neural

import (
	"context"
	"flag"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/convert"
	"github.com/cgraph/cgraph/models/runtime"
	"gonum.org/v1/gonum/mat"
)

var updateE12PCA = flag.Bool("update-e12-pca", false, "refit e12pca.bin on the token states of testdata/e12corpus.txt")

// e12Corpus is testdata/e12corpus.txt, one text a line, `\n` standing for a
// newline inside a text.
func e12Corpus(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/e12corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		out = append(out, strings.ReplaceAll(line, `\n`, "\n"))
	}
	return out
}

// e1Model is E1's installed model (e5-small-v2), from a loader closed with
// the test.
func e1Model(t testing.TB) *loaded {
	t.Helper()
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.close(); err != nil {
			t.Error(err)
		}
	})
	lm, why, err := l.get(l.cfg.variant(l.mf, modelE1))
	if err != nil || lm == nil {
		t.Fatal(why, err)
	}
	return lm
}

// TestUpdateE12PCA refits the E12 fallback projection (go test -run
// UpdateE12PCA -update-e12-pca ./embedders/neural): the 128 principal axes of
// the e5-small-v2 token states (passage prefix, special tokens included) of
// the corpus, by eigen-decomposition of their covariance.
func TestUpdateE12PCA(t *testing.T) {
	if !*updateE12PCA {
		t.Skip("run with -update-e12-pca to refit e12pca.bin")
	}
	lm := e1Model(t)
	res, err := lm.EmbedWithTokens(context.Background(), lm.meta.PassagePrefix, e12Corpus(t))
	if err != nil {
		t.Fatal(err)
	}
	dim := lm.meta.Dims
	mean := make([]float64, dim)
	n := 0
	for _, r := range res {
		for i := range r.Tokens.IDs {
			for k, v := range r.Tokens.Row(i) {
				mean[k] += float64(v)
			}
			n++
		}
	}
	for k := range mean {
		mean[k] /= float64(n)
	}
	cov := mat.NewSymDense(dim, nil)
	x := make([]float64, dim)
	for _, r := range res {
		for i := range r.Tokens.IDs {
			for k, v := range r.Tokens.Row(i) {
				x[k] = float64(v) - mean[k]
			}
			cov.SymRankOne(cov, 1/float64(n), mat.NewVecDense(dim, x))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		t.Fatal("eigen-decomposition failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	order := make([]int, dim)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	const out = 128
	p := projection{In: dim, Out: out, Mean: make([]float32, dim), Components: make([]float32, out*dim)}
	var kept, total float64
	for k := range dim {
		p.Mean[k] = float32(mean[k])
		total += vals[k]
	}
	for j := range out {
		kept += vals[order[j]]
		for k := range dim {
			p.Components[j*dim+k] = float32(vecs.At(k, order[j]))
		}
	}
	t.Logf("%d token states of %d texts; 128 axes keep %.1f%% of the variance", n, len(res), 100*kept/total)
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("e12pca.bin", data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// maxSim is ColBERT's score: the sum over query tokens of the best cosine
// with any document token (rows are unit vectors).
func maxSim(q, d fingerprint.Tokens) float64 {
	var s float64
	for i := range q.Rows() {
		best := -1.0
		for j := range d.Rows() {
			var dot float64
			for k, v := range q.Row(i) {
				dot += float64(v) * float64(d.Row(j)[k])
			}
			best = max(best, dot)
		}
		s += best
	}
	return s
}

// TestE12Fallback: without ColBERT, E12 stores 128-d unit token vectors, one
// per token, marked as the fallback everywhere, and MaxSim ranks a related
// text above an unrelated one.
func TestE12Fallback(t *testing.T) {
	r := testRegistry(t)
	e := r.Get(fingerprint.E12)
	st := e.Status()
	if st.State != fingerprint.StatusFallback || st.Reason != e12FallbackNote || st.Dims != 128 {
		t.Fatalf("status %+v", st)
	}
	ctx := context.Background()
	docs := []string{"the connection pool leaks sockets when requests time out", "my grandmother grows tomatoes in the garden"}
	got, err := r.EmbedDocuments(ctx, inputs(docs...))
	if err != nil {
		t.Fatal(err)
	}
	var toks []fingerprint.Tokens
	for i, fp := range got {
		en := fp.Get(fingerprint.E12)
		if en.Status != fingerprint.StatusFallback || !strings.Contains(en.Note, "fallback: no ColBERT model") {
			t.Fatalf("doc %d: entry %v %q", i, en.Status, en.Note)
		}
		tk := en.Value.(fingerprint.Tokens)
		if tk.Dim != 128 || tk.Rows() < 5 {
			t.Fatalf("doc %d: %d rows of %d dims", i, tk.Rows(), tk.Dim)
		}
		for j := range tk.Rows() {
			if n := cosine(tk.Row(j), tk.Row(j)); n < 0.999 {
				t.Fatalf("doc %d row %d not a unit vector", i, j)
			}
		}
		toks = append(toks, tk)
	}
	q, err := e.EmbedQuery(ctx, embedders.Query{Text: "socket leak in the http connection pool"})
	if err != nil {
		t.Fatal(err)
	}
	qt := q.Value.(fingerprint.Tokens)
	rel, unrel := maxSim(qt, toks[0]), maxSim(qt, toks[1])
	t.Logf("MaxSim related %.2f unrelated %.2f (%d query tokens)", rel, unrel, qt.Rows())
	if rel <= unrel {
		t.Errorf("MaxSim related %.2f not above unrelated %.2f", rel, unrel)
	}
	// E1 came from the same run: its vector equals a separate E1 embedding of
	// the same batch (int8 models quantise activations per run, so with
	// Config.BatchSize set another batch would differ; int8Dynamic).
	alone, err := r.Get(fingerprint.E1).EmbedDocuments(ctx, inputs(docs...))
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(dense(t, alone[0]), dense(t, got[0].Get(fingerprint.E1))); c < 0.9999 {
		t.Errorf("E1 from the shared run differs from E1 alone: cosine %.6f", c)
	}
}

// TestSharedPassConcurrent: batches embedded at the same time from several
// goroutines each get their own run's vectors (the shared runs never mix
// batches): every E1 and E7 vector equals the one a lone run of that batch
// gives.
func TestSharedPassConcurrent(t *testing.T) {
	r := testRegistry(t)
	ctx := context.Background()
	batches := [][]embedders.Input{
		inputs("the cache is cold after a restart", "add retries to the uploader"),
		inputs("the cache is cold after a restart", "add retries to the uploader"), // same texts, another slice
		inputs("rocksdb compaction stalls writes", "We need to shard the index. It is too large."),
	}
	want := make([][]fingerprint.Fingerprint, len(batches))
	for i, b := range batches {
		fps, err := r.EmbedDocuments(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = fps
	}
	got := make([][]fingerprint.Fingerprint, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() { got[i], errs[i] = r.EmbedDocuments(ctx, b) })
	}
	wg.Wait()
	for i := range batches {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for j := range batches[i] {
			for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E7} {
				if c := cosine(dense(t, got[i][j].Get(s)), dense(t, want[i][j].Get(s))); c < 0.99999 {
					t.Errorf("batch %d doc %d %s: cosine %.6f to its lone run", i, j, s, c)
				}
			}
		}
	}
}

// e5WithE12Graph is E1's installed model and the same file with
// E12Projection's output and a mean-pooled output appended to its graph
// (as the cuda fp16 file has them), opened on the CPU and closed with tb;
// name is the projected output's.
func e5WithE12Graph(tb testing.TB) (lm *loaded, m *runtime.Model, name string) {
	tb.Helper()
	lm = e1Model(tb)
	name, p, err := E12Projection()
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := os.ReadFile(lm.rc.ONNXPath)
	if err != nil {
		tb.Fatal(err)
	}
	withProj, err := convert.AddProjection(raw, "last_hidden_state", name, p)
	if err != nil {
		tb.Fatal(err)
	}
	// The installed file has no pooled output: add the mean pooling the
	// cuda files carry (scripts/pooled) in the graph, as its nodes.
	withBoth, err := addMeanPooled(withProj)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := lm.rc
	cfg.ONNXData, cfg.TokenOutput, cfg.TokenOutputDims = withBoth, name, p.Out
	if m, err = runtime.Open(cfg); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := m.Close(); err != nil {
			tb.Error(err)
		}
	})
	return lm, m, name
}

// TestE12ProjectionInGraph: e5-small-v2 with E12Projection's output added
// (convert.AddProjection, as scripts/e12graph writes the cuda files) and its
// pooled output gives E12 the same token vectors as the host projection of
// the token states, and E1 the same vectors, from one run; on the CPU here,
// the same graph as on a GPU less the fp16 conversion.
func TestE12ProjectionInGraph(t *testing.T) {
	lm, m, name := e5WithE12Graph(t)
	proj, _ := parseProjection(e12PCA)
	if m.ProjectedOutput() != name || m.PooledOutput() != "pooled_mean" {
		t.Fatalf("outputs %q and %q, want %q and pooled_mean", m.ProjectedOutput(), m.PooledOutput(), name)
	}
	base, err := lm.model()
	if err != nil {
		t.Fatal(err)
	}
	texts := e12Corpus(t)[:24]
	ctx := context.Background()
	want, err := base.EmbedWithTokens(ctx, lm.meta.PassagePrefix, texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.EmbedWithTokens(ctx, lm.meta.PassagePrefix, texts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 1.0
	for i := range texts {
		if c := cosine(got[i].Vector, want[i].Vector); c < 0.99999 {
			t.Errorf("text %d: E1 cosine %.6f to the CPU pooling", i, c)
		}
		g, w := proj.tokens(got[i].Tokens), proj.tokens(want[i].Tokens)
		if got[i].Tokens.Output != name || len(g.Data) != len(w.Data) {
			t.Fatalf("text %d: output %q, %d values, want %d", i, got[i].Tokens.Output, len(g.Data), len(w.Data))
		}
		for r := 0; r < len(w.Data)/proj.Out; r++ {
			worst = min(worst, cosine(g.Data[r*proj.Out:(r+1)*proj.Out], w.Data[r*proj.Out:(r+1)*proj.Out]))
		}
	}
	if worst < 0.9999 {
		t.Errorf("worst token cosine %.6f between the graph's projection and the host's", worst)
	}
	t.Logf("worst token cosine %.7f over %d texts", worst, len(texts))
}

// addMeanPooled adds the "pooled_mean" output scripts/pooled/add_pooled.py
// gives the cuda files (the attention mask's mean of last_hidden_state), in
// opset 11's form (axes as attributes), which is the installed e5's.
func addMeanPooled(model []byte) ([]byte, error) {
	return convert.AppendGraph(model, &convert.Graph{
		Nodes: []*convert.Node{
			{Name: "pm_f", OpType: "Cast", Inputs: []string{"attention_mask"}, Outputs: []string{"pm_f"}, Attrs: []convert.Attribute{convert.IntAttr("to", int64(convert.Float))}},
			{Name: "pm_3", OpType: "Unsqueeze", Inputs: []string{"pm_f"}, Outputs: []string{"pm_3"}, Attrs: []convert.Attribute{convert.IntsAttr("axes", -1)}},
			{Name: "pm_masked", OpType: "Mul", Inputs: []string{"last_hidden_state", "pm_3"}, Outputs: []string{"pm_masked"}},
			{Name: "pm_sum", OpType: "ReduceSum", Inputs: []string{"pm_masked"}, Outputs: []string{"pm_sum"}, Attrs: []convert.Attribute{convert.IntsAttr("axes", 1), convert.IntAttr("keepdims", 0)}},
			{Name: "pm_count", OpType: "ReduceSum", Inputs: []string{"pm_3"}, Outputs: []string{"pm_count"}, Attrs: []convert.Attribute{convert.IntsAttr("axes", 1), convert.IntAttr("keepdims", 0)}},
			{Name: "pm_safe", OpType: "Max", Inputs: []string{"pm_count", "pm_tiny"}, Outputs: []string{"pm_safe"}},
			{Name: "pooled_mean", OpType: "Div", Inputs: []string{"pm_sum", "pm_safe"}, Outputs: []string{"pooled_mean"}},
		},
		Initializers: []*convert.Tensor{convert.FloatTensor("pm_tiny", nil, []float32{1e-9})},
		Outputs:      []convert.ValueInfo{{Name: "pooled_mean", Elem: convert.Float, Shape: []convert.Dim{{Param: "batch"}, {Value: 384}}}},
	})
}

// BenchmarkE12InGraph times E1 and E12's shared pass over 64 ~200-token texts on
// this machine: token states out of the run and E12 projected on the host
// (host), against the installed e5 with E12's projection and its pooled
// output in the graph (graph), as the cuda files have them.
func BenchmarkE12InGraph(b *testing.B) {
	lm, graph, _ := e5WithE12Graph(b)
	proj, _ := parseProjection(e12PCA)
	host, err := lm.model()
	if err != nil {
		b.Fatal(err)
	}
	docs := goDocComments(b)
	texts := make([]string, 64) // four comment blocks each: ~200 tokens, as a code memory
	for i := range texts {
		texts[i] = strings.Join(docs[4*i:4*i+4], "\n")
	}
	for _, c := range []struct {
		name string
		m    *runtime.Model
	}{{"host", host}, {"graph", graph}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := runtime.MapTokens(context.Background(), c.m, lm.meta.PassagePrefix, texts, func(_ int, pp runtime.Pooled) fingerprint.Tokens {
					return proj.tokens(pp.Tokens)
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(texts)), "ms/doc")
		})
	}
}

// TestE12AsksForItsOutput: the E1/E12 model asks the runtime for
// E12Projection's output (used where the file has it), unless
// HostE12Projection keeps the projection on the host (the A/B baseline).
func TestE12AsksForItsOutput(t *testing.T) {
	requireModels(t, Config{})
	for _, host := range []bool{false, true} {
		l, err := newLoader(Config{HostE12Projection: host})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := buildE1E12(l); err != nil {
			t.Fatal(err)
		}
		lm := l.open[l.cfg.variant(l.mf, modelE1)]
		if lm == nil {
			t.Fatal("E1's model is not open after buildE1E12")
		}
		want, dims := e12Output, 128
		if host {
			want, dims = "", 0
		}
		if lm.rc.TokenOutput != want || lm.rc.TokenOutputDims != dims {
			t.Errorf("host=%v: token output %q (%d dims), want %q (%d)", host, lm.rc.TokenOutput, lm.rc.TokenOutputDims, want, dims)
		}
		if err := l.close(); err != nil {
			t.Error(err)
		}
	}
}
