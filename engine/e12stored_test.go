package engine

import (
	"context"
	"math"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// TestE12RowsStoredOnce: the fingerprints family keeps E12 without its rows
// (they live quantized in e12_late_interaction), and Fingerprint and
// EachFingerprint give them back within a quantization step of what the
// embedder produced.
func TestE12RowsStoredOnce(t *testing.T) {
	ctx := context.Background()
	reg := hashRegistry(t, "e12")
	s := openStore(t, t.TempDir(), reg)
	ms := addAll(t, s, texts)

	want, err := reg.Get(fingerprint.E12).EmbedDocuments(ctx, []embedders.Input{{Text: texts[0]}})
	if err != nil {
		t.Fatal(err)
	}
	wt := want[0].Value.(fingerprint.Tokens)
	if wt.Rows() < 2 {
		t.Fatalf("test needs a multi-row matrix, got %d rows", wt.Rows())
	}

	vals, err := s.cellar.Values(ctx, cellar.FamFingerprints, [][]byte{ms[0].ID[:]})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := fingerprint.Decode(vals[0])
	if err != nil {
		t.Fatal(err)
	}
	if st := raw.Get(fingerprint.E12).Value.(fingerprint.Tokens); st.Rows() != 0 || st.Dim != wt.Dim {
		t.Fatalf("stored E12 has %d rows of %d, want 0 rows of %d", st.Rows(), st.Dim, wt.Dim)
	}
	check := func(how string, fp *fingerprint.Fingerprint) {
		t.Helper()
		got := fp.Get(fingerprint.E12)
		gt, ok := got.Value.(fingerprint.Tokens)
		if !ok || gt.Dim != wt.Dim || len(gt.Data) != len(wt.Data) {
			t.Fatalf("%s: E12 = %+v, want %d rows of %d", how, got.Value, wt.Rows(), wt.Dim)
		}
		if got.Producer != want[0].Producer || got.Status != want[0].Status {
			t.Errorf("%s: E12 status/producer %v %v, want %v %v", how, got.Status, got.Producer, want[0].Status, want[0].Producer)
		}
		for r := range wt.Rows() {
			row, maxAbs := wt.Row(r), 0.0
			for _, x := range row {
				maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
			}
			step := maxAbs / 127
			for i, x := range gt.Row(r) {
				if d := math.Abs(float64(x - row[i])); d > step/2+1e-6 {
					t.Fatalf("%s: row %d value %d is %v, want %v (± %v)", how, r, i, x, row[i], step/2)
				}
			}
		}
	}
	fp, err := s.Fingerprint(ctx, ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	check("Fingerprint", fp)
	seen := false
	if err := s.EachFingerprint(ctx, func(m record.Memory, fp *fingerprint.Fingerprint) error {
		if m.ID == ms[0].ID {
			seen = true
			check("EachFingerprint", fp)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal("EachFingerprint skipped the memory")
	}
}
