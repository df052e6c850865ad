package cellar

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// FuzzDecodeKept: the kept-memory decoder never panics, wraps
// record.ErrCorrupt on every refusal, and what it accepts encodes back to
// the same bytes.
func FuzzDecodeKept(f *testing.F) {
	id, other := record.NewID(), record.NewID()
	m := record.Memory{ID: id, Content: "kept", Type: record.TypeNote, CreatedAt: time.Unix(1, 0).UTC(), UpdatedAt: time.Unix(2, 0).UTC(), Importance: 0.5, Revision: 2}
	h := m
	h.Revision, h.Content = 1, "first"
	k := Kept{Memory: m, History: []record.Memory{h}, Fingerprint: []byte{1, 2, 3},
		Relations: []record.Relation{{From: id, To: other, Type: record.RelInforms, Weight: 0.5, CreatedAt: time.Unix(3, 0).UTC()}}}
	f.Add(encodeKept(&k))
	f.Add(encodeKept(&Kept{Memory: m}))
	f.Add([]byte("CGKP\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeKept(b)
		if err != nil {
			if !errors.Is(err, record.ErrCorrupt) {
				t.Fatalf("error without ErrCorrupt: %v", err)
			}
			return
		}
		if again := encodeKept(&got); !bytes.Equal(again, b) {
			// Record decoding accepts version 1 records, which encode as
			// version 2: compare by decoding again.
			back, err := DecodeKept(again)
			if err != nil || back.Memory.ID != got.Memory.ID || len(back.History) != len(got.History) || len(back.Relations) != len(got.Relations) || !bytes.Equal(back.Fingerprint, got.Fingerprint) {
				t.Fatalf("round trip: %+v, %v", back, err)
			}
		}
	})
}
