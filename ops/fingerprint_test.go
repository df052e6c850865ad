package ops

import (
	"context"
	"reflect"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// TestFingerprintViews: the wire form lists the stored slots with their
// summary (all: every slot, the missing ones by status only); the compact
// view lists every slot and keeps only the wire form's fields, under the
// same names.
func TestFingerprintViews(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	m, err := e.Add(ctx, record.NewMemory{Content: "Decision: keep the fingerprint summary in one wire form."})
	if err != nil {
		t.Fatal(err)
	}
	fp, err := e.Fingerprint(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, all := FingerprintOf(fp, false), FingerprintOf(fp, true)
	sum := fp.Summary()
	if len(stored) != len(sum) || len(all) != len(engine.Slots()) || len(stored) == 0 {
		t.Fatalf("%d stored slots (summary %d), %d in all, want %d", len(stored), len(sum), len(all), len(engine.Slots()))
	}
	for i, ss := range sum {
		w := stored[i]
		if w.Slot != ss.Slot.String() || w.Status != ss.Status.String() || w.Kind != ss.Kind.String() || w.Dims != ss.Dims || w.Norm != ss.Norm || w.NNZ != ss.NNZ || w.Tokens != ss.Tokens || w.Note != ss.Note {
			t.Errorf("slot %s: wire %+v, summary %+v", ss.Slot, w, ss)
		}
	}
	present := 0
	for i, w := range all {
		if w.Slot != engine.Slots()[i].String() {
			t.Errorf("all[%d] is %s, want slot order", i, w.Slot)
		}
		if w.Status == "present" {
			present++
		}
	}
	if present == 0 {
		t.Errorf("no slot present in %+v", all)
	}
	compact := CompactFingerprint(fp)
	for i, c := range compact {
		if c != all[i].Compact() || c.Slot != all[i].Slot || c.Dims != all[i].Dims {
			t.Errorf("compact %+v is not the view of %+v", c, all[i])
		}
	}
	names := map[string]bool{}
	for f := range reflect.TypeFor[FingerprintSlot]().Fields() {
		names[jsonName(f)] = true
	}
	for f := range reflect.TypeFor[CompactSlot]().Fields() {
		if !names[jsonName(f)] {
			t.Errorf("CompactSlot field %q is not a field of FingerprintSlot", jsonName(f))
		}
	}
}
