package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Check verifies the store: the cellar's checks (records decode, counters
// agree, every per-memory family holds exactly its memories' keys) and the
// posting families the engine writes (E6, E13): every posting names a live
// memory, every key parses, and the document statistics match the postings.
// Each problem is one line of the returned error, naming family and key.
func (s *Engine) Check(ctx context.Context) error {
	return errors.Join(s.eng.Check(ctx), s.checkPostings(ctx))
}

// checkPostings is the posting half of Check. Cost: one pass over the
// docnums family and one over each posting family.
func (s *Engine) checkPostings(ctx context.Context) error {
	live := map[uint32]bool{}
	if err := s.eng.ScanDocs(ctx, func(d record.DocNum, _ record.ID) error {
		live[uint32(d)] = true
		return nil
	}); err != nil {
		return fmt.Errorf("check postings: %w", err)
	}
	var errs []error
	for _, pf := range postingFamilies {
		docs := map[uint32]bool{}
		var statDocs uint64
		orphans := 0
		err := s.eng.Scan(ctx, pf.family, nil, func(k, v []byte) error {
			if len(k) > 0 && k[0] == statPrefix {
				if string(k) == string(statDocsKey) {
					n, err := decodeU64(v)
					if err != nil {
						errs = append(errs, fmt.Errorf("%s/%s: %w", pf.family, k, err))
					}
					statDocs = n
				}
				return nil
			}
			_, doc, err := parsePostingKey(k)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s/%x: %w", pf.family, k, err))
				return nil
			}
			docs[doc] = true
			if !live[doc] {
				if orphans++; orphans <= 5 {
					errs = append(errs, fmt.Errorf("%s/%x: a posting of doc %d, which no stored memory has", pf.family, k, doc))
				}
			}
			return nil
		})
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("check %s: %w", pf.family, err))...)
		}
		if orphans > 5 {
			errs = append(errs, fmt.Errorf("%s: %d postings name no stored memory in all (the first 5 are listed)", pf.family, orphans))
		}
		if uint64(len(docs)) != statDocs {
			errs = append(errs, fmt.Errorf("%s: postings of %d documents, its statistics say %d", pf.family, len(docs), statDocs))
		}
	}
	return errors.Join(errs...)
}

// PostingRepair is what RepairPostings did in one posting family.
type PostingRepair struct {
	Family string `json:"family"`
	// Dropped are the postings of docs no stored memory has, removed.
	Dropped int `json:"dropped_postings"`
	// Docs and Length are the family's statistics as set afterwards:
	// documents with postings, and Σ document lengths.
	Docs   uint64 `json:"docs"`
	Length uint64 `json:"length"`
	// StatsFixed says the statistics differed from the postings before.
	StatsFixed bool `json:"stats_fixed"`
}

// RepairPostings makes the posting families agree with the records: every
// posting of a doc no stored memory has is deleted, and the statistics are
// set from the postings that remain, in one batch. It needs the writer; the
// in-RAM indexes of an open engine do not see the change until the store is
// reopened (cgraph check --repair opens, repairs and closes). It reports one
// PostingRepair per family it changed.
func (s *Engine) RepairPostings(ctx context.Context) ([]PostingRepair, error) {
	live := map[uint32]bool{}
	if err := s.eng.ScanDocs(ctx, func(d record.DocNum, _ record.ID) error {
		live[uint32(d)] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("repair postings: %w", err)
	}
	b, err := s.eng.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("repair postings: %w", err)
	}
	defer b.Abort()
	var out []PostingRepair
	for _, pf := range postingFamilies {
		var orphans [][]byte
		kept := map[uint32]uint64{} // live doc → its length
		var statDocs, statLen uint64
		err := s.eng.Scan(ctx, pf.family, nil, func(k, v []byte) error {
			if len(k) > 0 && k[0] == statPrefix {
				n, err := decodeU64(v)
				if err != nil {
					n = 1<<64 - 1 // unreadable: differs from any count, so it is rewritten
				}
				switch string(k) {
				case string(statDocsKey):
					statDocs = n
				case string(statLengthKey):
					statLen = n
				}
				return nil
			}
			_, doc, err := parsePostingKey(k)
			if err != nil || !live[doc] {
				orphans = append(orphans, slices.Clone(k))
				return nil
			}
			length := uint64(1) // E13: one per non-zero weight
			if pf.slot == fingerprint.E6 {
				c, n := binary.Uvarint(v)
				if n != len(v) || c == 0 {
					orphans = append(orphans, slices.Clone(k)) // an unreadable count cannot be scored
					return nil
				}
				length = c
			}
			kept[doc] += length
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("repair %s: %w", pf.family, err)
		}
		var docs, length uint64
		for _, l := range kept {
			docs++
			length += l
		}
		r := PostingRepair{Family: pf.family.String(), Dropped: len(orphans), Docs: docs, Length: length,
			StatsFixed: docs != statDocs || length != statLen}
		if r.Dropped == 0 && !r.StatsFixed {
			continue
		}
		for _, k := range orphans {
			b.Del(pf.family, k)
		}
		b.Put(pf.family, statDocsKey, encodeU64(docs))
		b.Put(pf.family, statLengthKey, encodeU64(length))
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if err := b.Commit(); err != nil {
		return nil, fmt.Errorf("repair postings: %w", err)
	}
	return out, nil
}
