package neural

import (
	"context"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// TestStatuses: with the default models installed every slot says what it
// is; E12 is the documented fallback and E13 unavailable with the pull hint.
func TestStatuses(t *testing.T) {
	r := testRegistry(t)
	want := map[fingerprint.SlotID]fingerprint.Status{
		fingerprint.E1: fingerprint.StatusPresent, fingerprint.E5: fingerprint.StatusPresent,
		fingerprint.E6: fingerprint.StatusPresent, fingerprint.E7: fingerprint.StatusPresent,
		fingerprint.E8: fingerprint.StatusPresent, fingerprint.E9: fingerprint.StatusPresent,
		fingerprint.E10: fingerprint.StatusPresent, fingerprint.E11: fingerprint.StatusPresent,
		fingerprint.E12: fingerprint.StatusFallback, fingerprint.E13: fingerprint.StatusUnavailable,
	}
	producers := map[fingerprint.Producer]fingerprint.SlotID{}
	for i, st := range r.Statuses() {
		s := fingerprint.SlotID(i + 1)
		if w, ok := want[s]; ok && st.State != w {
			t.Errorf("%s: state %v (%s), want %v", s, st.State, st.Reason, w)
		}
		if st.State == fingerprint.StatusPresent || st.State == fingerprint.StatusFallback {
			if prev, dup := producers[st.Producer]; dup {
				t.Errorf("%s and %s share producer %v", prev, s, st.Producer)
			}
			producers[st.Producer] = s
		}
	}
	if st := r.Get(fingerprint.E13).Status(); !strings.Contains(st.Reason, "cgraph models pull splade-pp-en-v1") {
		t.Errorf("E13 reason %q", st.Reason)
	}
	if _, err := r.Get(fingerprint.E13).EmbedQuery(context.Background(), embedders.Query{Text: "x"}); err == nil {
		t.Error("E13 served a query without a SPLADE model")
	}
}

// TestProducerFoldsParams: a prefix or head change is a different producer.
func TestProducerFoldsParams(t *testing.T) {
	lm := &loaded{id: "m", onnx: strings.Repeat("ab", 32)}
	base := lm.producer("E1 dense v1", "passage: ", "query: ")
	for _, p := range []fingerprint.Producer{
		lm.producer("E1 dense v1", "passage:", "query: "),
		lm.producer("E1 dense v2", "passage: ", "query: "),
		(&loaded{id: "m", onnx: strings.Repeat("ac", 32)}).producer("E1 dense v1", "passage: ", "query: "),
	} {
		if p == base {
			t.Errorf("producer %v did not change", p)
		}
	}
	if again := lm.producer("E1 dense v1", "passage: ", "query: "); again != base || base.Model != "m" {
		t.Errorf("producer not stable: %v vs %v", again, base)
	}
}

func pairOf(t *testing.T, e fingerprint.Entry) fingerprint.Pair {
	t.Helper()
	p, ok := e.Value.(fingerprint.Pair)
	if !ok {
		t.Fatalf("entry %v %q holds %T, want a pair", e.Status, e.Note, e.Value)
	}
	return p
}

// TestE5Direction: on the held-out (odd-indexed) mined pairs, the effect
// view of an effect is closer to its cause's as-cause vector than the
// swapped roles are, in more pairs than chance allows; the two stored
// vectors and the two query views differ.
func TestE5Direction(t *testing.T) {
	r := testRegistry(t)
	e := r.Get(fingerprint.E5)
	ctx := context.Background()
	ps := loadPairs(t)
	var causes, effects []string
	for i, p := range ps {
		if i%2 == 1 {
			causes, effects = append(causes, p.Cause), append(effects, p.Effect)
		}
	}
	dc, err := e.EmbedDocuments(ctx, inputs(causes...))
	if err != nil {
		t.Fatal(err)
	}
	de, err := e.EmbedDocuments(ctx, inputs(effects...))
	if err != nil {
		t.Fatal(err)
	}
	n := len(causes)
	qe, qc, vc, ve := make([][]float32, n), make([][]float32, n), make([][]float32, n), make([][]float32, n)
	for i := range n {
		for _, q := range []struct {
			text string
			dst  [][]float32
		}{{effects[i], qe}, {causes[i], qc}} {
			// Seeking causes, the query is embedded as an effect (AP-77).
			v, err := e.EmbedQuery(ctx, embedders.Query{Text: q.text, As: fingerprint.SideB})
			if err != nil {
				t.Fatal(err)
			}
			q.dst[i] = v.Value.(fingerprint.Dense)
		}
		vc[i], ve[i] = pairOf(t, dc[i]).A, pairOf(t, de[i]).A
	}
	ev := evalDirection(qe, qc, vc, ve)
	t.Logf("held out: %s", ev)
	// Chance is 0.5 with a standard deviation of 0.033 at n=236.
	if ev.PairAcc < 0.58 || ev.Ratio <= 1 {
		t.Errorf("direction lost on held-out pairs: %s", ev)
	}
	p := pairOf(t, dc[0])
	if c := cosine(p.A, p.B); c > 0.999 {
		t.Errorf("as-cause and as-effect vectors are the same (cosine %.4f)", c)
	}
	fe, err := e.EmbedQuery(ctx, embedders.Query{Text: causes[0], As: fingerprint.SideA}) // seeking effects
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(fe.Value.(fingerprint.Dense), qc[0]); c > 0.999 {
		t.Errorf("the cause and effect query views are the same (cosine %.4f)", c)
	}
}

const goSnippet = `package server

import (
	"net/http"
	"github.com/linxGnu/grocksdb"
)

// Serve answers lookups from the store.
func Serve(db *grocksdb.DB) error {
	http.HandleFunc("/get", handleGet)
	return http.ListenAndServe(":8080", nil)
}
`

// TestE8Views: a code memory gets distinct as-source and as-target vectors;
// prose without structure is unavailable with the reason.
func TestE8Views(t *testing.T) {
	r := testRegistry(t)
	got, err := r.Get(fingerprint.E8).EmbedDocuments(context.Background(), inputs(goSnippet, "We met on Tuesday and agreed on the plan."))
	if err != nil {
		t.Fatal(err)
	}
	p := pairOf(t, got[0])
	if c := cosine(p.A, p.B); c > 0.98 {
		t.Errorf("as-source and as-target nearly equal (cosine %.4f)", c)
	}
	if got[1].Status != fingerprint.StatusUnavailable || got[1].Note != noStructure {
		t.Errorf("prose: %v %q", got[1].Status, got[1].Note)
	}
	if _, err := r.Get(fingerprint.E8).EmbedQuery(context.Background(), embedders.Query{Text: "code that imports net/http"}); err == nil {
		t.Fatal("an E8 query without a side was accepted")
	}
	q, err := r.Get(fingerprint.E8).EmbedQuery(context.Background(), embedders.Query{Text: "code that imports net/http", As: fingerprint.SideA})
	if err != nil || q.Value == nil {
		t.Fatalf("E8 query as source: %+v %v", q, err)
	}
}

func TestE10Sides(t *testing.T) {
	tests := []struct{ text, intent, context string }{
		{"The cache grows without bound. Add an LRU limit so that memory stays flat. It was seen in production.",
			"Add an LRU limit so that memory stays flat.", "The cache grows without bound. It was seen in production."},
		{"Deploy failed at 3am. The disk was full.", "Deploy failed at 3am.", "The disk was full."},
		{"Fix the flaky test", "Fix the flaky test", "Fix the flaky test"},
		{"Notes:\n- we need to rotate the keys\n- the old key leaked", "- we need to rotate the keys", "Notes: - the old key leaked"},
	}
	for _, tc := range tests {
		in, ctx := e10Sides(tc.text)
		if in != tc.intent || ctx != tc.context {
			t.Errorf("%q:\n got %q / %q\nwant %q / %q", tc.text, in, ctx, tc.intent, tc.context)
		}
	}
}

// TestE10SpanPooling: the span pooling lines up with the shared run for
// multi-line text, and the entry says when it had to embed separately.
func TestE10SpanPooling(t *testing.T) {
	r := testRegistry(t)
	texts := []string{
		"The importer times out on large files.\n\nWe need to stream the input instead of reading it whole. See io.Copy!",
		strings.Repeat("The log is long and the disk is slow. ", 60) + "We need to rotate logs daily.",
		"We need to rotate logs daily. " + strings.Repeat("The log is long and the disk is slow. ", 60),
	}
	got, err := r.Get(fingerprint.E10).EmbedDocuments(context.Background(), inputs(texts...))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Note != "" {
		t.Errorf("short text: note %q, want span pooling", got[0].Note)
	}
	if !strings.Contains(got[1].Note, separateNote) {
		t.Errorf("intent past MiniLM's 256 tokens: note %q", got[1].Note)
	}
	if strings.Contains(got[2].Note, separateNote) || !strings.Contains(got[2].Note, "truncated") {
		t.Errorf("intent within MiniLM's 256 tokens of a long text: note %q", got[2].Note)
	}
	for i := range got {
		p := pairOf(t, got[i])
		if c := cosine(p.A, p.B); c > 0.98 {
			t.Errorf("text %d: intent and context nearly equal (cosine %.4f)", i, c)
		}
	}
}

// TestE10NotE1: E10's views differ from each other and from E1's vector of
// the same text (another model, another input).
func TestE10NotE1(t *testing.T) {
	r := testRegistry(t)
	text := "The importer times out on large files. We need to stream the input instead of reading it whole."
	fps, err := r.EmbedDocuments(context.Background(), inputs(text))
	if err != nil {
		t.Fatal(err)
	}
	p := pairOf(t, fps[0].Get(fingerprint.E10))
	e1 := dense(t, fps[0].Get(fingerprint.E1))
	if c := cosine(p.A, p.B); c > 0.98 {
		t.Errorf("intent and context nearly equal (cosine %.4f)", c)
	}
	if c := cosine(p.A, e1); c > 0.9 {
		t.Errorf("E10 intent looks like E1 (cosine %.4f)", c)
	}
}

// TestE11Overlap: the entity vectors of texts naming the same things are
// closer than those of texts naming other things; the set is kept.
func TestE11Overlap(t *testing.T) {
	r := testRegistry(t)
	e := r.Get(fingerprint.E11)
	got, err := e.EmbedDocuments(context.Background(), inputs(
		"grocksdb.Open failed with ENOENT reading /var/lib/cgraph/db; rocksdb 7.8.3",
		"rocksdb returned ENOENT again for /var/lib/cgraph/db after grocksdb.Open",
		"npm install of react failed with EACCES on node_modules/.bin",
		"we talked about the weather"))
	if err != nil {
		t.Fatal(err)
	}
	vec := func(i int) []float32 {
		en := got[i]
		if en.Status != fingerprint.StatusPresent {
			t.Fatalf("doc %d: %v %q", i, en.Status, en.Note)
		}
		return en.Value.(fingerprint.Entities).Vector
	}
	same, other := cosine(vec(0), vec(1)), cosine(vec(0), vec(2))
	t.Logf("overlapping sets %.3f, disjoint %.3f", same, other)
	if same <= other {
		t.Errorf("overlapping sets %.3f not closer than disjoint %.3f", same, other)
	}
	if names := got[0].Value.(fingerprint.Entities).Names; len(names) < 3 {
		t.Errorf("set %v", names)
	}
	if got[3].Status != fingerprint.StatusUnavailable || got[3].Note != noEntities {
		t.Errorf("no entities: %v %q", got[3].Status, got[3].Note)
	}
}

// TestE8Text: every side text is non-empty whenever the memory or query has
// any structure; a side with nothing of its own takes the whole structure.
func TestE8Text(t *testing.T) {
	for _, text := range []string{goSnippet, "w.Reset()", "see cmd/cgraph/main.go", "func Open() error { return nil }"} {
		src, tgt, reason := e8Sides(text)
		if reason != "" || strings.TrimSpace(src) == "" || strings.TrimSpace(tgt) == "" {
			t.Errorf("%q: sides %q / %q (%s)", text, src, tgt, reason)
		}
		for _, side := range []fingerprint.Side{fingerprint.SideA, fingerprint.SideB} {
			if q := e8Query(text, side); strings.TrimSpace(q) == "" {
				t.Errorf("%q side %d: empty query text", text, side)
			}
		}
	}
	if _, _, reason := e8Sides("We met on Tuesday."); reason != noStructure {
		t.Errorf("prose: reason %q", reason)
	}
}
