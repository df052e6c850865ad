package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

func modelFreeRegistry(t testing.TB) *embedders.Registry {
	t.Helper()
	r, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hashRegistry(t testing.TB, tag string) *embedders.Registry {
	t.Helper()
	r, err := fullRegistry(tag)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func openStore(t testing.TB, dir string, reg *embedders.Registry) *Engine {
	t.Helper()
	s, err := Open(dir, Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var texts = []string{
	"Decision: pin github.com/linxGnu/grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions",
	"Error: authentication failed for user admin; fix: rotate the token in config/auth.yaml",
	"Pattern: wrap errors with fmt.Errorf and %w so callers can use errors.Is",
	"The HNSW library coder/hnsw returned wrong neighbours; we chose an exact scan with sign sketches",
	"Conversation: the user prefers tabs over spaces in Makefiles",
	"Fix: the build failed due to a missing CGO_LDFLAGS for librocksdb; set it in the Makefile",
	"Note: RocksDB secondary instances catch up with TryCatchUpWithPrimary before every read",
	"Error: context deadline exceeded when calling the embedding server; retry with backoff",
}

func newMemories(ts []string) []record.NewMemory {
	var ns []record.NewMemory
	for i, x := range ts {
		n := record.NewMemory{Content: x, CreatedAt: time.Date(2026, 3, 1, 10, i, 0, 0, time.UTC)}
		if i%2 == 0 {
			n.Session = "s1"
		}
		ns = append(ns, n)
	}
	return ns
}

func addAll(t testing.TB, s *Engine, ts []string) []record.Memory {
	t.Helper()
	ms, err := s.AddBatch(context.Background(), newMemories(ts))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// derivedFamilies are the families the engine derives from a memory
// besides its record.
var derivedFamilies = []cellar.Family{cellar.FamFingerprints, cellar.FamE1Matryoshka128, cellar.FamE1Semantic,
	cellar.FamE5Cause, cellar.FamE5Effect, cellar.FamE7Code, cellar.FamE8Source, cellar.FamE8Target, cellar.FamE9HDC,
	cellar.FamE10Intent, cellar.FamE10Context, cellar.FamE11Entity, cellar.FamE6SparseInverted,
	cellar.FamE13SpladeInverted, cellar.FamE12LateInteraction}

// familyKeys counts each derived family's keys, statistics keys apart.
func familyKeys(t *testing.T, s *Engine) (keys map[string]int, stats map[string]string) {
	t.Helper()
	keys, stats = map[string]int{}, map[string]string{}
	for _, fam := range derivedFamilies {
		f := fam.String()
		err := s.cellar.Scan(context.Background(), fam, nil, func(k, v []byte) error {
			if strings.HasSuffix(f, "_inverted") && k[0] == statPrefix {
				n, err := decodeU64(v)
				if err != nil {
					return err
				}
				stats[f+"/"+string(k)] = fmt.Sprint(n)
				return nil
			}
			keys[f]++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return keys, stats
}

func TestAddWritesEveryFamilyAndDeleteLeavesNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), hashRegistry(t, ""))
	ms := addAll(t, s, texts)
	keys, stats := familyKeys(t, s)
	for _, fam := range derivedFamilies {
		f := fam.String()
		if f == "e6_sparse_inverted" || f == "e13_splade_inverted" {
			if keys[f] < len(ms) {
				t.Errorf("%s: %d postings for %d memories", f, keys[f], len(ms))
			}
			continue
		}
		if keys[f] != len(ms) {
			t.Errorf("%s: %d keys for %d memories", f, keys[f], len(ms))
		}
	}
	if stats["e6_sparse_inverted/s/docs"] != fmt.Sprint(len(ms)) {
		t.Errorf("e6 doc count %s, want %d", stats["e6_sparse_inverted/s/docs"], len(ms))
	}
	// The E6 length statistic is the sum of the stored documents' lengths.
	var total uint64
	for _, m := range ms {
		fp, err := s.Fingerprint(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		total += fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs).DocLen()
	}
	if stats["e6_sparse_inverted/s/length"] != fmt.Sprint(total) {
		t.Errorf("e6 length %s, want %d", stats["e6_sparse_inverted/s/length"], total)
	}
	// Delete half, check the statistics follow, then the rest.
	var left uint64 = total
	for i, m := range ms {
		fp, _ := s.Fingerprint(ctx, m.ID)
		if err := s.Delete(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		left -= fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs).DocLen()
		_, stats := familyKeys(t, s)
		if got, want := stats["e6_sparse_inverted/s/length"], fmt.Sprint(left); got != want {
			t.Fatalf("after %d deletes e6 length %s, want %s", i+1, got, want)
		}
		if got, want := stats["e6_sparse_inverted/s/docs"], fmt.Sprint(len(ms)-i-1); got != want {
			t.Fatalf("after %d deletes e6 docs %s, want %s", i+1, got, want)
		}
	}
	keys, _ = familyKeys(t, s)
	for f, n := range keys {
		if n != 0 {
			t.Errorf("after deleting every memory %s still holds %d keys", f, n)
		}
	}
	if err := s.cellar.Check(ctx); err != nil {
		t.Fatal(err)
	}
	for _, si := range s.Slots() {
		if si.Docs != 0 {
			t.Errorf("%s index still holds %d docs", si.Slot, si.Docs)
		}
	}
}

// searchAll runs a fixed set of requests and renders their hits.
func searchAll(t *testing.T, s *Engine) []string {
	t.Helper()
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var reqs []SearchRequest
	for _, name := range []string{"semantic_search", "causal_reasoning", "code_search", "typo_tolerant", "pipeline_full", "sequence_navigation"} {
		p, err := profiles.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []pipeline.Mode{pipeline.ModeMultiSpace, pipeline.ModePipeline} {
			reqs = append(reqs, SearchRequest{Query: "rocksdb build failed authetication", Profile: p, Mode: mode, Now: now, Session: "s1", Seq: 2, NoThresholds: true})
		}
	}
	for _, sl := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E6, fingerprint.E7, fingerprint.E8, fingerprint.E9, fingerprint.E10, fingerprint.E13} {
		reqs = append(reqs, SearchRequest{Query: "rocksdb build failed", Mode: pipeline.ModeEmbedderFirst, Embedder: sl, Now: now, NoThresholds: true})
	}
	var out []string
	for _, r := range reqs {
		res, err := s.Search(context.Background(), r)
		if err != nil {
			t.Fatalf("%s %s: %v", r.Profile.Name, r.Mode, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%s/%s:", r.Profile.Name, r.Mode, r.Embedder)
		for i, h := range res.Hits {
			fmt.Fprintf(&b, " %s=%.6f%v", res.Memories[i].ID, h.Score, h.Badges)
		}
		out = append(out, b.String())
	}
	return out
}

func TestReopenGivesSameResults(t *testing.T) {
	dir := t.TempDir()
	reg := hashRegistry(t, "")
	s := openStore(t, dir, reg)
	ms := addAll(t, s, texts)
	if err := s.Delete(context.Background(), ms[3].ID); err != nil {
		t.Fatal(err)
	}
	before := searchAll(t, s)
	ram := s.RAMBytes()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, dir, reg)
	after := searchAll(t, s2)
	if !slices.Equal(before, after) {
		for i := range before {
			if before[i] != after[i] {
				t.Errorf("before reopen: %s\nafter reopen:  %s", before[i], after[i])
			}
		}
	}
	nonEmpty := 0
	for _, l := range before {
		if strings.Contains(l, "=") {
			nonEmpty++
		}
	}
	if nonEmpty < len(before)-1 {
		t.Errorf("only %d of %d searches found anything: %v", nonEmpty, len(before), before)
	}
	if got := s2.RAMBytes(); got < ram/2 || got > ram*2 {
		t.Errorf("RAM %d after reopen, %d before", got, ram)
	}
}

// TestReopenGivesSameResultsPastRerank: a store larger than a dense space's
// rerank depth (512) picks its exact-scored candidates by the sign sketches,
// whose centre an open must put where the writes left it; otherwise a deep
// result list differs after a restart (the bench saw 1–4 queries in 500).
func TestReopenGivesSameResultsPastRerank(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	reg := hashRegistry(t, "")
	s := openStore(t, dir, reg)
	words := strings.Fields("index store query batch commit column family vector sketch centre rerank token speller fusion weight profile memory search engine write")
	var ts []string
	for i := range 1100 {
		ts = append(ts, fmt.Sprintf("note %d: %s %s %s then %s", i, words[i%len(words)], words[(i/3)%len(words)], words[(i/7)%len(words)], words[(i/11)%len(words)]))
	}
	var ms []record.Memory
	for lo := 0; lo < len(ts); lo += 100 {
		ms = append(ms, addAll(t, s, ts[lo:lo+100])...)
	}
	// Forgets and edits, among the first memories too (the ones the dense
	// sketches' centre is the mean of) and with searches between them.
	for i := 3; i < len(ms)-1; i += 9 {
		if err := s.Delete(ctx, ms[i].ID); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("note %d rewritten: %s %s", i, words[(i+5)%len(words)], words[(i+9)%len(words)])
		if _, err := s.Update(ctx, ms[i+1].ID, record.Change{Content: &text}); err != nil {
			t.Fatal(err)
		}
		if i%90 == 3 {
			if _, err := s.Search(ctx, SearchRequest{Query: "centre rerank", TopK: 10}); err != nil {
				t.Fatal(err)
			}
		}
	}
	search := func(s *Engine) []string {
		var out []string
		for _, q := range []string{"commit the batch", "speller token", "vector sketch centre", "fusion weight profile", "note 512"} {
			for _, sl := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E10} {
				res, err := s.Search(ctx, SearchRequest{Query: q, Mode: pipeline.ModeEmbedderFirst, Embedder: sl, TopK: 100, NoThresholds: true})
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%s %q:", sl, q)
				for _, h := range res.Hits {
					fmt.Fprintf(&b, " %d=%.6f", h.Doc, h.Score)
				}
				out = append(out, b.String())
			}
		}
		return out
	}
	before := search(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after := search(openStore(t, dir, reg))
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("before reopen: %.300s…\nafter reopen:  %.300s…", before[i], after[i])
		}
	}
}

func TestProducerMismatchRefusedAndFixedByReembed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir, hashRegistry(t, ""))
	var many []string
	for i := range 150 {
		many = append(many, fmt.Sprintf("memory number %d about %s", i, texts[i%len(texts)]))
	}
	addAll(t, s, many)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// E1 now comes from another producer (another tag changes the values).
	reg2 := hashRegistry(t, "v2")
	_, err := Open(dir, Options{Embedders: reg2})
	var pm *ProducerMismatchError
	if !errors.As(err, &pm) {
		t.Fatalf("open with other producers: %v, want *ProducerMismatchError", err)
	}
	if !strings.Contains(err.Error(), "cgraph reembed") || len(pm.Mismatches) != 7 {
		t.Fatalf("mismatch error: %v (%d mismatches)", err, len(pm.Mismatches))
	}
	// Interrupt a Reembed after its first batch, as a crash would.
	s2, err := Open(dir, Options{Embedders: reg2, Reembed: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Search(ctx, SearchRequest{Query: "memory", Mode: pipeline.ModeE1Only}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Add(ctx, record.NewMemory{Content: "x"}); err == nil {
		t.Fatal("Add allowed while slots await re-embedding")
	}
	cctx, cancel := context.WithCancel(ctx)
	rep, err := s2.Reembed(cctx, nil, func(done, total int) { cancel() })
	if err == nil || rep.Memories != reembedBatch {
		t.Fatalf("interrupted reembed: %+v err=%v", rep, err)
	}
	_ = s2.Close()
	if _, err := Open(dir, Options{Embedders: reg2}); !errors.As(err, &pm) {
		t.Fatalf("half-re-embedded store opened without Reembed: %v", err)
	}
	s3, err := Open(dir, Options{Embedders: reg2, Reembed: true})
	if err != nil {
		t.Fatalf("half-re-embedded store does not open with Reembed: %v", err)
	}
	rep, err = s3.Reembed(ctx, nil, nil)
	if err != nil || rep.Memories != len(many)-reembedBatch || len(rep.Slots) != 7 {
		t.Fatalf("second reembed: %+v err=%v, want %d memories in 7 slots", rep, err, len(many)-reembedBatch)
	}
	_ = s3.Close()
	s4 := openStore(t, dir, reg2)
	err = s4.EachFingerprint(ctx, func(m record.Memory, fp *fingerprint.Fingerprint) error {
		if got, want := fp.Get(fingerprint.E1).Producer, reg2.Get(fingerprint.E1).Status().Producer; got != want {
			return fmt.Errorf("memory %s E1 by %s, want %s", m.ID, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s4.Search(ctx, SearchRequest{Query: many[5], Mode: pipeline.ModeE1Only})
	if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Memories[0].Content, "number 5 ") {
		t.Fatalf("E1 search after reembed: %v %+v", err, res.Memories)
	}
	if err := s4.cellar.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestReembedRefusesABrokenModel: when a slot's model is missing or
// corrupt, opening says so (not "run reembed"), and Reembed refuses instead
// of replacing the slot's values by "unavailable"; every value is unchanged.
func TestReembedRefusesABrokenModel(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir, hashRegistry(t, ""))
	addAll(t, s, texts)
	before := fingerprintsByID(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	const why = "model e5-small-v2-q is corrupt: file model.onnx has sha256 aaa, the manifest expects bbb: run `cgraph models pull e5-small-v2-q` to replace it"
	var es []embedders.Embedder
	for _, sl := range fingerprint.Slots() {
		es = append(es, hashRegistry(t, "").Get(sl))
	}
	es[fingerprint.E1.Index()] = embedders.NewUnavailable(fingerprint.E1, why)
	broken, err := embedders.NewRegistry(es...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{Embedders: broken})
	var pm *ProducerMismatchError
	if !errors.As(err, &pm) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "do not re-embed") {
		t.Fatalf("open with E1's model broken: %v; want the model's problem and no reembed advice", err)
	}
	for _, slots := range [][]fingerprint.SlotID{nil, {fingerprint.E1}, {fingerprint.E1, fingerprint.E6}} {
		s2, err := Open(dir, Options{Embedders: broken, Reembed: true})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := s2.Reembed(ctx, slots, nil)
		if err == nil || !strings.Contains(err.Error(), why) || rep.Memories != 0 {
			t.Fatalf("Reembed(%v) with E1's model broken: %+v, %v; want a refusal naming the model", slots, rep, err)
		}
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s3 := openStore(t, dir, hashRegistry(t, ""))
	if after := fingerprintsByID(t, s3); !maps.EqualFunc(before, after, bytes.Equal) {
		t.Fatal("a refused Reembed changed stored fingerprints")
	}
}

// fingerprintsByID encodes every stored fingerprint, by memory id.
func fingerprintsByID(t *testing.T, s *Engine) map[record.ID][]byte {
	t.Helper()
	out := map[record.ID][]byte{}
	err := s.EachFingerprint(context.Background(), func(m record.Memory, fp *fingerprint.Fingerprint) error {
		b, err := fingerprint.Encode(fp)
		out[m.ID] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestModelFreeProducerChangeIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, modelFreeRegistry(t))
	addAll(t, s, texts[:2])
	_ = s.Close()
	// E3 reads hours in another time zone now: its producer differs.
	reg, err := modelfree.Registry(modelfree.Config{Location: time.FixedZone("X", 5*3600)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{Embedders: reg})
	var pm *ProducerMismatchError
	if !errors.As(err, &pm) || len(pm.Mismatches) != 1 || pm.Mismatches[0].Slot != fingerprint.E3 {
		t.Fatalf("got %v", err)
	}
}

func TestReadOnlySeesNewAndDeletedMemories(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	reg := hashRegistry(t, "")
	w := openStore(t, dir, reg)
	ms := addAll(t, w, texts[:3])
	r, err := Open(dir, Options{ReadOnly: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	find := func(q string) []record.ID {
		res, err := r.Search(ctx, SearchRequest{Query: q, Mode: pipeline.ModeEmbedderFirst, Embedder: fingerprint.E6})
		if err != nil {
			t.Fatal(err)
		}
		var ids []record.ID
		for _, m := range res.Memories {
			ids = append(ids, m.ID)
		}
		return ids
	}
	if got := find("authentication"); !slices.Contains(got, ms[1].ID) {
		t.Fatalf("reader misses an existing memory: %v", got)
	}
	added, err := w.Add(ctx, record.NewMemory{Content: "Error: kerberos ticket expired during authentication"})
	if err != nil {
		t.Fatal(err)
	}
	if got := find("kerberos"); !slices.Contains(got, added.ID) {
		t.Fatalf("reader misses a new memory: %v", got)
	}
	if err := w.Delete(ctx, ms[1].ID); err != nil {
		t.Fatal(err)
	}
	if got := find("authentication"); slices.Contains(got, ms[1].ID) || !slices.Contains(got, added.ID) {
		t.Fatalf("reader after delete: %v", got)
	}
	// Re-embedding in the writer is seen too (generation bump).
	if _, err := w.Reembed(ctx, []fingerprint.SlotID{fingerprint.E6}, nil); err != nil {
		t.Fatal(err)
	}
	if got := find("kerberos"); !slices.Contains(got, added.ID) {
		t.Fatalf("reader after reembed: %v", got)
	}
	if _, err := r.Add(ctx, record.NewMemory{Content: "x"}); !errors.Is(err, record.ErrReadOnly) {
		t.Fatalf("add on reader: %v", err)
	}
}

// badDims is an E7 embedder whose second document gets a vector of other
// dims than the first: the hook must refuse it before anything is written.
type badDims struct{ hashEmbedder }

func (b badDims) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out, _ := b.hashEmbedder.EmbedDocuments(ctx, docs)
	for i := range out {
		if strings.HasPrefix(docs[i].Text, "BAD") {
			out[i].Value = fingerprint.Dense(make([]float32, b.dim+3))
			out[i].Value.(fingerprint.Dense)[0] = 1
		}
	}
	return out, nil
}

func TestFailedWriteWritesNothing(t *testing.T) {
	ctx := context.Background()
	reg, err := modelfree.Registry(modelfree.Config{}, badDims{hashEmbedder{slot: fingerprint.E7, dim: 16}})
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, t.TempDir(), reg)
	addAll(t, s, texts[:2])
	before, beforeStats := familyKeys(t, s)
	cases := map[string]func() error{
		"hook refuses other dims": func() error {
			_, err := s.AddBatch(ctx, []record.NewMemory{{Content: "fine text"}, {Content: "BAD vector"}})
			return err
		},
		"invalid memory": func() error {
			_, err := s.AddBatch(ctx, []record.NewMemory{{Content: "fine"}, {Content: ""}})
			return err
		},
	}
	for name, f := range cases {
		err := f()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		after, afterStats := familyKeys(t, s)
		if fmt.Sprint(before, beforeStats) != fmt.Sprint(after, afterStats) {
			t.Errorf("%s (%v) changed the families: %v %v → %v %v", name, err, before, beforeStats, after, afterStats)
		}
		st, _ := s.cellar.Stats(ctx)
		if st.Memories != 2 {
			t.Errorf("%s: %d memories stored", name, st.Memories)
		}
	}
	if err := s.cellar.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSearchOnModelFreeRegistry(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), modelFreeRegistry(t))
	ms := addAll(t, s, texts)
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	// E6 alone finds the keyword.
	res, err := s.Search(ctx, SearchRequest{Query: "librocksdb CGO_LDFLAGS", Mode: pipeline.ModeEmbedderFirst, Embedder: fingerprint.E6, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) == 0 || res.Memories[0].ID != ms[5].ID {
		t.Fatalf("E6: %+v", res.Memories)
	}
	// E9 candidates catch a typo.
	res, err = s.Search(ctx, SearchRequest{Query: "authetication", Mode: pipeline.ModeEmbedderFirst, Embedder: fingerprint.E9, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) == 0 || res.Memories[0].ID != ms[1].ID {
		t.Fatalf("E9: %+v", res.Hits)
	}
	// The pipeline recalls from E6 when E13 and E1 have no model, and says so.
	p, _ := profiles.Lookup("pipeline_full")
	res, err = s.Search(ctx, SearchRequest{Query: "rocksdb build", Profile: p, Mode: pipeline.ModePipeline, Now: now, NoThresholds: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || !strings.Contains(res.Trace[0].Note, "E13 k=10000 0 (unavailable), E6 k=10000 2 (ok)") {
		t.Fatalf("pipeline: %d hits, trace %+v", len(res.Hits), res.Trace)
	}
	for _, sr := range res.Spaces {
		if sr.Slot == fingerprint.E1 && sr.Status != pipeline.StatusUnavailable {
			t.Errorf("E1 without a model reported %s", sr.Status)
		}
	}
	// e1_only without a model: no hits, E1 reported unavailable.
	res, err = s.Search(ctx, SearchRequest{Query: "rocksdb", Mode: pipeline.ModeE1Only, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || res.Spaces[0].Status != pipeline.StatusUnavailable || !strings.Contains(res.Spaces[0].Note, modelfree.NoModelReason) {
		t.Fatalf("e1_only: %+v", res.Spaces)
	}
	// Results are resolved without recording accesses.
	m, _, err := s.cellar.Peek(ctx, []record.ID{ms[5].ID})
	if err != nil || m[0].AccessCount != 0 {
		t.Fatalf("search recorded an access: %+v %v", m[0], err)
	}
	if res.Total < res.Encode {
		t.Errorf("total %v < encode %v", res.Total, res.Encode)
	}
}

// TestAddBatchStoresWhatAddsDo: one AddBatch stores in every derived
// family (fingerprints, per-slot values, postings and their statistics)
// byte for byte what the same memories added one at a time store, on top
// of memories already there: the batch's sorted puts and once-a-batch
// statistics change only the order of the writes. (That the statistics
// are right at all is TestAddWritesEveryFamilyAndDeleteLeavesNothing's.)
func TestAddBatchStoresWhatAddsDo(t *testing.T) {
	ctx := context.Background()
	ns := newMemories(texts)
	for i := range ns {
		ns[i].ID = record.NewID() // the same ids in both stores
	}
	first, rest := ns[:2], ns[2:]
	dump := func(s *Engine) map[string]string {
		out := map[string]string{}
		for _, fam := range derivedFamilies {
			err := s.cellar.Scan(ctx, fam, nil, func(k, v []byte) error {
				out[fam.String()+"/"+string(k)] = string(v)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	batch := openStore(t, t.TempDir(), hashRegistry(t, ""))
	addAllNew(t, batch, first)
	if _, err := batch.AddBatch(ctx, rest); err != nil {
		t.Fatal(err)
	}
	single := openStore(t, t.TempDir(), hashRegistry(t, ""))
	addAllNew(t, single, first)
	for _, n := range rest {
		if _, err := single.Add(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	got, want := dump(batch), dump(single)
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("%d keys from the batch, %d one by one", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q differs between the batch and the adds", k)
		}
	}
}

func addAllNew(t *testing.T, s *Engine, ns []record.NewMemory) {
	t.Helper()
	if _, err := s.AddBatch(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
}

// TestWriteStats: every write adds its batch, its memories (duplicates
// included) and its steps, which sum to no more than its total.
func TestWriteStats(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), hashRegistry(t, ""))
	if st := s.WriteStats(); st != (WriteStats{}) {
		t.Fatalf("a fresh engine has write stats %+v", st)
	}
	ns := newMemories(texts)
	addAllNew(t, s, ns)
	if _, err := s.Add(ctx, ns[0]); err != nil { // a duplicate: still a write
		t.Fatal(err)
	}
	st := s.WriteStats()
	if st.Batches != 2 || st.Memories != len(ns)+1 {
		t.Fatalf("after a batch of %d and one add: %d batches, %d memories", len(ns), st.Batches, st.Memories)
	}
	if st.Total <= 0 || st.Stage <= 0 || st.Commit <= 0 || st.Write <= 0 || st.Index < 0 {
		t.Fatalf("steps not timed: %+v", st)
	}
	if sum := st.Stage + st.Commit + st.Write + st.Index; sum > st.Total {
		t.Fatalf("steps sum to %v, more than the total %v", sum, st.Total)
	}
}

// TestFailedCommitLeavesNoIndex: the indexes take a batch while it is
// written, so a batch whose commit fails must leave them as they were —
// the next batch gets its doc numbers — and a store that stores it again
// answers every search as one that never failed.
func TestFailedCommitLeavesNoIndex(t *testing.T) {
	ctx := context.Background()
	ns := newMemories(texts)
	for i := range ns {
		ns[i].ID = record.NewID()
	}
	first, rest := ns[:2], ns[2:]
	failed := openStore(t, t.TempDir(), hashRegistry(t, ""))
	addAllNew(t, failed, first)
	failed.failCommit = errors.New("disk full")
	if _, err := failed.AddBatch(ctx, rest); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("AddBatch with a failing commit: %v", err)
	}
	if n := failed.ix.live.GetCardinality(); n != uint64(len(first)) {
		t.Fatalf("after the failed batch the indexes hold %d memories, want the %d committed", n, len(first))
	}
	if st := failed.WriteStats(); st.Batches != 1 {
		t.Fatalf("a failed write counted in the stats: %d batches", st.Batches)
	}
	addAllNew(t, failed, rest)
	clean := openStore(t, t.TempDir(), hashRegistry(t, ""))
	addAllNew(t, clean, first)
	addAllNew(t, clean, rest)
	for _, q := range texts {
		for _, mode := range []pipeline.Mode{pipeline.ModeE1Only, pipeline.ModeMultiSpace} {
			a, err := failed.Search(ctx, SearchRequest{Query: q, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			b, err := clean.Search(ctx, SearchRequest{Query: q, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Memories) != len(b.Memories) {
				t.Fatalf("%s %q: %d results after a failed batch, %d without one", mode, q, len(a.Memories), len(b.Memories))
			}
			for i := range a.Memories {
				if a.Memories[i].ID != b.Memories[i].ID || a.Hits[i].Score != b.Hits[i].Score {
					t.Fatalf("%s %q: result %d is %s (%v) after a failed batch, %s (%v) without one", mode, q, i, a.Memories[i].ID, a.Hits[i].Score, b.Memories[i].ID, b.Hits[i].Score)
				}
			}
		}
	}
}
