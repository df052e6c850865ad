package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// dupCandidates is how many of the best BM25 matches of a new memory's own
// E6 terms are compared with it: an exact copy has the same terms and
// length, so it ranks at or near the top.
const dupCandidates = 20

// dupTerms bounds the terms that query: the rarest ones, which an exact
// copy shares and few other memories do, so a long memory's check stays
// a short BM25 query on the write path.
const dupTerms = 16

// findDuplicate returns a stored memory of project whose content is the
// same as content (record.SameContent), found through the new memory's E6 terms:
// the BM25 index's top dupCandidates for its dupTerms rarest terms, each
// record compared whole. A memory with no E6 terms (symbols only) is never deduplicated.
// REQUIRES: s.writeMu held (the indexes then hold every committed memory).
func (s *Engine) findDuplicate(ctx context.Context, project, content string, fp *fingerprint.Fingerprint) (record.Memory, bool, error) {
	tf, ok := fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs)
	if !ok || len(tf.Terms) == 0 {
		return record.Memory{}, false, nil
	}
	s.ix.mu.RLock()
	var docs []record.DocNum
	if s.ix.bm25 != nil {
		terms := tf.Terms
		if len(terms) > dupTerms {
			terms = slices.Clone(terms)
			slices.SortStableFunc(terms, func(a, b string) int { return cmp.Compare(s.ix.bm25.DocFreq(a), s.ix.bm25.DocFreq(b)) })
			terms = terms[:dupTerms]
		}
		within := s.ix.live
		if b := s.ix.attrs.byProject[project]; b != nil {
			within = b
		}
		hits, err := s.ix.bm25.Search(terms, dupCandidates, within)
		if err != nil {
			s.ix.mu.RUnlock()
			return record.Memory{}, false, fmt.Errorf("look for a duplicate: %w", err)
		}
		for _, h := range hits {
			docs = append(docs, h.Doc)
		}
	}
	s.ix.mu.RUnlock()
	if len(docs) == 0 {
		return record.Memory{}, false, nil
	}
	ms, found, err := s.eng.PeekDocs(ctx, docs)
	if err != nil {
		return record.Memory{}, false, fmt.Errorf("look for a duplicate: %w", err)
	}
	want := record.NormalizeContent(content)
	for i, m := range ms {
		if found[i] && m.Project == project && record.NormalizeContent(m.Content) == want {
			return m, true, nil
		}
	}
	return record.Memory{}, false, nil
}
