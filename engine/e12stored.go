package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/record"
)

// E12's token matrices are kept once: quantized in e12_late_interaction,
// where S4 reads them. The fingerprint written to the fingerprints family
// keeps E12's status, note, producer and token width but no rows (FORMAT.md,
// "fingerprints"); Fingerprint and EachFingerprint put the rows back from the
// family. Stored as float32 inside the fingerprint they were ~80% of a
// memory's bytes on disk (106 KB of a code memory, against 23 KB quantized).

// encodeStored encodes fp as the fingerprints family keeps it: E12 without
// its rows. fp itself is not changed.
func encodeStored(fp *fingerprint.Fingerprint) ([]byte, error) {
	e := fp.Get(fingerprint.E12)
	if t, ok := e.Value.(fingerprint.Tokens); ok && t.Rows() > 0 {
		c := *fp
		e.Value = fingerprint.Tokens{Dim: t.Dim}
		c.Slots[fingerprint.E12.Index()] = e
		fp = &c
	}
	return fingerprint.Encode(fp)
}

// hydrateE12 puts back the E12 rows of fingerprints read from the
// fingerprints family, from e12_late_interaction (dequantized: each value
// within half a quantization step of what the embedder produced). docs[i] is
// the doc number of fps[i]; nil fingerprints are skipped, and a memory deleted
// between the two reads gets a nil fingerprint, as in readMemories. A fingerprint
// written before E12 was stripped keeps its own rows.
func (s *Engine) hydrateE12(ctx context.Context, docs []record.DocNum, fps []*fingerprint.Fingerprint) error {
	const family = cellar.FamE12LateInteraction
	var keys [][]byte
	var which []int
	for i, fp := range fps {
		if fp == nil {
			continue
		}
		if t, ok := fp.Get(fingerprint.E12).Value.(fingerprint.Tokens); ok && t.Rows() == 0 {
			keys = append(keys, docKey(docs[i]))
			which = append(which, i)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	vals, err := s.cellar.Values(ctx, family, keys)
	if err != nil {
		return err
	}
	for j, v := range vals {
		i := which[j]
		if v == nil {
			if _, err := s.cellar.MemoryIDOf(ctx, docs[i]); errors.Is(err, record.ErrNotFound) {
				fps[i] = nil // deleted between the two reads (a reader catching up)
				continue
			}
			return fmt.Errorf("%s/%d: missing, but the fingerprint of doc %d has an E12 value there: reopen to check, or run `cgraph reembed --slot E12`: %w", family, docs[i], docs[i], record.ErrCorrupt)
		}
		m, err := indexes.DecodeTokenMatrix(v)
		if err != nil {
			return fmt.Errorf("%s/%d: %w", family, docs[i], err)
		}
		e := fps[i].Get(fingerprint.E12)
		if want := int(e.Value.(fingerprint.Tokens).Dim); m.Dim() != want {
			return fmt.Errorf("%s/%d: tokens %d wide, the fingerprint says %d: %w", family, docs[i], m.Dim(), want, record.ErrCorrupt)
		}
		data := make([]float32, 0, m.Rows()*m.Dim())
		for r := range m.Rows() {
			data = append(data, m.Row(r)...)
		}
		e.Value = fingerprint.Tokens{Dim: uint32(m.Dim()), Data: data}
		fps[i].Slots[fingerprint.E12.Index()] = e
	}
	return nil
}
