package fingerprint

import (
	"math"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	f := fullFingerprint(8)
	sums := f.Summary()
	if len(sums) != NumSlots {
		t.Fatalf("%d summaries", len(sums))
	}
	by := map[SlotID]SlotSummary{}
	for _, s := range sums {
		by[s.Slot] = s
	}
	e1 := f.Get(E1).Value.(Dense)
	if s := by[E1]; s.Dims != 8 || math.Abs(s.Norm-norm(e1)) > 1e-12 || s.Norm == 0 {
		t.Errorf("E1 %+v", s)
	}
	checks := []struct {
		s     SlotID
		field string
		got   int
		want  int
	}{
		{E6, "nnz", by[E6].NNZ, 3}, {E6, "tokens", by[E6].Tokens, 6},
		{E13, "nnz", by[E13].NNZ, 3}, {E12, "tokens", by[E12].Tokens, 2}, {E12, "dims", by[E12].Dims, 4},
		{E11, "nnz", by[E11].NNZ, 3}, {E9, "dims", by[E9].Dims, 256}, {E3, "dims", by[E3].Dims, 12},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s %s = %d, want %d", c.s, c.field, c.got, c.want)
		}
	}
	if by[E9].NNZ == 0 || by[E9].NNZ > HyperBits {
		t.Errorf("E9 set bits %d", by[E9].NNZ)
	}
	line := by[E4].String()
	if !strings.Contains(line, "E4 unavailable") || !strings.Contains(line, "no session") {
		t.Errorf("E4 line %q", line)
	}
	if line := by[E1].String(); !strings.HasPrefix(line, "E1 present dense dims=8 norm=") || !strings.Contains(line, "@sha256:") {
		t.Errorf("E1 line %q", line)
	}
}
