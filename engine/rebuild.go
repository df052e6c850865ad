package engine

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// rebuild builds a fresh indexSet from the store's families: records (for
// the temporal table, the live set and the speller's surface vocabulary)
// page by page, every dense family,
// e1_matryoshka_128, both posting families, the E11 sets and the E12 doc set
// (its matrices stay on disk). Cost: one sequential pass over each family.
//
// A slot in stale (awaiting Reembed) may hold vectors of two producers with
// different dims after an interrupted Reembed: its spaces keep the vectors of
// the dims the current producer gives (want), or the most common dims.
func rebuild(ctx context.Context, eng *cellar.Store, stale [fingerprint.NumSlots]bool, want [fingerprint.NumSlots]int) (*indexSet, error) {
	x, err := newIndexSet()
	if err != nil {
		return nil, err
	}
	if err := x.loadRecords(ctx, eng); err != nil {
		return nil, err
	}
	if err := x.loadSupersedes(ctx, eng); err != nil {
		return nil, err
	}
	for _, c := range denseColumns() {
		if err := x.loadDense(ctx, eng, c, stale[c.slot.Index()], want[c.slot.Index()]); err != nil {
			return nil, err
		}
	}
	if err := x.loadM128(ctx, eng); err != nil {
		return nil, err
	}
	for _, pf := range postingFamilies {
		if err := x.loadPostings(ctx, eng, pf); err != nil {
			return nil, err
		}
	}
	if err := x.loadE12(ctx, eng); err != nil {
		return nil, err
	}
	if !x.live.IsEmpty() {
		x.next = record.DocNum(x.live.Maximum()) + 1
		x.committed = x.next
	}
	return x, nil
}

func (x *indexSet) loadRecords(ctx context.Context, eng *cellar.Store) error {
	var after record.ID
	for {
		page, err := eng.List(ctx, record.ListOptions{Limit: 1000, After: after, Oldest: true})
		if err != nil {
			return fmt.Errorf("rebuild indexes: list memories: %w", err)
		}
		for _, m := range page {
			doc := m.DocNum
			x.live.Add(uint32(doc))
			x.setMetaLocked(m)
			x.speller.AddText(m.Content)
			// E2 and E3 are computed from the creation time every memory has
			// (the store sets it), E4 from the session position.
			x.has[fingerprint.E2.Index()].Add(uint32(doc))
			x.has[fingerprint.E3.Index()].Add(uint32(doc))
			if m.Session != "" {
				x.has[fingerprint.E4.Index()].Add(uint32(doc))
			}
		}
		if len(page) < 1000 {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// loadSupersedes marks the targets of supersedes and contradicts relations.
func (x *indexSet) loadSupersedes(ctx context.Context, eng *cellar.Store) error {
	var sup []record.Relation
	if err := eng.EachRelation(ctx, func(r record.Relation) error {
		if r.Type == record.RelSupersedes || r.Type == record.RelContradicts {
			sup = append(sup, r)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("rebuild indexes: read relations: %w", err)
	}
	for _, r := range sup {
		doc, err := eng.DocNumOf(ctx, r.To)
		if err != nil {
			return fmt.Errorf("rebuild indexes: relation %s %s %s: %w", r.From, r.Type, r.To, err)
		}
		x.attrs.mark(r.Type, doc, r.From, true)
	}
	return nil
}

func parseDocKey(family cellar.Family, k []byte) (record.DocNum, error) {
	if len(k) != 4 {
		return 0, fmt.Errorf("%s key %x is not a 4-byte doc number: %w", family, k, record.ErrCorrupt)
	}
	return record.DocNum(binary.BigEndian.Uint32(k)), nil
}

func (x *indexSet) loadDense(ctx context.Context, eng *cellar.Store, c column, stale bool, want int) error {
	var docs []record.DocNum
	var vecs [][]float32
	err := eng.Scan(ctx, c.family, nil, func(k, v []byte) error {
		doc, err := parseDocKey(c.family, k)
		if err != nil {
			return err
		}
		vec, err := c.fromStored(v)
		if err != nil {
			return fmt.Errorf("%s/%d: %w", c.family, doc, err)
		}
		x.has[c.slot.Index()].Add(uint32(doc))
		if c.keepStored != nil {
			if err := c.keepStored(x, doc, v); err != nil {
				return fmt.Errorf("%s/%d: %w", c.family, doc, err)
			}
		}
		if len(vec) == 0 {
			return nil // an E11 set without a vector
		}
		docs, vecs = append(docs, record.DocNum(doc)), append(vecs, vec)
		return nil
	})
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", c.family, err)
	}
	if len(docs) == 0 {
		return nil
	}
	if docs, vecs, err = oneDim(c, docs, vecs, stale, want); err != nil {
		return err
	}
	d, err := x.denseSpaceLocked(c.space(), len(vecs[0]), true)
	if err != nil {
		return err
	}
	if err := d.Build(docs, vecs); err != nil {
		return fmt.Errorf("rebuild %s: %w", c.family, err)
	}
	return nil
}

func (x *indexSet) loadM128(ctx context.Context, eng *cellar.Store) error {
	const family = cellar.FamE1Matryoshka128
	var docs []record.DocNum
	var vecs [][]float32
	err := eng.Scan(ctx, family, nil, func(k, v []byte) error {
		doc, err := parseDocKey(family, k)
		if err != nil {
			return err
		}
		vec, err := decodeVector(v)
		if err != nil {
			return fmt.Errorf("%s/%d: %w", family, doc, err)
		}
		docs, vecs = append(docs, record.DocNum(doc)), append(vecs, vec)
		return nil
	})
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", family, err)
	}
	return x.m128.Build(docs, vecs)
}

func (x *indexSet) loadPostings(ctx context.Context, eng *cellar.Store, pf postingFamily) error {
	byDoc := map[record.DocNum]*docPostings{}
	var order []record.DocNum
	st, err := scanPostings(ctx, eng, pf, func(_, term []byte, doc record.DocNum, v []byte, keyErr error) error {
		if keyErr != nil {
			return fmt.Errorf("%s: %w", pf.family, keyErr)
		}
		p := byDoc[doc]
		if p == nil {
			p = &docPostings{}
			byDoc[doc] = p
			order = append(order, doc)
		}
		p.terms = append(p.terms, term)
		p.vals = append(p.vals, v)
		return nil
	})
	if err == nil {
		err = st.err // a statistic that does not decode
	}
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", pf.family, err)
	}
	if uint64(len(byDoc)) != st.docs {
		return fmt.Errorf("rebuild %s: postings of %d documents, statistics say %d: %w", pf.family, len(byDoc), st.docs, record.ErrCorrupt)
	}
	docs := make([]record.DocNum, 0, len(order))
	var total uint64
	switch pf.slot {
	case fingerprint.E6:
		tfs := make([]fingerprint.TermFreqs, 0, len(order))
		for _, d := range order {
			tf, err := termFreqsOf(*byDoc[d])
			if err != nil {
				return fmt.Errorf("rebuild %s doc %d: %w", pf.family, d, err)
			}
			total += tf.DocLen()
			docs, tfs = append(docs, record.DocNum(d)), append(tfs, tf)
			x.has[pf.slot.Index()].Add(uint32(d))
		}
		if err := x.bm25.Build(docs, tfs); err != nil {
			return fmt.Errorf("rebuild %s: %w", pf.family, err)
		}
	case fingerprint.E13:
		sps := make([]fingerprint.Sparse, 0, len(order))
		for _, d := range order {
			sp, err := sparseOf(*byDoc[d])
			if err != nil {
				return fmt.Errorf("rebuild %s doc %d: %w", pf.family, d, err)
			}
			total += uint64(len(sp.Indices))
			docs, sps = append(docs, record.DocNum(d)), append(sps, sp)
			x.has[pf.slot.Index()].Add(uint32(d))
		}
		if err := x.splade.Build(docs, sps); err != nil {
			return fmt.Errorf("rebuild %s: %w", pf.family, err)
		}
	}
	if total != st.length {
		return fmt.Errorf("rebuild %s: postings sum to length %d, statistics say %d: %w", pf.family, total, st.length, record.ErrCorrupt)
	}
	return nil
}

// loadE12 notes which docs have a token matrix and its width, reading only
// each value's header (version byte, uvarint dim).
func (x *indexSet) loadE12(ctx context.Context, eng *cellar.Store) error {
	const family = cellar.FamE12LateInteraction
	return eng.Scan(ctx, family, nil, func(k, v []byte) error {
		doc, err := parseDocKey(family, k)
		if err != nil {
			return err
		}
		if len(v) < 2 {
			return fmt.Errorf("%s/%d: %d bytes: %w", family, doc, len(v), record.ErrCorrupt)
		}
		dim, n := binary.Uvarint(v[1:])
		if n <= 0 || dim == 0 || dim > maxDim {
			return fmt.Errorf("%s/%d: bad token width: %w", family, doc, record.ErrCorrupt)
		}
		if x.e12Dim == 0 {
			x.e12Dim = int(dim)
		} else if int(dim) != x.e12Dim {
			return fmt.Errorf("%s/%d: tokens %d wide, others %d: %w", family, doc, dim, x.e12Dim, record.ErrCorrupt)
		}
		x.has[fingerprint.E12.Index()].Add(uint32(doc))
		return nil
	})
}

// oneDim checks that a space's vectors share one dimension. For a stale slot
// it keeps those of dims want (or the most common dims) instead of failing.
func oneDim(c column, docs []record.DocNum, vecs [][]float32, stale bool, want int) ([]record.DocNum, [][]float32, error) {
	count := map[int]int{}
	for _, v := range vecs {
		count[len(v)]++
	}
	if len(count) == 1 {
		return docs, vecs, nil
	}
	if !stale {
		return nil, nil, fmt.Errorf("rebuild %s: vectors of %d different dims in a slot whose producer did not change: %w", c.family, len(count), record.ErrCorrupt)
	}
	keep := want
	if count[keep] == 0 {
		for d, n := range count {
			if n > count[keep] || (n == count[keep] && d > keep) {
				keep = d
			}
		}
	}
	var ds []record.DocNum
	var vs [][]float32
	for i, v := range vecs {
		if len(v) == keep {
			ds, vs = append(ds, docs[i]), append(vs, v)
		}
	}
	return ds, vs, nil
}
