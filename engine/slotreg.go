package engine

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
)

// The slot registry: per slot, which producer (model id + sha256) computed the
// store's values, its status and dims, in the default family under
// cellar.SlotKeyPrefix (engine/FORMAT.md):
//
//	slot/E1 … slot/E13   version 1, status (1 byte), uvarint dims,
//	                     uvarint len + model id, sha256 (32 bytes)
//	slot/generation      uint64 BE, bumped by every re-embed batch and
//	                     producer change, so read-only stores rebuild
type slotRecord struct {
	Status   fingerprint.Status
	Producer fingerprint.Producer
	Dims     int
}

var generationKey = []byte(cellar.SlotKeyPrefix + "generation")

func slotKey(s fingerprint.SlotID) []byte { return []byte(cellar.SlotKeyPrefix + s.String()) }

func encodeSlotRecord(r slotRecord) []byte {
	b := []byte{valueVersion, byte(r.Status)}
	b = binary.AppendUvarint(b, uint64(r.Dims))
	b = binary.AppendUvarint(b, uint64(len(r.Producer.Model)))
	b = append(b, r.Producer.Model...)
	return append(b, r.Producer.SHA256[:]...)
}

func decodeSlotRecord(b []byte) (slotRecord, error) {
	d := newValueDecoder(b)
	var r slotRecord
	r.Status = fingerprint.Status(d.Byte())
	r.Dims = int(d.UvarintMax(maxDim))
	r.Producer.Model = d.UvarintStr(1 << 12)
	copy(r.Producer.SHA256[:], d.Bytes(32))
	return r, done(d)
}

func recordOf(st embedders.SlotStatus) slotRecord {
	return slotRecord{Status: st.State, Producer: st.Producer, Dims: st.Dims}
}

// readSlotRecords returns the stored records (ok[i] false when slot i has
// none) and the generation.
func readSlotRecords(ctx context.Context, eng *cellar.Store) (recs [fingerprint.NumSlots]slotRecord, ok [fingerprint.NumSlots]bool, gen uint64, err error) {
	keys := make([][]byte, 0, fingerprint.NumSlots+1)
	for _, s := range fingerprint.Slots() {
		keys = append(keys, slotKey(s))
	}
	keys = append(keys, generationKey)
	vals, err := eng.Values(ctx, cellar.FamDefault, keys)
	if err != nil {
		return recs, ok, 0, fmt.Errorf("read slot registry: %w", err)
	}
	for i, s := range fingerprint.Slots() {
		if vals[i] == nil {
			continue
		}
		if recs[i], err = decodeSlotRecord(vals[i]); err != nil {
			return recs, ok, 0, fmt.Errorf("default/%s: %w", slotKey(s), err)
		}
		ok[i] = true
	}
	if v := vals[len(vals)-1]; v != nil {
		if gen, err = decodeU64(v); err != nil {
			return recs, ok, 0, fmt.Errorf("default/%s: %w", generationKey, err)
		}
	}
	return recs, ok, gen, nil
}

// bumpGeneration adds one to slot/generation in b.
func bumpGeneration(b *cellar.Batch) error {
	v, found, err := b.Get(cellar.FamDefault, generationKey)
	if err != nil {
		return err
	}
	var g uint64
	if found {
		if g, err = decodeU64(v); err != nil {
			return fmt.Errorf("default/%s: %w", generationKey, err)
		}
	}
	b.Put(cellar.FamDefault, generationKey, encodeU64(g+1))
	return nil
}

// recordProducers writes every slot's record in one batch.
func (s *Engine) recordProducers(ctx context.Context, recs *[fingerprint.NumSlots]slotRecord) error {
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return err
	}
	defer b.Abort()
	for i, slot := range fingerprint.Slots() {
		b.Put(cellar.FamDefault, slotKey(slot), encodeSlotRecord(recs[i]))
	}
	return b.Commit()
}
