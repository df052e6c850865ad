package topics

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
)

// TestAgreementRule checks ARCH-09 on hand-made memberships: two memories
// are in one topic when the topic weights of the slots where they share a
// cluster sum to at least 2.5.
func TestAgreementRule(t *testing.T) {
	N := Noise
	labels := []SlotLabels{
		{fingerprint.E1, []int{0, 0, 1, 1, 2}},  // semantic 1.0
		{fingerprint.E7, []int{0, 0, 1, N, 2}},  // semantic 1.0
		{fingerprint.E8, []int{0, 0, 1, 1, N}},  // relational 0.5
		{fingerprint.E9, []int{3, N, 0, 0, N}},  // structural 0.5
		{fingerprint.E11, []int{N, N, 0, 0, 1}}, // relational 0.5
		{fingerprint.E2, []int{0, 0, 0, 0, 0}},  // temporal 0: never counts
	}
	pairs := []struct {
		a, b int
		want float64
	}{
		{0, 1, 2.5}, // E1 + E7 + E8: exactly the threshold
		{2, 3, 2.5}, // E1 + E8 + E9 + E11 (E7: 3 is noise)
		{0, 2, 0},   // nothing shared (E2 is shared but weighs 0)
		{1, 3, 0},
		{2, 4, 0},
	}
	for _, p := range pairs {
		if got := Agreement(labels, p.a, p.b); got != p.want {
			t.Errorf("Agreement(%d, %d) = %v, want %v", p.a, p.b, got, p.want)
		}
	}
	topics, lab := Group(5, labels, Threshold, 2)
	if want := []int{0, 0, 1, 1, Noise}; !samePartition(lab, want) {
		t.Fatalf("labels %v, want %v", lab, want)
	}
	if len(topics) != 2 || topics[0].MinAgreement != 2.5 {
		t.Fatalf("topics %+v", topics)
	}
	// A chain: 0~1 and 1~2 agree at 3.0, 0 and 2 share nothing. Complete
	// linkage keeps one pair (the lowest-numbered of the tie), never all
	// three.
	chain := []SlotLabels{
		{fingerprint.E1, []int{0, 0, 1}},
		{fingerprint.E5, []int{0, 0, 1}},
		{fingerprint.E6, []int{0, 0, 1}},
		{fingerprint.E7, []int{N, 1, 1}},
		{fingerprint.E10, []int{N, 2, 2}},
		{fingerprint.E12, []int{N, 3, 3}},
	}
	if Agreement(chain, 0, 1) != 3 || Agreement(chain, 1, 2) != 3 || Agreement(chain, 0, 2) != 0 {
		t.Fatal("chain agreements")
	}
	if tp, lab := Group(3, chain, Threshold, 2); len(tp) != 1 || !samePartition(lab, []int{0, 0, Noise}) || tp[0].MinAgreement != 3 {
		t.Fatalf("chain grouped as %v (%+v)", lab, tp)
	}
	// Lower E8's share for pair (0, 1) and the topic goes: 2.0 < 2.5.
	labels[2].Labels[1] = N
	if _, lab := Group(5, labels, Threshold, 2); lab[0] != Noise || lab[1] != Noise {
		t.Fatalf("pair at agreement 2.0 grouped: %v", lab)
	}
	if got := SemanticSlots(); !reflect.DeepEqual(got, []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E6, fingerprint.E7, fingerprint.E10, fingerprint.E12, fingerprint.E13}) {
		t.Fatalf("semantic slots %v", got)
	}
	var max float64
	for _, s := range fingerprint.Slots() {
		max += s.TopicWeight()
	}
	if max != MaxAgreement {
		t.Fatalf("sum of topic weights %v, MaxAgreement %v", max, MaxAgreement)
	}
}

func present(v fingerprint.Value) fingerprint.Entry {
	return fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: fingerprint.Producer{Model: "test"}, Value: v}
}

func set(t *testing.T, fp *fingerprint.Fingerprint, s fingerprint.SlotID, v fingerprint.Value) {
	t.Helper()
	if err := fp.Set(s, present(v)); err != nil {
		t.Fatal(err)
	}
}

// blobFingerprints makes groups×per memories whose dense slots are drawn
// around one centre per group and slot, and whose E6 terms share a
// per-group vocabulary.
func blobFingerprints(t *testing.T, groups, per int, slots []fingerprint.SlotID, spread float64) ([]*fingerprint.Fingerprint, []int) {
	rng := rand.New(rand.NewPCG(9, 9))
	const dim = 24
	centres := map[fingerprint.SlotID][][]float32{}
	for _, s := range slots {
		for range groups {
			c := make([]float32, dim)
			for d := range c {
				c[d] = float32(rng.NormFloat64())
			}
			centres[s] = append(centres[s], c)
		}
	}
	near := func(c []float32) fingerprint.Dense {
		v := make(fingerprint.Dense, dim)
		for d := range v {
			v[d] = c[d] + float32(rng.NormFloat64()*spread)
		}
		return v
	}
	var fps []*fingerprint.Fingerprint
	var truth []int
	for g := range groups {
		for range per {
			fp := &fingerprint.Fingerprint{}
			for _, s := range slots {
				switch s.Kind() {
				case fingerprint.KindDense:
					set(t, fp, s, near(centres[s][g]))
				case fingerprint.KindPair:
					set(t, fp, s, fingerprint.Pair{A: near(centres[s][g]), B: near(centres[s][g])})
				case fingerprint.KindTermFreqs:
					terms := []string{}
					for w := range 4 {
						if rng.IntN(5) > 0 {
							terms = append(terms, string(rune('a'+g))+string(rune('a'+w)))
						}
					}
					terms = append(terms, "shared")
					slices.Sort(terms)
					counts := make([]uint32, len(terms))
					for i := range counts {
						counts[i] = 1
					}
					set(t, fp, s, fingerprint.TermFreqs{Terms: terms, Counts: counts})
				}
			}
			fps = append(fps, fp)
			truth = append(truth, g)
		}
	}
	return fps, truth
}

func TestDetectGeneratedTopics(t *testing.T) {
	slots := []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E6, fingerprint.E7, fingerprint.E8}
	fps, truth := blobFingerprints(t, 4, 8, slots, 0.3)
	det, err := Detect(fps, Config{})
	if err != nil {
		t.Fatal(err)
	}
	ari := AdjustedRandIndex(det.Labels, truth)
	t.Logf("4 groups × 8 memories, slots %v: %d topics, ARI %.4f, reachable agreement %.1f", slots, len(det.Topics), ari, det.Reachable)
	if ari < 0.99 {
		t.Fatalf("ARI %.4f; labels %v", ari, det.Labels)
	}
	if det.Reachable != 4.5 {
		t.Fatalf("reachable %v, want 4.5 (E1 E5 E6 E7 + E8/2)", det.Reachable)
	}
	for _, tp := range det.Topics {
		if tp.MinAgreement < Threshold || len(tp.Terms) == 0 {
			t.Errorf("topic %+v", tp)
		}
	}
	for _, sc := range det.Slots {
		if sc.Slot.Category() == fingerprint.Temporal && sc.Skipped == "" {
			t.Errorf("temporal slot %s clustered", sc.Slot)
		}
	}
}

// Perfect clusters in E1 and E8 reach 1.5 < 2.5: no topic, by the rule and
// not for want of clusters.
func TestDetectNeedsEnoughAgreement(t *testing.T) {
	fps, _ := blobFingerprints(t, 3, 6, []fingerprint.SlotID{fingerprint.E1, fingerprint.E8}, 0.2)
	det, err := Detect(fps, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(det.Topics) != 0 || det.Reachable != 1.5 {
		t.Fatalf("topics %d (reachable %v)", len(det.Topics), det.Reachable)
	}
	for _, sc := range det.Slots {
		if (sc.Slot == fingerprint.E1 || sc.Slot == fingerprint.E8) && sc.Clusters != 3 {
			t.Errorf("slot %s: %d clusters, want 3", sc.Slot, sc.Clusters)
		}
	}
}

func unitVec(xs ...float32) fingerprint.Dense { return fingerprint.Dense(xs) }

// angle returns a 2-d unit vector at cosine c from (1, 0).
func angle(c float64) fingerprint.Dense {
	return unitVec(float32(c), float32(math.Sqrt(1-c*c)))
}

func TestDivergenceSeverities(t *testing.T) {
	ref := &fingerprint.Fingerprint{}
	set(t, ref, fingerprint.E1, angle(1))
	set(t, ref, fingerprint.E8, fingerprint.Pair{A: angle(1), B: angle(1)})
	cases := []struct {
		cos  float64
		want string
	}{
		{0.95, SeverityNone},
		{0.25, SeverityNone},
		{0.20, SeverityNone}, // not below 0.20
		{0.15, SeverityMedium},
		{0.10, SeverityMedium}, // not below 0.10
		{0.05, SeverityHigh},
		{-0.5, SeverityHigh},
	}
	fps := []*fingerprint.Fingerprint{ref}
	var targets []int
	for _, c := range cases {
		fp := &fingerprint.Fingerprint{}
		set(t, fp, fingerprint.E1, angle(c.cos))
		// E8 is relational: even a total disagreement there raises nothing.
		set(t, fp, fingerprint.E8, fingerprint.Pair{A: angle(-1), B: angle(-1)})
		targets = append(targets, len(fps))
		fps = append(fps, fp)
	}
	r := Divergence(fps, targets, []int{0})
	if len(r.Checks) != len(cases) {
		t.Fatalf("%d checks, want %d (E1 only): %+v", len(r.Checks), len(cases), r.Checks)
	}
	for i, c := range r.Checks {
		if c.Slot != fingerprint.E1 || c.Nearest != 0 {
			t.Fatalf("check %+v", c)
		}
		if math.Abs(c.Similarity-cases[i].cos) > 1e-6 || c.Severity != cases[i].want {
			t.Errorf("cos %.2f: similarity %.4f severity %q, want %q", cases[i].cos, c.Similarity, c.Severity, cases[i].want)
		}
	}
	// E1 measured; the other six semantic slots have no values: unmeasured.
	if len(r.Unmeasured) != 6 || slices.Contains(r.Unmeasured, fingerprint.E1) || slices.Contains(r.Unmeasured, fingerprint.E8) {
		t.Fatalf("unmeasured %v", r.Unmeasured)
	}
	al := r.Alerts()
	if len(al) != 4 || al[0].Severity != SeverityHigh || al[0].Similarity != r.Checks[6].Similarity {
		t.Fatalf("alerts %+v", al)
	}
}

func TestCompareSnapshots(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := Snapshot{Time: t0, Universe: []string{"a", "b", "c", "d", "e", "x"},
		Topics: [][]string{{"a", "b", "c"}, {"d", "e"}, {"x"}}}
	tests := []struct {
		name     string
		cur      Snapshot
		overall  float64
		statuses []string
		vanished []int
	}{
		{
			// f, g, h are new memories: not counted. x was deleted.
			name: "same topics plus new memories",
			cur: Snapshot{Universe: []string{"a", "b", "c", "d", "e", "f", "g", "h"},
				Topics: [][]string{{"a", "b", "c"}, {"d", "e", "f"}, {"g", "h"}}},
			overall: 1, statuses: []string{StatusStable, StatusStable, StatusNew}, vanished: []int{2},
		},
		{
			name: "a member moved",
			cur: Snapshot{Universe: []string{"a", "b", "c", "d", "e", "x"},
				Topics: [][]string{{"a", "b"}, {"c", "d", "e"}}},
			overall: 2.0 / 3, statuses: []string{StatusChanged, StatusChanged}, vanished: []int{2},
		},
		{
			name:    "topics dissolved",
			cur:     Snapshot{Universe: prev.Universe},
			overall: 0, vanished: []int{0, 1, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Compare(prev, tt.cur)
			if math.Abs(st.Overall-tt.overall) > 1e-12 {
				t.Errorf("overall %v, want %v", st.Overall, tt.overall)
			}
			var statuses []string
			for _, ts := range st.Topics {
				statuses = append(statuses, ts.Status)
			}
			if !reflect.DeepEqual(statuses, tt.statuses) || !reflect.DeepEqual(st.Vanished, tt.vanished) {
				t.Errorf("statuses %v vanished %v, want %v %v", statuses, st.Vanished, tt.statuses, tt.vanished)
			}
		})
	}
	if st := Compare(Snapshot{}, Snapshot{}); st.Overall != 1 {
		t.Errorf("two empty snapshots: overall %v, want 1", st.Overall)
	}
}

// BenchmarkDetect detects topics over 400 memories with five model slots
// (E1, E5, E6, E7, E8; 24-d vectors).
func BenchmarkDetect(b *testing.B) {
	t := &testing.T{}
	fps, _ := blobFingerprints(t, 20, 20, []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E6, fingerprint.E7, fingerprint.E8}, 0.3)
	for b.Loop() {
		if _, err := Detect(fps, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClusterSlot clusters 1000 memories by their 384-d E1 vectors
// (the size of e5-small-v2's): the cost of one slot of Detect.
func BenchmarkClusterSlot(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	fps := make([]*fingerprint.Fingerprint, 1000)
	for i := range fps {
		v := make(fingerprint.Dense, 384)
		for d := range v {
			v[d] = float32(rng.NormFloat64() + float64(i%10)*0.3*float64(d%7))
		}
		fps[i] = &fingerprint.Fingerprint{}
		if err := fps[i].Set(fingerprint.E1, present(v)); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := ClusterSlot(fingerprint.E1, fps, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}
