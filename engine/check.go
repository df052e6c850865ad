package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Check verifies the store: the cellar's checks (records decode, counters
// agree, every per-memory family holds exactly its memories' keys) and the
// posting families the engine writes (E6, E13): every posting names a live
// memory, every key parses, and the document statistics match the postings.
// Each problem is one line of the returned error, naming family and key.
func (s *Engine) Check(ctx context.Context) error {
	return errors.Join(s.cellar.Check(ctx), s.checkPostings(ctx), s.checkDerived(ctx))
}

// checkPostings is the posting half of Check. Cost: one pass over the
// docnums family and one over each posting family.
func (s *Engine) checkPostings(ctx context.Context) error {
	live, err := s.liveDocs(ctx)
	if err != nil {
		return fmt.Errorf("check postings: %w", err)
	}
	var errs []error
	for _, pf := range postingFamilies {
		a, err := s.auditPostings(ctx, pf, live)
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("check %s: %w", pf.family, err))...)
		}
		if a.stats.err != nil {
			errs = append(errs, a.stats.err)
		}
		for _, o := range a.orphans[:min(5, len(a.orphans))] {
			errs = append(errs, fmt.Errorf("%s/%x: %s", pf.family, o.key, o.why))
		}
		if len(a.orphans) > 5 {
			errs = append(errs, fmt.Errorf("%s: %d postings name no stored memory or do not decode, in all (the first 5 are listed)", pf.family, len(a.orphans)))
		}
		if uint64(a.named) != a.stats.docs {
			errs = append(errs, fmt.Errorf("%s: postings of %d documents, its statistics say %d", pf.family, a.named, a.stats.docs))
		}
	}
	return errors.Join(errs...)
}

// liveDocs is the set of stored doc numbers.
func (s *Engine) liveDocs(ctx context.Context) (map[record.DocNum]bool, error) {
	live := map[record.DocNum]bool{}
	err := s.cellar.ScanDocs(ctx, func(d record.DocNum, _ record.ID) error {
		live[d] = true
		return nil
	})
	return live, err
}

// postingAudit is what one pass over a posting family found against the
// stored memories: what Check reports and RepairPostings mends.
type postingAudit struct {
	stats   postingStats
	orphans []orphanPosting
	named   int                      // distinct docs the parseable postings name, orphans included
	kept    map[record.DocNum]uint64 // stored doc → its length (E6: Σ counts; E13: non-zero weights)
}

// orphanPosting is a posting that cannot stay: its key does not parse, its
// doc is not stored, or (E6) its count does not decode.
type orphanPosting struct {
	key []byte
	why string
}

func (s *Engine) auditPostings(ctx context.Context, pf postingFamily, live map[record.DocNum]bool) (postingAudit, error) {
	a := postingAudit{kept: map[record.DocNum]uint64{}}
	named := map[record.DocNum]bool{}
	var err error
	a.stats, err = scanPostings(ctx, s.cellar, pf, func(k, _ []byte, doc record.DocNum, v []byte, keyErr error) error {
		switch {
		case keyErr != nil:
			a.orphans = append(a.orphans, orphanPosting{slices.Clone(k), keyErr.Error()})
			return nil
		case !live[doc]:
			named[doc] = true
			a.orphans = append(a.orphans, orphanPosting{slices.Clone(k), fmt.Sprintf("a posting of doc %d, which no stored memory has", doc)})
			return nil
		}
		named[doc] = true
		length := uint64(1) // E13: one per non-zero weight
		if pf.slot == fingerprint.E6 {
			c, n := binary.Uvarint(v)
			if n != len(v) || c == 0 {
				a.orphans = append(a.orphans, orphanPosting{slices.Clone(k), fmt.Sprintf("count %x does not decode", v)})
				return nil
			}
			length = c
		}
		a.kept[doc] += length
		return nil
	})
	a.named = len(named)
	return a, err
}

// RecordRepair is what RepairRecords did (cellar.RecordRepair).
type RecordRepair = cellar.RecordRepair

// RepairRecords rebuilds the memory count, the doc-number counter and the
// docnums, created_index and sequence families from the stored records,
// and drops keys of per-memory families that belong to no stored memory
// (cellar.Store.RepairRecords). Run it before the other repairs, which
// find the stored memories through docnums. Like RepairPostings, an open
// engine's in-RAM state sees it after a reopen.
func (s *Engine) RepairRecords(ctx context.Context) (RecordRepair, error) {
	return s.cellar.RepairRecords(ctx)
}

// LinkRepair is what RepairLinks did (cellar.LinkRepair).
type LinkRepair = cellar.LinkRepair

// RepairLinks makes the history and relations families agree with the
// records: entries of memories that are not stored are dropped and a
// relation's missing mirror key is written back, in one batch. Like
// RepairPostings, an open engine's in-RAM state sees it after a reopen.
func (s *Engine) RepairLinks(ctx context.Context) (LinkRepair, error) {
	return s.cellar.RepairLinks(ctx)
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
	live, err := s.liveDocs(ctx)
	if err != nil {
		return nil, fmt.Errorf("repair postings: %w", err)
	}
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("repair postings: %w", err)
	}
	defer b.Abort()
	var out []PostingRepair
	for _, pf := range postingFamilies {
		a, err := s.auditPostings(ctx, pf, live)
		if err != nil {
			return nil, fmt.Errorf("repair %s: %w", pf.family, err)
		}
		var docs, length uint64
		for _, l := range a.kept {
			docs++
			length += l
		}
		r := PostingRepair{Family: pf.family.String(), Dropped: len(a.orphans), Docs: docs, Length: length,
			StatsFixed: a.stats.err != nil || docs != a.stats.docs || length != a.stats.length}
		if r.Dropped == 0 && !r.StatsFixed {
			continue
		}
		for _, o := range a.orphans {
			b.Del(pf.family, o.key)
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
