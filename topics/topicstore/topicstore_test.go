package topicstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/topics"
)

// samples reads the 32 bundled sample memories of the CLI.
func samples(t *testing.T) []record.NewMemory {
	t.Helper()
	f, err := os.Open("../../cli/samples/samples.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.NewMemory
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Content    string    `json:"content"`
			Type       string    `json:"type"`
			Tags       []string  `json:"tags"`
			Source     string    `json:"source"`
			Session    string    `json:"session"`
			CreatedAt  time.Time `json:"created_at"`
			Importance float64   `json:"importance"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, record.NewMemory{Content: l.Content, Type: record.Type(l.Type), Tags: l.Tags, Source: l.Source,
			Session: l.Session, CreatedAt: l.CreatedAt, Importance: l.Importance})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sampleStore stores the samples in a new store with the installed models.
func sampleStore(t *testing.T) *engine.Engine {
	t.Helper()
	if testing.Short() {
		t.Skip("loads the ONNX models; skipped with -short")
	}
	ctx := context.Background()
	reg, closeReg, err := neural.Registry(ctx, neural.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := closeReg(); err != nil {
			t.Error(err)
		}
	})
	s, err := engine.Open(filepath.Join(t.TempDir(), "store"), engine.Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	if _, err := s.AddBatch(ctx, samples(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSamplesTopics detects topics on the 32 samples embedded by the real
// models, saves a snapshot and compares the next run with it.
func TestSamplesTopics(t *testing.T) {
	ctx := context.Background()
	s := sampleStore(t)
	semantic := 0
	for _, si := range s.Slots() {
		if si.Slot.Category() == fingerprint.Semantic && si.Status.State != fingerprint.StatusUnavailable {
			semantic++
		}
	}
	a, err := Analyze(ctx, s, topics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	d := a.Detection
	t.Logf("32 samples, %d semantic slots with a model: %d topics, reachable agreement %.1f", semantic, len(d.Topics), d.Reachable)
	for i, tp := range d.Topics {
		t.Logf("topic %d: %d members, terms %v, agreement mean %.2f min %.2f", i, len(tp.Members), tp.Terms, tp.MeanAgreement, tp.MinAgreement)
	}
	if len(a.Items) != 32 {
		t.Fatalf("%d items", len(a.Items))
	}
	if semantic < 3 {
		if len(d.Topics) != 0 && d.Reachable < topics.Threshold {
			t.Fatalf("topics formed below the reachable threshold")
		}
		t.Skipf("only %d semantic slots have a model: topics need agreement ≥ 2.5", semantic)
	}
	if len(d.Topics) == 0 {
		t.Fatal("no topic among the 32 samples")
	}
	for _, tp := range d.Topics {
		if tp.MinAgreement < topics.Threshold || len(tp.Members) < 3 {
			t.Errorf("topic %+v breaks the rule", tp)
		}
	}
	// How the two sample conversations fall (logged: short "user:" turns
	// share E6/E9 features across sessions, so a session may span topics).
	for _, sess := range []string{"2026-03-02-rocksdb-store", "2026-03-05-onnx-embedders"} {
		var ls []int
		for i, it := range a.Items {
			if it.Session == sess {
				ls = append(ls, d.Labels[i])
			}
		}
		t.Logf("session %s: topics of its turns %v (-1: none)", sess, ls)
	}

	if _, ok, err := Latest(ctx, s); ok || err != nil {
		t.Fatalf("a new store has a snapshot: %v %v", ok, err)
	}
	if err := Save(ctx, s, a.Snapshot()); err != nil {
		t.Fatal(err)
	}
	prev, ok, err := Latest(ctx, s)
	if err != nil || !ok || !prev.Time.Equal(a.Time) || len(prev.Topics) != len(d.Topics) {
		t.Fatalf("Latest after Save: %v %v %+v", ok, err, prev)
	}
	a2, err := Analyze(ctx, s, topics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if st := topics.Compare(prev, a2.Snapshot()); st.Overall != 1 || st.Common != 32 {
		t.Fatalf("same memories, same topics: stability %+v", st)
	}

	r, targets, ref := a.Divergence(5)
	if len(targets) != 5 || ref != "topic members" {
		t.Fatalf("divergence targets %d, reference %q", len(targets), ref)
	}
	for _, c := range r.Checks {
		if c.Slot.Category() != fingerprint.Semantic {
			t.Fatalf("divergence checked %s", c.Slot)
		}
	}
	t.Logf("divergence of the 5 newest: %d checks, %d alerts, unmeasured %v", len(r.Checks), len(r.Alerts()), r.Unmeasured)
}

// TestSnapshotsKeptAndCorruptionReported: Latest returns the newest saved
// snapshot; a value that does not decode is reported as corrupt. (The engine
// keeping only the newest MaxSnapshots is tested where it is kept.)
func TestSnapshotsKeptAndCorruptionReported(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(filepath.Join(t.TempDir(), "store"), engine.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range MaxSnapshots + 3 {
		snap := topics.Snapshot{Time: base.Add(time.Duration(i) * time.Hour), Universe: []string{"a"}, Topics: [][]string{{"a"}}}
		if err := Save(ctx, e, snap); err != nil {
			t.Fatal(err)
		}
	}
	last, ok, err := Latest(ctx, e)
	if !ok || err != nil || !last.Time.Equal(base.Add(time.Duration(MaxSnapshots+2)*time.Hour)) {
		t.Fatalf("latest %v %v %v", last.Time, ok, err)
	}
	if err := e.SaveTopicSnapshot(ctx, base.Add(1000*time.Hour), []byte("CGTP\x00\x01{not json"), MaxSnapshots); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Latest(ctx, e); !errors.Is(err, record.ErrCorrupt) {
		t.Fatalf("corrupt snapshot: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := encode(topics.Snapshot{Time: time.Unix(1, 0).UTC(), Universe: []string{"a", "b"}, Topics: [][]string{{"a", "b"}}})
	f.Add(good)
	f.Add([]byte("CGTP\x00\x02{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decode(b)
		if err != nil {
			if !errors.Is(err, record.ErrCorrupt) {
				t.Fatalf("error without record.ErrCorrupt: %v", err)
			}
			return
		}
		if _, err := encode(s); err != nil {
			t.Fatal(err)
		}
	})
}

// countingSource yields n memories with empty fingerprints.
type countingSource int

func (n countingSource) EachFingerprint(ctx context.Context, fn func(m record.Memory, fp *fingerprint.Fingerprint) error) error {
	for i := range int(n) {
		if err := fn(record.Memory{ID: record.NewID(), DocNum: record.DocNum(i), Content: "m"}, &fingerprint.Fingerprint{}); err != nil {
			return err
		}
	}
	return nil
}

// TestAnalyzeKeepsTheNewest: beyond MaxMemories the oldest memories are
// left out and counted.
func TestAnalyzeKeepsTheNewest(t *testing.T) {
	a, err := Analyze(context.Background(), countingSource(MaxMemories+7), topics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != MaxMemories || a.Skipped != 7 || len(a.Detection.Labels) != MaxMemories {
		t.Fatalf("items %d skipped %d labels %d", len(a.Items), a.Skipped, len(a.Detection.Labels))
	}
	if len(a.Snapshot().Universe) != MaxMemories {
		t.Fatal("snapshot universe")
	}
}
