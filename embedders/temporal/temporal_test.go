package temporal

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

var t0 = time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC) // a Monday

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func TestRecency(t *testing.T) {
	hl := 24 * time.Hour
	cases := []struct {
		age  time.Duration
		want float64
	}{
		{0, 1}, {-time.Hour, 1}, {hl, 0.5}, {2 * hl, 0.25}, {hl / 2, math.Sqrt(0.5)}, {30 * hl, math.Pow(0.5, 30)},
	}
	for _, c := range cases {
		if got := Recency(t0.Add(-c.age), t0, hl); !near(got, c.want, 1e-12) {
			t.Errorf("age %v: recency %v, want %v", c.age, got, c.want)
		}
	}
	if _, err := NewRecency(-time.Second); err == nil {
		t.Error("negative half-life accepted")
	}
	if r, _ := NewRecency(0); r.HalfLife != DefaultHalfLife {
		t.Errorf("default half-life %v", r.HalfLife)
	}
}

func TestRecencyEmbedder(t *testing.T) {
	r, _ := NewRecency(time.Hour)
	ctx := context.Background()
	es, err := r.EmbedDocuments(ctx, []embedders.Input{{Created: t0.Add(-2 * time.Hour)}, {}})
	if err != nil {
		t.Fatal(err)
	}
	if es[1].Status != fingerprint.StatusUnavailable || !strings.Contains(es[1].Note, "creation time") {
		t.Errorf("document without time: %+v", es[1])
	}
	q, err := r.EmbedQuery(ctx, embedders.Query{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Score(es[0].Value.(fingerprint.Timestamp), q.Value.(fingerprint.Timestamp))
	if !near(got, 0.25, 1e-9) {
		t.Errorf("two half-lives old: %v, want 0.25", got)
	}
	if _, err := r.EmbedQuery(ctx, embedders.Query{}); err == nil || !strings.Contains(err.Error(), "Now") {
		t.Errorf("query without time: %v", err)
	}
}

func TestPeriodicFeatures(t *testing.T) {
	f := PeriodicFeatures(t0, time.UTC)
	if len(f) != PeriodicDims {
		t.Fatalf("len %d", len(f))
	}
	// Hand value: first harmonic of the day cycle at 10.5 h.
	want := math.Sin(2*math.Pi*10.5/24) / math.Sqrt(6)
	if !near(float64(f[0]), want, 1e-6) {
		t.Errorf("f[0] = %v, want %v", f[0], want)
	}
	if s := Similarity(f, f); !near(s, 1, 1e-6) {
		t.Errorf("not unit length: %v", s)
	}
	cases := []struct {
		name string
		t    time.Time
		min  float64
		max  float64
	}{
		{"same time next week", t0.Add(7 * 24 * time.Hour), 0.9999, 1.0001},
		{"one hour later", t0.Add(time.Hour), 0.7, 0.99},
		{"same hour next day", t0.Add(24 * time.Hour), 0.4, 0.8},
		{"12 hours later", t0.Add(12 * time.Hour), -1, 0.2},
	}
	prev := 2.0
	for _, c := range cases {
		s := Similarity(f, PeriodicFeatures(c.t, time.UTC))
		t.Logf("%-20s similarity %.4f", c.name, s)
		if s < c.min || s > c.max || s > prev {
			t.Errorf("%s: similarity %v, want in [%v, %v] and not above the previous %v", c.name, s, c.min, c.max, prev)
		}
		prev = s
	}
	// Location matters: 10:30 UTC is 11:30 in Berlin (winter).
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err == nil {
		if s := Similarity(PeriodicFeatures(t0, berlin), PeriodicFeatures(t0.Add(time.Hour), time.UTC)); !near(s, 1, 1e-6) {
			t.Errorf("location not applied: %v", s)
		}
	}
}

func TestSequenceFeatures(t *testing.T) {
	a := SequenceFeatures(100)
	if s := Similarity(a, a); !near(s, 1, 1e-6) {
		t.Fatalf("not unit length: %v", s)
	}
	prev := 2.0
	for d := uint64(0); d <= 25; d++ {
		s := Similarity(a, SequenceFeatures(100+d))
		if s >= prev {
			t.Errorf("distance %d: similarity %v not below distance %d's %v", d, s, d-1, prev)
		}
		prev = s
	}
	// Only the distance matters.
	if x, y := Similarity(SequenceFeatures(3), SequenceFeatures(5)), Similarity(SequenceFeatures(1000), SequenceFeatures(1002)); !near(x, y, 1e-5) {
		t.Errorf("similarity depends on position, not only distance: %v vs %v", x, y)
	}
	far := Similarity(a, SequenceFeatures(5000))
	near1 := Similarity(a, SequenceFeatures(101))
	t.Logf("E4 similarity: distance 1 %.4f, 10 %.4f, 100 %.4f, 4900 %.4f", near1,
		Similarity(a, SequenceFeatures(110)), Similarity(a, SequenceFeatures(200)), far)
	if far >= near1 {
		t.Errorf("far position %v not below adjacent %v", far, near1)
	}
}

func TestSequenceEmbedder(t *testing.T) {
	var e SequenceEmbedder
	ctx := context.Background()
	es, err := e.EmbedDocuments(ctx, []embedders.Input{{Session: "s1", Seq: 4}, {Seq: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if v := es[0].Value.(fingerprint.Sequence); v.Position != 4 || len(v.Features) != SequenceDims {
		t.Errorf("document value %+v", v)
	}
	if es[1].Status != fingerprint.StatusUnavailable {
		t.Errorf("no session: %+v", es[1])
	}
	if _, err := e.EmbedQuery(ctx, embedders.Query{Seq: 1}); err == nil {
		t.Error("query without session accepted")
	}
}

func BenchmarkPeriodicEmbed(b *testing.B) {
	p := NewPeriodic(nil)
	docs := make([]embedders.Input, 64)
	for i := range docs {
		docs[i].Created = t0.Add(time.Duration(i) * time.Minute)
	}
	for b.Loop() {
		if _, err := p.EmbedDocuments(context.Background(), docs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSequenceEmbed(b *testing.B) {
	docs := make([]embedders.Input, 64)
	for i := range docs {
		docs[i] = embedders.Input{Session: "s", Seq: uint64(i)}
	}
	for b.Loop() {
		if _, err := (SequenceEmbedder{}).EmbedDocuments(context.Background(), docs); err != nil {
			b.Fatal(err)
		}
	}
}

// TestScoresInUnitRange: E2, E3 and E4 badge scores share the [0, 1] scale.
func TestScoresInUnitRange(t *testing.T) {
	p := NewPeriodic(nil)
	q := fingerprint.Periodic{Features: PeriodicFeatures(t0, time.UTC)}
	same := p.Score(fingerprint.Periodic{Features: PeriodicFeatures(t0.Add(7*24*time.Hour), time.UTC)}, q)
	opposite := p.Score(fingerprint.Periodic{Features: PeriodicFeatures(t0.Add(84*time.Hour), time.UTC)}, q)
	if !near(same, 1, 1e-6) || opposite < 0 || opposite >= 0.6 {
		t.Errorf("E3 scores: same slot of the week %v, 3.5 days away (opposite hour) %v", same, opposite)
	}
	var s SequenceEmbedder
	anchor := fingerprint.Sequence{Features: SequenceFeatures(50)}
	prev := 1.1
	for _, d := range []uint64{0, 1, 10, 100} {
		sc := s.Score(fingerprint.Sequence{Features: SequenceFeatures(50 + d)}, anchor)
		t.Logf("E4 score at distance %d: %.4f", d, sc)
		if sc < 0 || sc > 1 || sc >= prev {
			t.Errorf("E4 score at distance %d: %v (previous %v)", d, sc, prev)
		}
		prev = sc
	}
}
