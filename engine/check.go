package engine

import (
	"context"
	"errors"
	"fmt"

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
