package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// A postingFamily is an inverted family (E6 BM25 term counts, E13 SPLADE
// weights): one key per (term, doc) and two statistics keys kept current in
// the same batch as every add and delete (see codec.go for the layout).
type postingFamily struct {
	family cellar.Family
	slot   fingerprint.SlotID
	// postings lists a slot value's terms and posting values, and its length
	// for the statistics (E6: Σ counts, the BM25 document length; E13: number
	// of non-zero weights). ok is false when the value has no postings.
	postings func(v fingerprint.Value) (terms, vals [][]byte, length uint64, ok bool)
}

var postingFamilies = []postingFamily{
	{family: cellar.FamE6SparseInverted, slot: fingerprint.E6,
		postings: func(v fingerprint.Value) ([][]byte, [][]byte, uint64, bool) {
			tf, ok := v.(fingerprint.TermFreqs)
			if !ok || len(tf.Terms) == 0 {
				return nil, nil, 0, false
			}
			terms, vals := make([][]byte, len(tf.Terms)), make([][]byte, len(tf.Terms))
			for i, t := range tf.Terms {
				terms[i] = []byte(t)
				vals[i] = binary.AppendUvarint(nil, uint64(tf.Counts[i]))
			}
			return terms, vals, tf.DocLen(), true
		}},
	{family: cellar.FamE13SpladeInverted, slot: fingerprint.E13,
		postings: func(v fingerprint.Value) ([][]byte, [][]byte, uint64, bool) {
			sp, ok := v.(fingerprint.Sparse)
			if !ok || len(sp.Indices) == 0 {
				return nil, nil, 0, false
			}
			terms, vals := make([][]byte, len(sp.Indices)), make([][]byte, len(sp.Indices))
			for i, ix := range sp.Indices {
				terms[i] = spladeTerm(ix)
				vals[i] = binary.LittleEndian.AppendUint32(nil, math.Float32bits(sp.Weights[i]))
			}
			return terms, vals, uint64(len(sp.Indices)), true
		}},
}

// write adds (sign +1) or removes (sign -1) the postings of one doc's slot
// value and adjusts the family's statistics in b, which sees the batch's
// earlier changes.
func (pf postingFamily) write(b *cellar.Batch, doc record.DocNum, v fingerprint.Value, sign int) error {
	terms, vals, length, ok := pf.postings(v)
	if !ok {
		return nil
	}
	for i, t := range terms {
		if sign > 0 {
			b.PutOwned(pf.family, postingKey(t, doc), vals[i]) // made by pf.postings for this write
		} else {
			b.Del(pf.family, postingKey(t, doc))
		}
	}
	return pf.adjustStats(b, 1, length, sign, false)
}

// adjustStats adds (sign > 0) or removes docs documents of length terms in
// all to the family's BM25 statistics (document count, summed length). A
// removal below zero is corruption, unless clamp: a salvaging delete of a
// damaged memory then stops the counts at zero.
func (pf postingFamily) adjustStats(b *cellar.Batch, docs, length uint64, sign int, clamp bool) error {
	for _, st := range []struct {
		key   []byte
		delta uint64
	}{{statDocsKey, docs}, {statLengthKey, length}} {
		cur, found, err := b.Get(pf.family, st.key)
		if err != nil {
			return err
		}
		var n uint64
		if found {
			if n, err = decodeU64(cur); err != nil {
				return fmt.Errorf("%s/%s: %w", pf.family, st.key, err)
			}
		}
		switch {
		case sign > 0:
			n += st.delta
		case n < st.delta && !clamp:
			return fmt.Errorf("%s/%s is %d, below the %d a delete removes: %w", pf.family, st.key, n, st.delta, record.ErrCorrupt)
		default:
			n -= min(n, st.delta)
		}
		b.Put(pf.family, st.key, encodeU64(n))
	}
	return nil
}

// docPostings collects one doc's postings during a family scan.
type docPostings struct {
	terms [][]byte
	vals  [][]byte
}

// termFreqsOf rebuilds an E6 value from its postings.
func termFreqsOf(p docPostings) (fingerprint.TermFreqs, error) {
	idx := sortedOrder(p.terms)
	tf := fingerprint.TermFreqs{Terms: make([]string, len(idx)), Counts: make([]uint32, len(idx))}
	for j, i := range idx {
		c, n := binary.Uvarint(p.vals[i])
		if n != len(p.vals[i]) || c == 0 || c > math.MaxUint32 {
			return tf, fmt.Errorf("E6 posting value %x: %w", p.vals[i], record.ErrCorrupt)
		}
		tf.Terms[j], tf.Counts[j] = string(p.terms[i]), uint32(c)
	}
	return tf, nil
}

// sparseOf rebuilds an E13 value from its postings.
func sparseOf(p docPostings) (fingerprint.Sparse, error) {
	idx := sortedOrder(p.terms)
	sp := fingerprint.Sparse{Indices: make([]uint32, len(idx)), Weights: make([]float32, len(idx))}
	for j, i := range idx {
		if len(p.terms[i]) != 4 || len(p.vals[i]) != 4 {
			return sp, fmt.Errorf("E13 posting term %x value %x: %w", p.terms[i], p.vals[i], record.ErrCorrupt)
		}
		sp.Indices[j] = binary.BigEndian.Uint32(p.terms[i])
		sp.Weights[j] = math.Float32frombits(binary.LittleEndian.Uint32(p.vals[i]))
	}
	return sp, nil
}

func sortedOrder(terms [][]byte) []int {
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return compareBytes(terms[a], terms[b]) })
	return idx
}

func compareBytes(a, b []byte) int {
	return slices.Compare(a, b)
}

// postingStats are a posting family's stored statistics: documents with
// postings and Σ document lengths. err names a value that did not decode
// (the count is then 0).
type postingStats struct {
	docs, length uint64
	err          error
}

// scanPostings reads a posting family in one pass: the statistics into the
// returned postingStats, every posting to fn with its parsed term and doc,
// or keyErr when its key does not parse. The rebuild, Check and
// RepairPostings all read the family through it.
func scanPostings(ctx context.Context, eng *cellar.Store, pf postingFamily, fn func(k, term []byte, doc record.DocNum, v []byte, keyErr error) error) (postingStats, error) {
	var st postingStats
	err := eng.Scan(ctx, pf.family, nil, func(k, v []byte) error {
		if len(k) > 0 && k[0] == statPrefix {
			n, err := decodeU64(v)
			if err != nil {
				st.err = errors.Join(st.err, fmt.Errorf("%s/%s: %w", pf.family, k, err))
			}
			switch string(k) {
			case string(statDocsKey):
				st.docs = n
			case string(statLengthKey):
				st.length = n
			}
			return nil
		}
		term, doc, err := parsePostingKey(k)
		if err != nil {
			return fn(k, nil, 0, v, err)
		}
		return fn(k, term, doc, v, nil)
	})
	return st, err
}

// dropDocPostings removes every posting of doc from pf's family in b and
// takes it out of the statistics, without its fingerprint: what Delete does
// when the fingerprint does not read. Cost: one scan of the family.
func dropDocPostings(ctx context.Context, eng *cellar.Store, b *cellar.Batch, pf postingFamily, doc record.DocNum) error {
	var length uint64
	n := 0
	if _, err := scanPostings(ctx, eng, pf, func(k, _ []byte, d record.DocNum, v []byte, keyErr error) error {
		if keyErr != nil || d != doc {
			return nil
		}
		n++
		b.Del(pf.family, slices.Clone(k))
		length++ // E13: one per non-zero weight
		if c, _ := binary.Uvarint(v); pf.slot == fingerprint.E6 && c > 0 {
			length += c - 1 // E6: Σ counts
		}
		return nil
	}); err != nil {
		return fmt.Errorf("find the postings of doc %d in %s: %w", doc, pf.family, err)
	}
	if n == 0 {
		return nil
	}
	return pf.adjustStats(b, 1, length, -1, true)
}
