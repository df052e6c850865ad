package modelfree

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

var created = time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC)

func TestRegistryFingerprints(t *testing.T) {
	r, err := Registry(Config{})
	if err != nil {
		t.Fatal(err)
	}
	docs := []embedders.Input{
		{Text: "grocksdb v1.7.15 crashes with SIGSEGV in db.Put(); fixed by closing handles", Created: created, Session: "s1", Seq: 3},
		{Text: "func getUserByID(id string) (*User, error)"},
	}
	fps, err := r.EmbedDocuments(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[fingerprint.SlotID]fingerprint.Status{
		fingerprint.E1: fingerprint.StatusUnavailable, fingerprint.E2: fingerprint.StatusPresent,
		fingerprint.E3: fingerprint.StatusPresent, fingerprint.E4: fingerprint.StatusPresent,
		fingerprint.E5: fingerprint.StatusUnavailable, fingerprint.E6: fingerprint.StatusPresent,
		fingerprint.E7: fingerprint.StatusUnavailable, fingerprint.E8: fingerprint.StatusUnavailable,
		fingerprint.E9: fingerprint.StatusPresent, fingerprint.E10: fingerprint.StatusUnavailable,
		fingerprint.E11: fingerprint.StatusFallback, fingerprint.E12: fingerprint.StatusUnavailable,
		fingerprint.E13: fingerprint.StatusUnavailable,
	}
	for s, st := range want {
		if got := fps[0].Get(s); got.Status != st {
			t.Errorf("%s: status %s (%q), want %s", s, got.Status, got.Note, st)
		}
	}
	// The second memory has no time and no session: E2, E3, E4 say so.
	for _, s := range []fingerprint.SlotID{fingerprint.E2, fingerprint.E3, fingerprint.E4} {
		if e := fps[1].Get(s); e.Status != fingerprint.StatusUnavailable || e.Note == "" {
			t.Errorf("%s without metadata: %+v", s, e)
		}
	}
	if n := fps[1].Get(fingerprint.E1).Note; !strings.Contains(n, "needs a model") {
		t.Errorf("E1 reason %q", n)
	}
	// What the embedders make, the codec keeps.
	for i := range fps {
		b, err := fingerprint.Encode(&fps[i])
		if err != nil {
			t.Fatal(err)
		}
		back, err := fingerprint.Decode(b)
		if err != nil || !reflect.DeepEqual(*back, fps[i]) {
			t.Fatalf("round trip of a real fingerprint: %v", err)
		}
		t.Logf("memory %d: encoded fingerprint %d bytes", i, len(b))
	}
	for i, st := range r.Statuses() {
		if st.State == fingerprint.StatusPresent && st.Producer.Model == "" {
			t.Errorf("slot %d ready without a producer", i+1)
		}
	}
}

func TestRegistryExtraOverridesUnavailable(t *testing.T) {
	extra := embedders.NewUnavailable(fingerprint.E13, "no SPLADE model is obtainable here")
	r, err := Registry(Config{}, extra)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Get(fingerprint.E13).Status().Reason; got != "no SPLADE model is obtainable here" {
		t.Errorf("E13 reason %q", got)
	}
	if _, err := Registry(Config{}, embedders.NewUnavailable(fingerprint.E6, "x")); err == nil {
		t.Error("a second E6 embedder was accepted")
	}
	if _, err := Registry(Config{HalfLife: -time.Hour}); err == nil {
		t.Error("negative half-life accepted")
	}
}

// memories returns ~100- and ~400-token slices of a real Go source file.
func memories(tb testing.TB) map[string]string {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		tb.Skipf("Go source not found: %v", err)
	}
	words := strings.Fields(string(src))
	return map[string]string{
		"100tokens": strings.Join(words[2000:2100], " "),
		"400tokens": strings.Join(words[2000:2400], " "),
	}
}

// BenchmarkModelFreeFingerprint measures all model-free slots of one memory
// (slots in parallel), the share of ingest this package adds.
func BenchmarkModelFreeFingerprint(b *testing.B) {
	r, err := Registry(Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"100tokens", "400tokens"} {
		text := memories(b)[name]
		b.Run(name, func(b *testing.B) {
			docs := []embedders.Input{{Text: text, Created: created, Session: "s", Seq: 1}}
			for b.Loop() {
				if _, err := r.EmbedDocuments(context.Background(), docs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSlot measures each model-free embedder alone on the same memories.
func BenchmarkSlot(b *testing.B) {
	es, err := Embedders(Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"100tokens", "400tokens"} {
		text := memories(b)[name]
		for _, e := range es {
			b.Run(e.Slot().String()+"/"+name, func(b *testing.B) {
				docs := []embedders.Input{{Text: text, Created: created, Session: "s", Seq: 1}}
				for b.Loop() {
					if _, err := e.EmbedDocuments(context.Background(), docs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestProducerIDs: every model-free slot names its producer "cgraph/…", the
// mark by which a store's refusal tells a changed algorithm (re-embed, no
// model runs) from a changed model (engine.ProducerMismatchError).
func TestProducerIDs(t *testing.T) {
	es, err := Embedders(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		t.Fatal("no model-free embedders")
	}
	for _, e := range es {
		if p := e.Status().Producer; !strings.HasPrefix(p.Model, "cgraph/") {
			t.Errorf("%s: producer %q does not start with cgraph/", e.Slot(), p.Model)
		}
	}
}
