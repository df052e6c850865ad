package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/record"
)

// derivedFix is one repair of a per-doc derived family: put value at key,
// or delete key when value is nil.
type derivedFix struct {
	family cellar.Family
	key    []byte
	value  []byte
}

// derivedAudit is what one pass over the fingerprints and the per-doc
// derived families found: problems for Check, fixes for RepairDerived.
type derivedAudit struct {
	problems []string
	fixes    []derivedFix
	// e12Lost are memories whose E12 matrix is unreadable or missing: the
	// repair drops it and marks the slot missing in the fingerprint, so
	// `cgraph reembed --slot E12` computes it again (E12 rows are stored
	// only in their family).
	e12Lost map[record.ID]*fingerprint.Fingerprint
}

// auditDerived compares every per-doc derived value with what the memory's
// stored fingerprint gives (E12, whose rows live only in its family, must
// decode), and finds keys of docs that are not stored. Cost: one pass over
// the docnums, fingerprints and each per-doc family.
func (s *Engine) auditDerived(ctx context.Context) (derivedAudit, error) {
	a := derivedAudit{e12Lost: map[record.ID]*fingerprint.Fingerprint{}}
	ids, fps, err := s.derivedSources(ctx, &a)
	if err != nil {
		return a, err
	}
	for _, c := range columns {
		if err := s.auditColumn(ctx, c, ids, fps, &a); err != nil {
			return a, err
		}
	}
	return a, nil
}

// derivedSources reads what the derived values come from: each stored
// doc's memory id, and each memory's fingerprint (one that does not decode
// is a problem in a, and its values are not checked).
func (s *Engine) derivedSources(ctx context.Context, a *derivedAudit) (map[record.DocNum]record.ID, map[record.ID]*fingerprint.Fingerprint, error) {
	ids := map[record.DocNum]record.ID{}
	if err := s.cellar.ScanDocs(ctx, func(d record.DocNum, id record.ID) error {
		ids[d] = id
		return nil
	}); err != nil {
		return nil, nil, err
	}
	fps := map[record.ID]*fingerprint.Fingerprint{}
	if err := s.cellar.Scan(ctx, cellar.FamFingerprints, nil, func(k, v []byte) error {
		var id record.ID
		copy(id[:], k)
		fp, err := fingerprint.Decode(v)
		if err != nil {
			a.problems = append(a.problems, fmt.Sprintf("fingerprints/%x: %v: the memory cannot be re-derived; delete it (cgraph delete) and add its content again", k, err))
			return nil
		}
		fps[id] = fp
		return nil
	}); errors.Is(err, record.ErrCorrupt) {
		// A damaged block stopped the scan: read each stored memory's
		// fingerprint; the cellar's check names those that do not read.
		for _, id := range ids {
			v, err := s.cellar.Values(ctx, cellar.FamFingerprints, [][]byte{id[:]})
			if err != nil || v[0] == nil {
				continue
			}
			if fp, err := fingerprint.Decode(v[0]); err == nil {
				fps[id] = fp
			}
		}
	} else if err != nil {
		return nil, nil, err
	}
	return ids, fps, nil
}

// auditColumn compares one per-doc family with the fingerprints: keys of no
// stored doc, values that differ, values missing (E12 must decode; its rows
// live only there).
func (s *Engine) auditColumn(ctx context.Context, c column, ids map[record.DocNum]record.ID, fps map[record.ID]*fingerprint.Fingerprint, a *derivedAudit) error {
	seen := map[record.DocNum]bool{}
	err := s.cellar.Scan(ctx, c.family, nil, func(k, v []byte) error {
		doc, err := parseDocKey(c.family, k)
		if err != nil {
			a.problems = append(a.problems, err.Error())
			a.fixes = append(a.fixes, derivedFix{c.family, append([]byte(nil), k...), nil})
			return nil
		}
		seen[doc] = true
		id, live := ids[doc]
		if !live {
			a.fixes = append(a.fixes, derivedFix{c.family, append([]byte(nil), k...), nil}) // Check reports it already
			return nil
		}
		fp := fps[id]
		if fp == nil {
			return nil // reported with its fingerprint
		}
		if c.slot == fingerprint.E12 {
			if _, err := indexes.DecodeTokenMatrix(v); err != nil {
				a.problems = append(a.problems, fmt.Sprintf("%s/%d: %v", c.family, doc, err))
				a.fixes = append(a.fixes, derivedFix{c.family, docKey(doc), nil})
				a.e12Lost[id] = fp
			}
			return nil
		}
		want, err := c.encode(fp.Get(c.slot).Value)
		if err != nil {
			return fmt.Errorf("%s/%d: encode from the fingerprint: %w", c.family, doc, err)
		}
		if !bytes.Equal(v, want) {
			a.problems = append(a.problems, fmt.Sprintf("%s/%d differs from memory %s's fingerprint", c.family, doc, id))
			a.fixes = append(a.fixes, derivedFix{c.family, docKey(doc), want})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for doc, id := range ids {
		fp := fps[id]
		if seen[doc] || fp == nil {
			continue
		}
		if c.slot == fingerprint.E12 {
			if t, ok := fp.Get(fingerprint.E12).Value.(fingerprint.Tokens); ok && t.Dim > 0 {
				a.problems = append(a.problems, fmt.Sprintf("%s/%d is missing: memory %s's fingerprint has an E12 value", c.family, doc, id))
				a.e12Lost[id] = fp
			}
			continue
		}
		want, err := c.encode(fp.Get(c.slot).Value)
		if err != nil {
			return fmt.Errorf("%s/%d: encode from the fingerprint: %w", c.family, doc, err)
		}
		if want != nil {
			a.problems = append(a.problems, fmt.Sprintf("%s/%d is missing: memory %s's fingerprint has a value", c.family, doc, id))
			a.fixes = append(a.fixes, derivedFix{c.family, docKey(doc), want})
		}
	}
	return nil
}

// checkDerived is the derived-family half of Check.
func (s *Engine) checkDerived(ctx context.Context) error {
	a, err := s.auditDerived(ctx)
	if err != nil {
		return fmt.Errorf("check derived families: %w", err)
	}
	if len(a.problems) == 0 {
		return nil
	}
	return fmt.Errorf("%d derived-family problems (cgraph check --repair rewrites them from the fingerprints): %s", len(a.problems), joinFirst(a.problems, 20))
}

func joinFirst(xs []string, n int) string {
	var b bytes.Buffer
	for i, x := range xs {
		if i == n {
			fmt.Fprintf(&b, "; and %d more", len(xs)-n)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(x)
	}
	return b.String()
}

// DerivedRepair is what RepairDerived did.
type DerivedRepair struct {
	// Rewritten are per-doc values put back from the memories'
	// fingerprints or deleted (keys of docs that are not stored).
	Rewritten int `json:"rewritten"`
	// E12Dropped are memories whose E12 token matrix was unreadable or
	// missing: dropped and marked missing, for `cgraph reembed --slot E12`.
	E12Dropped []record.ID `json:"e12_dropped"`
}

// RepairDerived rewrites every per-doc derived value that differs from the
// memory's fingerprint (or is missing) from the fingerprint, deletes values
// of docs that are not stored, and drops unreadable E12 matrices, marking
// E12 missing in those fingerprints so that Reembed recomputes it — in one
// batch. A fingerprint that does not decode is left for the user (Check
// says what to do). Like RepairPostings, an open engine's indexes see the
// change after a reopen.
func (s *Engine) RepairDerived(ctx context.Context) (DerivedRepair, error) {
	var rep DerivedRepair
	a, err := s.auditDerived(ctx)
	if err != nil {
		return rep, fmt.Errorf("repair derived families: %w", err)
	}
	if len(a.fixes) == 0 && len(a.e12Lost) == 0 {
		return rep, nil
	}
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return rep, err
	}
	defer b.Abort()
	for _, f := range a.fixes {
		if f.value == nil {
			b.Del(f.family, f.key)
		} else {
			b.Put(f.family, f.key, f.value)
		}
		rep.Rewritten++
	}
	for id, fp := range a.e12Lost {
		if err := fp.Set(fingerprint.E12, fingerprint.Entry{Status: fingerprint.StatusMissing}); err != nil {
			return rep, fmt.Errorf("memory %s: mark E12 missing: %w", id, err)
		}
		enc, err := encodeStored(fp)
		if err != nil {
			return rep, fmt.Errorf("memory %s: encode fingerprint: %w", id, err)
		}
		b.Put(cellar.FamFingerprints, id[:], enc)
		rep.E12Dropped = append(rep.E12Dropped, id)
	}
	if err := b.Commit(); err != nil {
		return rep, fmt.Errorf("repair derived families: %w", err)
	}
	return rep, nil
}

// FingerprintRepair is what RepairFingerprints did.
type FingerprintRepair struct {
	// Salvaged says the fingerprints family was written anew without its
	// damaged table files; Kept fingerprints were copied into it.
	Salvaged bool `json:"salvaged"`
	Kept     int  `json:"kept"`
	// Dropped are the memories whose fingerprint was in a damaged block:
	// deleted, with their content, so that it can be added again.
	Dropped []DroppedMemory `json:"dropped"`
}

// DroppedMemory names a memory a repair deleted, with its content.
type DroppedMemory struct {
	ID      record.ID `json:"id"`
	Content string    `json:"content"`
}

// RepairFingerprints mends a fingerprints family with a damaged block in a
// table file: reads around the block still answer, but the block cannot be
// mended in place and a compaction that reads it stops every later write.
// The family is written anew without its table files (cellar Salvage),
// keeping every fingerprint that reads; each memory whose fingerprint did
// not read is deleted (its record, index keys, per-doc values and
// postings) and reported with its content. A healthy family is left
// untouched. Cost: one scan, and when damaged, two writes per memory.
func (s *Engine) RepairFingerprints(ctx context.Context) (FingerprintRepair, error) {
	var rep FingerprintRepair
	err := s.cellar.Scan(ctx, cellar.FamFingerprints, nil, func(_, _ []byte) error { return nil })
	if !errors.Is(err, record.ErrCorrupt) {
		return rep, err
	}
	sr, err := s.cellar.Salvage(ctx, cellar.FamFingerprints)
	if err != nil {
		return rep, fmt.Errorf("repair fingerprints: %w", err)
	}
	rep.Salvaged, rep.Kept = true, sr.Kept
	for _, id := range sr.Lost {
		m, err := s.peek(ctx, id)
		if err != nil {
			return rep, fmt.Errorf("repair fingerprints: %w", err)
		}
		if err := s.Delete(ctx, id); err != nil {
			return rep, fmt.Errorf("repair fingerprints: drop memory %s: %w", id, err)
		}
		rep.Dropped = append(rep.Dropped, DroppedMemory{ID: id, Content: m.Content})
	}
	return rep, nil
}
