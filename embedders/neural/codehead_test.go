package neural

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/codeview"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models"
)

// e7HeadWantSHA256 pins the shipped head: refitting it (TestUpdateE7Head)
// must update this, e7head.txt and docs/MODELS.md together.
const e7HeadWantSHA256 = "402691ce37e21607d300da2d8482e03d1fc3bdd6896597cd72f4d35cef398495"

// TestE7HeadFile checks the shipped head decodes as a 384×384 map, matches
// its pinned checksum and the one its provenance file records, and is not
// the identity (a head that changes nothing would still change the producer).
func TestE7HeadFile(t *testing.T) {
	if got := fmt.Sprintf("%x", e7HeadSHA256); got != e7HeadWantSHA256 {
		t.Fatalf("e7head.bin sha256 %s, pinned %s: refit with TestUpdateE7Head and update the pin, e7head.txt and docs/MODELS.md together", got, e7HeadWantSHA256)
	}
	prov, err := os.ReadFile("e7head.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(prov), "sha256: "+e7HeadWantSHA256) {
		t.Errorf("e7head.txt does not record sha256 %s:\n%s", e7HeadWantSHA256, prov)
	}
	h, err := loadE7Head(384)
	if err != nil {
		t.Fatal(err)
	}
	var off float64
	for j := range h.Out {
		for k := range h.In {
			w := float64(h.Components[j*h.In+k])
			if j == k {
				w--
			}
			off += w * w
		}
	}
	if off < 1e-3 {
		t.Errorf("e7head.bin is the identity (‖W − I‖² = %g)", off)
	}
	if _, err := loadE7Head(768); err == nil {
		t.Error("a 384-d head accepted a 768-d model")
	}
}

// TestE7QueryEncoder checks E7 encodes queries with the fine-tuned MiniLM
// and documents with MiniLM itself, names the update in its representation
// but keeps raw MiniLM's producer (stored vectors are unchanged), and that on
// held-out pairs — documented functions of GOROOT/src, a tree the update was
// never fitted on — the tuned queries find their functions better (MRR@10)
// than raw MiniLM queries do.
func TestE7QueryEncoder(t *testing.T) {
	r := testRegistry(t)
	e := r.Get(fingerprint.E7)
	d := denseOf(t, e)
	if d.queryLM == nil || d.queryHead != nil {
		t.Fatalf("E7 has no fine-tuned query encoder (head %v): %s", d.queryHead != nil, e.Status().Representation)
	}
	if !strings.Contains(e.Status().Representation, "e7tune.bin") {
		t.Errorf("representation does not name the update: %s", e.Status().Representation)
	}
	checkE7Queries(t, e, d, "the tuned encoder", func(ctx context.Context, qs []string) [][]float32 {
		out := make([][]float32, len(qs))
		for i, q := range qs {
			v, err := e.EmbedQuery(ctx, embedders.Query{Text: q})
			if err != nil {
				t.Fatal(err)
			}
			out[i] = v.Value.(fingerprint.Dense)
		}
		return out
	})
}

// TestE7HeadWhereTuneDoesNotFit checks that where the installed MiniLM is
// not the file the update was fitted on (a quantised or fp16 variant), E7
// maps queries with the linear head instead, says so, and the head still
// helps on the held-out pairs.
func TestE7HeadWhereTuneDoesNotFit(t *testing.T) {
	requireModels(t, Config{})
	e, _ := e7OnOtherFile(t, Config{})
	d := denseOf(t, e)
	if d.queryLM != nil || d.queryHead == nil {
		t.Fatalf("E7 on another file: tuned encoder %v, head %v", d.queryLM != nil, d.queryHead != nil)
	}
	if rep := e.Status().Representation; !strings.Contains(rep, "e7head.bin") || !strings.Contains(rep, "fits only the fp32") {
		t.Errorf("representation does not name the head and why: %s", rep)
	}
	checkE7Queries(t, e, d, "the head", func(ctx context.Context, qs []string) [][]float32 {
		vs, err := d.lm.EmbedPrefixed(ctx, d.queryPrefix, qs)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]float32, len(qs))
		for i, v := range vs {
			out[i] = d.queryHead.apply(v.Vector)
		}
		return out
	})
}

// e7OnOtherFile builds E7 with cfg where the installed MiniLM passes for
// another file than the one e7tune.bin was fitted on (an int8 or fp16
// variant: another sha256); it returns E7 and that MiniLM.
func e7OnOtherFile(t *testing.T, cfg Config) (embedders.Embedder, *loaded) {
	t.Helper()
	l, err := newLoader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.close() })
	lm, why, err := l.get(modelMiniLM)
	if err != nil || lm == nil {
		t.Fatalf("MiniLM: %v %s", err, why)
	}
	lm.onnx = strings.Repeat("0", 64)
	e, err := buildE7(l)
	if err != nil {
		t.Fatal(err)
	}
	return e, lm
}

// e7DocVector is the vector E7 stores for a text already in its code view:
// MiniLM's pooled vector, head-pooled where d pools heads.
func e7DocVector(t *testing.T, d *denseEmbedder, view string) []float32 {
	t.Helper()
	ps, err := d.lm.EmbedWithTokens(context.Background(), d.docPrefix, []string{view})
	if err != nil {
		t.Fatal(err)
	}
	if d.headTokens == 0 {
		return ps[0].Vector
	}
	return headPooled(ps[0], d.headTokens, e7HeadWeight)
}

// denseOf is the denseEmbedder of a dense slot (E1, E7), shared run or not.
func denseOf(t *testing.T, e embedders.Embedder) *denseEmbedder {
	t.Helper()
	switch s := e.(type) {
	case *e7Shared:
		return s.denseEmbedder
	case *e1Shared:
		return s.denseEmbedder
	case *denseEmbedder:
		return s
	}
	t.Fatalf("%s is %T: %s", e.Slot(), e, e.Status().Representation)
	return nil
}

// checkE7Queries checks E7's producer and documents are raw MiniLM's over
// the code view and that queries encoded by query (as typed) differ from
// raw MiniLM's and beat them on the held-out GOROOT pairs.
func checkE7Queries(t *testing.T, e embedders.Embedder, d *denseEmbedder, what string, query func(context.Context, []string) [][]float32) {
	t.Helper()
	if raw := d.lm.producer("E7 dense v2", d.docPrefix, d.queryPrefix, codeViewRecipe, e7HeadRecipe); d.status.Producer != raw {
		// Queries only change: the stored document vectors are MiniLM's
		// own over the code view, head-pooled, and a store built with
		// another fit must stay valid.
		t.Errorf("E7 with %s has producer %v, want MiniLM's head-pooled over the code view %v (documents are unchanged)", what, d.status.Producer, raw)
	}
	ctx := context.Background()
	qs, cs, docs := heldOutEmbedded(t, e)
	if c := cosine(docs[0].Value.(fingerprint.Dense), e7DocVector(t, d, codeview.View(cs[0]))); c < 0.9999 {
		t.Errorf("E7 documents are not MiniLM's own head-pooled vectors of their code view (cosine %.5f): stored vectors would need a reembed", c)
	}
	dv, plain := make([][]float32, len(qs)), make([][]float32, len(qs))
	rawQ, err := d.lm.EmbedPrefixed(ctx, d.queryPrefix, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range qs {
		dv[i], plain[i] = docs[i].Value.(fingerprint.Dense), rawQ[i].Vector
	}
	mapped := query(ctx, qs)
	if c := cosine(mapped[0], plain[0]); c > 0.999 {
		t.Errorf("%s leaves the query as it was (cosine %.4f)", what, c)
	}
	with, _ := e7Retrieval(mapped, dv)
	without, _ := e7Retrieval(plain, dv)
	t.Logf("GOROOT held out, %d pairs: raw MiniLM %s, with %s %s", len(qs), without, what, with)
	if with.MRR <= without.MRR {
		t.Errorf("%s does not help on held-out Go pairs: MRR@10 %.3f with, %.3f without", what, with.MRR, without.MRR)
	}
}

// heldOutEmbedded is e7HeldOut's queries and functions, and e's stored
// entries of the functions.
func heldOutEmbedded(t *testing.T, e embedders.Embedder) (qs, cs []string, docs []fingerprint.Entry) {
	t.Helper()
	ps := e7HeldOut(t)
	qs, cs = make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		qs[i], cs[i] = p.Query, p.Code
	}
	docs, err := e.EmbedDocuments(context.Background(), inputs(cs...))
	if err != nil {
		t.Fatal(err)
	}
	return qs, cs, docs
}

// e7HeldOut mines a seeded sample of documented functions from a few
// GOROOT/src packages (the head is fitted on the module cache, never on
// GOROOT).
func e7HeldOut(t testing.TB) []bench.Pair {
	t.Helper()
	root := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	ex, err := bench.ExtractorFor("go")
	if err != nil {
		t.Fatal(err)
	}
	var all []bench.Pair
	for _, pkg := range []string{"strings", "bytes", "strconv", "path/filepath", "bufio", "encoding/json", "net/url", "sort", "text/template"} {
		ps, _, err := bench.Collect(filepath.Join(root, "src", pkg), ex)
		if err != nil {
			t.Skipf("GOROOT sources not readable here: %v", err)
		}
		all = append(all, ps...)
	}
	return bench.Sample(all, 200, 1)
}

// The shipped query updates' pins: refitting one (scripts/e7tune) must
// update its pin, its provenance file (<name>.txt), testdata/<name>_ref.json
// and docs/MODELS.md together.
const (
	e7TuneWantSHA256 = "1c2bede093e9dac92727051f38a9788e3c8aabb3b551fed38759f8db8f6023bf"
	e1TuneWantSHA256 = "4a3d7c50dfbe5ac18a0d5467c07075929743a25782651aad1713199129c76d42"
	e5TuneWantSHA256 = "dfab8f21efa4f42ade28d65f7c80c5f443b0dfea4f427b081de0a6da2bade1e5"
)

// tuneFiles are the embedded fine-tuned query encoders: each slot's update,
// its pin and the model file it was fitted on.
var tuneFiles = []struct {
	name  string // e7tune: e7tune.bin, e7tune.txt, testdata/e7tune_ref.json
	slot  fingerprint.SlotID
	model models.ModelID
	sum   [32]byte
	pin   string
	parse func() (lowRankFile, error)
	as    fingerprint.Side // the side the reference queries are embedded as (E5: its forward probe's)
}{
	{"e1tune", fingerprint.E1, modelE1, e1TuneSHA256, e1TuneWantSHA256, e1LowRank, 0},
	{"e5tune", fingerprint.E5, modelE5, e5TuneSHA256, e5TuneWantSHA256, e5LowRank, fingerprint.SideA},
	{"e7tune", fingerprint.E7, modelMiniLM, e7TuneSHA256, e7TuneWantSHA256, e7LowRank, 0},
}

// TestTuneFiles checks each shipped update decodes, matches its pin and its
// provenance file, changes something, and was fitted on the fp32 file the
// manifest installs for its model.
func TestTuneFiles(t *testing.T) {
	mf, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tf := range tuneFiles {
		t.Run(tf.name, func(t *testing.T) {
			if got := fmt.Sprintf("%x", tf.sum); got != tf.pin {
				t.Fatalf("%s.bin sha256 %s, pinned %s: refit with scripts/e7tune and update the pin, %s.txt, testdata/%s_ref.json and docs/MODELS.md together", tf.name, got, tf.pin, tf.name, tf.name)
			}
			prov, err := os.ReadFile(tf.name + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(prov), tf.pin) {
				t.Errorf("%s.txt does not record sha256 %s", tf.name, tf.pin)
			}
			f, err := tf.parse()
			if err != nil {
				t.Fatal(err)
			}
			meta, err := mf.Model(tf.model)
			if err != nil {
				t.Fatal(err)
			}
			onnx, _ := meta.File(models.RoleONNX)
			if got := fmt.Sprintf("%x", f.Base); got != onnx.SHA256 {
				t.Errorf("%s.bin was fitted on the ONNX file %s, the manifest installs %s for %s", tf.name, got, onnx.SHA256, tf.model)
			}
			var norm float64
			for _, u := range f.Updates {
				for _, b := range u.B {
					norm += float64(b) * float64(b)
				}
			}
			if norm == 0 {
				t.Errorf("%s.bin changes nothing (every B is zero)", tf.name)
			}
		})
	}
}

// TestTuneParity checks the Go merge runs the encoder the fitter
// evaluated: each slot's query vectors for its reference queries match the
// fitter's (JAX, with the half-rounded update and the model's query
// prefix) to cosine 0.9995.
func TestTuneParity(t *testing.T) {
	for _, tf := range tuneFiles {
		t.Run(tf.name, func(t *testing.T) {
			var ref struct {
				SHA256  string `json:"sha256"`
				Queries []struct {
					Q string    `json:"q"`
					V []float32 `json:"v"`
				} `json:"queries"`
			}
			b, err := os.ReadFile(filepath.Join("testdata", tf.name+"_ref.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &ref); err != nil {
				t.Fatal(err)
			}
			if ref.SHA256 != fmt.Sprintf("%x", tf.sum) || len(ref.Queries) == 0 {
				t.Fatalf("testdata/%s_ref.json is for %s.bin %s (%d queries); regenerate it with scripts/e7tune/export.py", tf.name, tf.name, ref.SHA256, len(ref.Queries))
			}
			e := testRegistry(t).Get(tf.slot)
			for _, q := range ref.Queries {
				if queryView(q.Q) != q.Q {
					t.Fatalf("reference query %q is changed by the query view; the fitter embeds it as written", q.Q)
				}
				v, err := e.EmbedQuery(context.Background(), embedders.Query{Text: q.Q, As: tf.as})
				if err != nil {
					t.Fatal(err)
				}
				if c := cosine(v.Value.(fingerprint.Dense), q.V); c < 0.9995 {
					t.Errorf("%q: %s's query vector vs the fitter's: cosine %.5f", q.Q, tf.slot, c)
				}
			}
		})
	}
}

// TestE1QueryEncoder checks E1 encodes queries with e5 fine-tuned for code
// (merged into the fp32 file) while its documents and producer stay the
// installed int8 file's own, names the update, and that on held-out pairs —
// documented functions of GOROOT/src; the shipped update never saw a Go
// pair — its queries find their functions better (MRR@10) than raw e5
// queries do.
func TestE1QueryEncoder(t *testing.T) {
	e := testRegistry(t).Get(fingerprint.E1)
	d := denseOf(t, e)
	if d.queryLM == nil || !strings.Contains(e.Status().Representation, "e1tune.bin") {
		t.Fatalf("E1 has no fine-tuned query encoder: %s", e.Status().Representation)
	}
	if raw := d.lm.producer("E1 dense v1", d.docPrefix, d.queryPrefix, codeViewRecipe); d.status.Producer != raw {
		t.Errorf("E1 producer %v, want the installed file's %v (documents are unchanged)", d.status.Producer, raw)
	}
	ctx := context.Background()
	qs, cs, docs := heldOutEmbedded(t, e)
	own, err := d.lm.EmbedPrefixed(ctx, d.docPrefix, []string{codeview.View(cs[0])})
	if err != nil {
		t.Fatal(err)
	}
	// Dynamic int8 quantises activations per run, so a text embedded alone
	// and in a batch of 200 agree to ~0.998, not exactly.
	if c := cosine(docs[0].Value.(fingerprint.Dense), own[0].Vector); c < 0.995 {
		t.Errorf("E1 documents are not the installed file's own vectors of their code view (cosine %.5f)", c)
	}
	rawQ, err := d.lm.EmbedPrefixed(ctx, d.queryPrefix, qs)
	if err != nil {
		t.Fatal(err)
	}
	dv, plain, tuned := make([][]float32, len(qs)), make([][]float32, len(qs)), make([][]float32, len(qs))
	for i, q := range qs {
		v, err := e.EmbedQuery(ctx, embedders.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		dv[i], plain[i], tuned[i] = docs[i].Value.(fingerprint.Dense), rawQ[i].Vector, v.Value.(fingerprint.Dense)
	}
	tunedHelps(t, "e5", tuned, plain, dv)
}

// TestE5QueryEncoder checks E5 encodes queries with bge fine-tuned for
// code (merged into the fp32 file) while its documents and producer stay
// the installed int8 file's own, and that on the held-out GOROOT pairs its
// forward probe — the query's cause view against the documents' stored
// effect vectors, as code_search reads E5 — finds their functions better
// (MRR@10) than raw bge queries do.
func TestE5QueryEncoder(t *testing.T) {
	e := testRegistry(t).Get(fingerprint.E5)
	p, ok := e.(*pairEmbedder)
	if !ok || p.queryLM == nil || !strings.Contains(e.Status().Representation, "e5tune.bin") {
		t.Fatalf("E5 (%T) has no fine-tuned query encoder: %s", e, e.Status().Representation)
	}
	ctx := context.Background()
	qs, cs, docs := heldOutEmbedded(t, e)
	own, err := p.lm.EmbedPrefixed(ctx, "", []string{codeview.View(cs[0])})
	if err != nil {
		t.Fatal(err)
	}
	// As E1's (int8 activations quantised per run), and the head's centring
	// (− mu) magnifies that difference: 0.995 here; a tuned encoder's
	// document would sit near 0.87.
	if c := cosine(docs[0].Value.(fingerprint.Pair).B, p.apply(own[0].Vector, fingerprint.SideB)); c < 0.99 {
		t.Errorf("E5 documents are not the installed file's own vectors of their code view (cosine %.5f)", c)
	}
	dv, plain, tuned := make([][]float32, len(qs)), make([][]float32, len(qs)), make([][]float32, len(qs))
	for i, q := range qs {
		v, err := e.EmbedQuery(ctx, embedders.Query{Text: q, As: fingerprint.SideA})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.EmbedQuery(ctx, embedders.Query{Text: q, As: fingerprint.SideA, Raw: true})
		if err != nil {
			t.Fatal(err)
		}
		dv[i], plain[i], tuned[i] = docs[i].Value.(fingerprint.Pair).B, r.Value.(fingerprint.Dense), v.Value.(fingerprint.Dense)
	}
	tunedHelps(t, "bge", tuned, plain, dv)
}

// tunedHelps checks a tuned query encoder moves the queries and, on the
// held-out GOROOT pairs (query i's document is docs[i]), finds their
// functions better (MRR@10) than the raw model's queries (plain) do.
func tunedHelps(t *testing.T, model string, tuned, plain, docs [][]float32) {
	t.Helper()
	if c := cosine(tuned[0], plain[0]); c > 0.999 {
		t.Errorf("the tuned encoder leaves the query as it was (cosine %.4f)", c)
	}
	with, _ := e7Retrieval(tuned, docs)
	without, _ := e7Retrieval(plain, docs)
	t.Logf("GOROOT held out, %d pairs: raw %s %s, tuned %s (first query: cosine %.3f to raw)", len(tuned), model, without, with, cosine(tuned[0], plain[0]))
	if with.MRR <= without.MRR {
		t.Errorf("the tuned encoder does not help on held-out Go pairs: MRR@10 %.3f with, %.3f without", with.MRR, without.MRR)
	}
}

// TestRawWithoutFP32File checks that where the fp32 file a slot's query
// update was fitted on is not installed beside the int8 file, the slot
// encodes queries with the int8 file itself and says why in its
// representation.
func TestRawWithoutFP32File(t *testing.T) {
	requireModels(t, Config{})
	for _, tc := range []struct {
		slot  fingerprint.SlotID
		model models.ModelID
		build func(*loader) (embedders.Embedder, error)
		why   string
	}{
		{fingerprint.E1, modelE1, buildE1, "queries through raw e5"},
		{fingerprint.E5, modelE5, buildE5, "queries through raw bge"},
	} {
		t.Run(tc.slot.String(), func(t *testing.T) {
			dir := t.TempDir()
			q := string(tc.model) + "-q"
			if err := os.Symlink(filepath.Join(DefaultModelsDir(), q), filepath.Join(dir, q)); err != nil {
				t.Fatal(err)
			}
			l, err := newLoader(Config{ModelsDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.close() })
			e, err := tc.build(l)
			if err != nil {
				t.Fatal(err)
			}
			tuned, ok := e.(embedders.TunedQueries)
			if !ok {
				t.Fatalf("%s is %T: %s", tc.slot, e, e.Status().Representation)
			}
			if rep := e.Status().Representation; tuned.Tuned() || !strings.Contains(rep, tc.why) || !strings.Contains(rep, "models pull "+string(tc.model)) {
				t.Errorf("tuned encoder %v: %s", tuned.Tuned(), rep)
			}
		})
	}
}

// TestE7TunedBesideOtherWeights: under --precision fp16 (Config.fp32Dir
// set) E7's MiniLM is another file than e7tune.bin was fitted on; E7 then
// keeps the fine-tuned query encoder, built from the fp32 file in fp32Dir —
// the same query vectors as on the CPU's fp32 — with its documents still the
// other file's, and falls back to the head where fp32Dir holds no fp32 file.
func TestE7TunedBesideOtherWeights(t *testing.T) {
	requireModels(t, Config{})
	ctx := context.Background()
	query := func(e embedders.Embedder, text string) []float32 {
		t.Helper()
		v, err := e.EmbedQuery(ctx, embedders.Query{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return []float32(v.Value.(fingerprint.Dense))
	}
	plain, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.close() })
	want, err := buildE7(plain)
	if err != nil {
		t.Fatal(err)
	}
	const q = "returns the number of bytes written and any error"
	for _, tc := range []struct {
		name    string
		fp32Dir string
		tuned   bool
	}{
		{"the fp32 file beside", DefaultModelsDir(), true},
		{"no fp32 file beside", t.TempDir(), false},
		{"not fp16", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, lm := e7OnOtherFile(t, Config{fp32Dir: tc.fp32Dir}) // lm stands for the fp16 file
			d := denseOf(t, e)
			rep := e.Status().Representation
			if !tc.tuned {
				if d.queryLM != nil || d.queryHead == nil || !strings.Contains(rep, "e7head.bin") {
					t.Fatalf("tuned encoder %v, head %v: %s", d.queryLM != nil, d.queryHead != nil, rep)
				}
				return
			}
			if d.queryLM == nil || d.queryHead != nil || !strings.Contains(rep, "the fp32 file's") {
				t.Fatalf("tuned encoder %v, head %v: %s", d.queryLM != nil, d.queryHead != nil, rep)
			}
			if d.lm != lm {
				t.Errorf("documents through %s, want the other file's model", d.lm.id)
			}
			if c := cosine(query(e, q), query(want, q)); c < 0.99999 {
				t.Errorf("query vector: cosine %.6f to the fp32 tuned encoder's, want the same vector", c)
			}
		})
	}
}
