package neural

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/runtime"
)

// The tests run the real default models. A missing model fails the test with
// the fix (CI runs make setup first); nothing is skipped silently.

var (
	regOnce sync.Once
	regVal  *embedders.Registry
	regErr  error
)

// requireModels fails t unless every model the default slot plan uses is
// installed.
func requireModels(t testing.TB, cfg Config) {
	t.Helper()
	l, err := newLoader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := Models(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, id := range ids {
		if !l.installed(id) {
			missing = append(missing, string(id))
		}
	}
	if len(missing) > 0 {
		t.Fatalf("models %s are not installed in %s: run `make setup` (or `cgraph models pull --default`); CGRAPH_MODELS points elsewhere", strings.Join(missing, ", "), l.dir)
	}
}

// testRegistry is the default registry, opened once for the package's tests
// (opening costs about a second per model). It is never closed: the process
// ends with the tests.
func testRegistry(t testing.TB) *embedders.Registry {
	t.Helper()
	requireModels(t, Config{})
	regOnce.Do(func() { regVal, _, regErr = Registry(context.Background(), Config{}) })
	if regErr != nil {
		t.Fatal(regErr)
	}
	return regVal
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

func inputs(texts ...string) []embedders.Input {
	out := make([]embedders.Input, len(texts))
	for i, s := range texts {
		out[i] = embedders.Input{Text: s}
	}
	return out
}

func dense(t *testing.T, e fingerprint.Entry) []float32 {
	t.Helper()
	d, ok := e.Value.(fingerprint.Dense)
	if !ok {
		t.Fatalf("entry %v holds %T, want dense", e.Status, e.Value)
	}
	return d
}

// TestDenseParaphrase: in E1 and E7 a query is closer to its paraphrase than
// to an unrelated text.
func TestDenseParaphrase(t *testing.T) {
	r := testRegistry(t)
	ctx := context.Background()
	tests := []struct {
		slot                         fingerprint.SlotID
		query, paraphrase, unrelated string
	}{
		{fingerprint.E1, "how do I stop the server from crashing when the config file is missing",
			"the service panics at startup if its configuration file cannot be found",
			"a recipe for banana bread with walnuts and brown sugar"},
		{fingerprint.E7, "read a file line by line",
			"f, _ := os.Open(path)\nsc := bufio.NewScanner(f)\nfor sc.Scan() {\n\tfmt.Println(sc.Text())\n}",
			"func add(a, b int) int { return a + b }"},
	}
	for _, tc := range tests {
		t.Run(tc.slot.String(), func(t *testing.T) {
			e := r.Get(tc.slot)
			if st := e.Status(); st.State != fingerprint.StatusPresent || st.Dims != 384 {
				t.Fatalf("status %+v", st)
			}
			docs, err := e.EmbedDocuments(ctx, inputs(tc.paraphrase, tc.unrelated))
			if err != nil {
				t.Fatal(err)
			}
			q, err := e.EmbedQuery(ctx, embedders.Query{Text: tc.query})
			if err != nil {
				t.Fatal(err)
			}
			qv := q.Value.(fingerprint.Dense)
			para, unrel := cosine(qv, dense(t, docs[0])), cosine(qv, dense(t, docs[1]))
			t.Logf("%s: paraphrase %.3f unrelated %.3f", tc.slot, para, unrel)
			if para <= unrel {
				t.Errorf("%s: paraphrase %.3f not above unrelated %.3f", tc.slot, para, unrel)
			}
			if docs[0].Producer != e.Status().Producer || docs[0].Producer.Model == "" {
				t.Errorf("entry producer %v, status producer %v", docs[0].Producer, e.Status().Producer)
			}
		})
	}
}

// TestEmptyTextUnavailable: an empty memory gets a reasoned unavailable entry,
// the others in its batch are embedded.
func TestEmptyTextUnavailable(t *testing.T) {
	r := testRegistry(t)
	got, err := r.Get(fingerprint.E1).EmbedDocuments(context.Background(), inputs("a note", "  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Status != fingerprint.StatusPresent || got[1].Status != fingerprint.StatusUnavailable || got[1].Note != emptyText {
		t.Fatalf("entries %+v / %+v", got[0].Status, got[1])
	}
}

// TestMissingModelUnavailable: an empty models directory gives a registry in
// which every model-backed slot says which model to pull.
func TestModels(t *testing.T) {
	tests := []struct {
		p    Precision
		want string
	}{
		{PrecisionDefault, "e5-small-v2-q bge-small-en-v1.5-q all-minilm-l6-v2"},
		{PrecisionFP32, "e5-small-v2 bge-small-en-v1.5 all-minilm-l6-v2"},
		{PrecisionInt8, "e5-small-v2-q bge-small-en-v1.5-q all-minilm-l6-v2-q"},
	}
	for _, tc := range tests {
		ids, err := Models(Config{Precision: tc.p})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ids); got != "["+tc.want+"]" {
			t.Errorf("precision %q: %s, want [%s]", tc.p, got, tc.want)
		}
	}
}

func TestBadPrecision(t *testing.T) {
	_, _, err := Registry(context.Background(), Config{Precision: "int4", ModelsDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `unknown precision "int4"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestMissingModelUnavailable(t *testing.T) {
	r, closeFn, err := Registry(context.Background(), Config{ModelsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := closeFn(); err != nil {
			t.Error(err)
		}
	}()
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E8, fingerprint.E10, fingerprint.E12, fingerprint.E13} {
		st := r.Get(s).Status()
		if st.State != fingerprint.StatusUnavailable || !strings.Contains(st.Reason, "cgraph models pull ") {
			t.Errorf("%s: %+v", s, st)
		}
		if _, err := r.Get(s).EmbedQuery(context.Background(), embedders.Query{Text: "x"}); err == nil {
			t.Errorf("%s: query served without a model", s)
		}
	}
	if st := r.Get(fingerprint.E6).Status(); st.State != fingerprint.StatusPresent {
		t.Errorf("model-free E6 lost: %+v", st)
	}
	if st := r.Get(fingerprint.E11).Status(); st.State != fingerprint.StatusFallback {
		t.Errorf("E11 without MiniLM should be the set-only fallback: %+v", st)
	}
	fps, err := r.EmbedDocuments(context.Background(), inputs("rocksdb failed with ENOENT"))
	if err != nil {
		t.Fatal(err)
	}
	if en := fps[0].Get(fingerprint.E5); en.Status != fingerprint.StatusUnavailable || !strings.Contains(en.Note, "bge-small-en-v1.5") {
		t.Errorf("E5 entry without its model: %v %q", en.Status, en.Note)
	}
}

// TestPrecisionProducers: the default (int8 e5 and bge, fp32 MiniLM) and the
// fp32 registries both serve, and where their weights differ so do their
// producers, so a store never mixes them.
func TestPrecisionProducers(t *testing.T) {
	def := testRegistry(t)
	cfg := Config{Precision: PrecisionFP32}
	requireModels(t, cfg)
	fp32, closeFn, err := Registry(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := closeFn(); err != nil {
			t.Error(err)
		}
	}()
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E12} {
		a, b := def.Get(s).Status(), fp32.Get(s).Status()
		if b.State == fingerprint.StatusUnavailable || a.Producer == b.Producer {
			t.Errorf("%s: default %v, fp32 %v %v", s, a.Producer, b.State, b.Producer)
		}
	}
	if m := fp32.Get(fingerprint.E1).Status().Producer.Model; m != "e5-small-v2" {
		t.Errorf("fp32 E1 model %q", m)
	}
	if m := def.Get(fingerprint.E1).Status().Producer.Model; m != "e5-small-v2-q" {
		t.Errorf("default E1 model %q, want the int8 e5-small-v2-q", m)
	}
	if m := def.Get(fingerprint.E7).Status().Producer.Model; m != "all-minilm-l6-v2" {
		t.Errorf("default E7 model %q, want fp32 all-minilm-l6-v2", m)
	}
}

// TestModelsOpenOnFirstUse: building the registry opens no ONNX session; the
// first run of a model opens it (once, shared), and closing the loader keeps
// a never-used model closed.
func TestModelsOpenOnFirstUse(t *testing.T) {
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := Models(Config{})
	if err != nil || len(ids) < 2 {
		t.Fatalf("models %v: %v", ids, err)
	}
	used, unused := ids[0], ids[1]
	a, why, err := l.get(used)
	if err != nil || a == nil {
		t.Fatalf("get %s: %v %s", used, err, why)
	}
	b, _, err := l.get(unused)
	if err != nil || b == nil {
		t.Fatal(err)
	}
	if again, _, _ := l.get(used); again != a {
		t.Fatal("a second get opened another model")
	}
	if a.m != nil || b.m != nil {
		t.Fatal("a model session was opened before its first use")
	}
	vs, err := a.EmbedPrefixed(context.Background(), "", []string{"open me"})
	if err != nil || len(vs) != 1 || a.m == nil {
		t.Fatalf("first use of %s: %v, %d vectors, session %v", used, err, len(vs), a.m != nil)
	}
	if b.m != nil {
		t.Fatalf("using %s opened %s too", used, unused)
	}
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EmbedPrefixed(context.Background(), "", []string{"too late"}); !errors.Is(err, errClosed) {
		t.Fatalf("use after close: %v, want errClosed", err)
	}
}

// TestOneQueryOnePass: the single-text runs two slots ask of one model for
// the same prefix and text (E1's vector and E12's token states) come from
// one inference, give what separate runs give, and do not share the vector
// a caller may modify.
func TestOneQueryOnePass(t *testing.T) {
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	ids, err := Models(Config{})
	if err != nil {
		t.Fatal(err)
	}
	lm, _, err := l.get(ids[0])
	if err != nil || lm == nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const q = "why does the store abort at exit"
	var wg sync.WaitGroup
	var dense []runtime.Dense
	var pooled []runtime.Pooled
	var errA, errB error
	wg.Go(func() { dense, errA = lm.EmbedPrefixed(ctx, "query: ", []string{q}) })
	wg.Go(func() { pooled, errB = lm.EmbedWithTokens(ctx, "query: ", []string{q}) })
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if n := len(lm.memo); n != 1 {
		t.Fatalf("%d runs remembered, want 1 shared run", n)
	}
	m, _ := lm.model()
	direct, err := m.EmbedPrefixed(ctx, "query: ", []string{q})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dense[0].Vector, direct[0].Vector) || !slices.Equal(pooled[0].Vector, direct[0].Vector) || len(pooled[0].Tokens.IDs) == 0 {
		t.Fatal("the shared run differs from a run of its own")
	}
	dense[0].Vector[0] += 1
	if pooled[0].Vector[0] == dense[0].Vector[0] {
		t.Fatal("callers share one vector slice")
	}
	// Another prefix is another run.
	if _, err := lm.EmbedPrefixed(ctx, "passage: ", []string{q}); err != nil || len(lm.memo) != 2 {
		t.Fatalf("another prefix: %v, %d runs remembered", err, len(lm.memo))
	}
}

// TestInt8DocumentAloneOrBatched: E1's dynamic-int8 model gives a document
// the same vector whether it is embedded alone (as a query or a one-memory
// add runs it) or beside longer texts (as an import batches it). Batched in
// eights, as before int8Dynamic, it did not: the check that follows proves
// the test can fail.
func TestInt8DocumentAloneOrBatched(t *testing.T) {
	requireModels(t, Config{})
	ctx := context.Background()
	text := "func RuneCount(p []byte) int { return len(p) }"
	long := strings.Repeat("a much longer neighbour whose activations set another scale 12345 ", 30)
	for _, tc := range []struct {
		batch int
		same  bool
	}{{0, true}, {8, false}} {
		l, err := newLoader(Config{BatchSize: tc.batch})
		if err != nil {
			t.Fatal(err)
		}
		e, err := buildE1(l)
		if err != nil {
			t.Fatal(err)
		}
		alone, err := e.EmbedDocuments(ctx, inputs(text))
		if err != nil {
			t.Fatal(err)
		}
		batched, err := e.EmbedDocuments(ctx, inputs(text, long, "x"))
		if err != nil {
			t.Fatal(err)
		}
		l.close()
		a, b := dense(t, alone[0]), dense(t, batched[0])
		var worst float64
		for i := range a {
			worst = max(worst, math.Abs(float64(a[i]-b[i])))
		}
		t.Logf("batch size %d: alone vs batched, cosine %.6f, largest difference %.2g", tc.batch, cosine(a, b), worst)
		if same := worst <= 1e-6; same != tc.same {
			t.Errorf("batch size %d: alone and batched vectors the same = %v (largest difference %.2g), want %v", tc.batch, same, worst, tc.same)
		}
	}
}
