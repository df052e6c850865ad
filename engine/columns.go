package engine

import (
	"fmt"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/record"
)

// A column is one per-doc derived family: which slot (and side) it holds,
// how a slot value becomes its stored value, and — for the dense spaces — how
// the vector its ANN index keeps is read back from either form. The table is
// keyed by slot: no switch over slots elsewhere.
type column struct {
	family cellar.Family
	slot   fingerprint.SlotID
	side   fingerprint.Side // the pair side a column of E5/E8/E10 holds; 0 otherwise
	// encode returns the family value for a slot value, or nil when the value
	// has nothing for this family (an E1 shorter than 128 dims has no
	// Matryoshka view; an E11 set without a vector still stores its set).
	encode func(v fingerprint.Value) ([]byte, error)
	// vector extracts the ANN vector from a slot value and fromStored from a
	// family value; both nil for columns without a dense space (M128 is a
	// flat scan, E12 stays on disk).
	vector     func(v fingerprint.Value) []float32
	fromStored func(b []byte) ([]float32, error)
	// keep indexes what else the index set holds of a value besides its
	// vector (E9 bits, E11 names), from a slot value or a stored one.
	// REQUIRES: x.mu held for writing.
	keep       func(x *indexSet, doc record.DocNum, v fingerprint.Value)
	keepStored func(x *indexSet, doc record.DocNum, b []byte) error
}

func denseOf(v fingerprint.Value) []float32 {
	if d, ok := v.(fingerprint.Dense); ok {
		return d
	}
	return nil
}

func sideOf(s fingerprint.Side) func(v fingerprint.Value) []float32 {
	return func(v fingerprint.Value) []float32 {
		if p, ok := v.(fingerprint.Pair); ok {
			return p.Get(s)
		}
		return nil
	}
}

func vectorColumn(family cellar.Family, slot fingerprint.SlotID, side fingerprint.Side) column {
	get := denseOf
	if side != 0 {
		get = sideOf(side)
	}
	return column{family: family, slot: slot, side: side,
		encode: func(v fingerprint.Value) ([]byte, error) {
			if x := get(v); len(x) > 0 {
				return encodeVector(x), nil
			}
			return nil, nil
		},
		vector: get, fromStored: decodeVector}
}

// columns are the per-doc families package memory writes, in engine table
// order. Posting families (E6, E13) are handled by postings.go.
var columns = []column{
	{family: cellar.FamE1Matryoshka128, slot: fingerprint.E1,
		encode: func(v fingerprint.Value) ([]byte, error) {
			if m := fingerprint.Matryoshka128(denseOf(v)); m != nil {
				return encodeVector(m), nil
			}
			return nil, nil
		}},
	vectorColumn(cellar.FamE1Semantic, fingerprint.E1, 0),
	vectorColumn(cellar.FamE5Cause, fingerprint.E5, fingerprint.SideA),
	vectorColumn(cellar.FamE5Effect, fingerprint.E5, fingerprint.SideB),
	vectorColumn(cellar.FamE7Code, fingerprint.E7, 0),
	vectorColumn(cellar.FamE8Source, fingerprint.E8, fingerprint.SideA),
	vectorColumn(cellar.FamE8Target, fingerprint.E8, fingerprint.SideB),
	{family: cellar.FamE9HDC, slot: fingerprint.E9,
		encode: func(v fingerprint.Value) ([]byte, error) {
			h, ok := v.(fingerprint.Hyper)
			if !ok {
				return nil, nil
			}
			return encodeHyper(h), nil
		},
		vector: func(v fingerprint.Value) []float32 {
			if h, ok := v.(fingerprint.Hyper); ok {
				return h.Projection
			}
			return nil
		},
		fromStored: func(b []byte) ([]float32, error) {
			h, err := decodeHyper(b)
			return h.Projection, err
		},
		keep: func(x *indexSet, doc record.DocNum, v fingerprint.Value) {
			if h, ok := v.(fingerprint.Hyper); ok {
				x.hyper.Put(doc, h.Bits)
			}
		},
		keepStored: func(x *indexSet, doc record.DocNum, b []byte) error {
			h, err := decodeHyper(b)
			if err == nil {
				x.hyper.Put(doc, h.Bits)
			}
			return err
		}},
	vectorColumn(cellar.FamE10Intent, fingerprint.E10, fingerprint.SideA),
	vectorColumn(cellar.FamE10Context, fingerprint.E10, fingerprint.SideB),
	{family: cellar.FamE11Entity, slot: fingerprint.E11,
		encode: func(v fingerprint.Value) ([]byte, error) {
			e, ok := v.(fingerprint.Entities)
			if !ok {
				return nil, nil
			}
			return encodeEntities(e), nil
		},
		vector: func(v fingerprint.Value) []float32 {
			if e, ok := v.(fingerprint.Entities); ok {
				return e.Vector
			}
			return nil
		},
		fromStored: func(b []byte) ([]float32, error) {
			e, err := decodeEntities(b)
			return e.Vector, err
		},
		keep: func(x *indexSet, doc record.DocNum, v fingerprint.Value) {
			if e, ok := v.(fingerprint.Entities); ok {
				x.names.Set(doc, e.Names)
			}
		},
		keepStored: func(x *indexSet, doc record.DocNum, b []byte) error {
			e, err := decodeEntities(b)
			if err == nil {
				x.names.Set(doc, e.Names)
			}
			return err
		}},
	{family: cellar.FamE12LateInteraction, slot: fingerprint.E12,
		encode: func(v fingerprint.Value) ([]byte, error) {
			t, ok := v.(fingerprint.Tokens)
			if !ok || t.Rows() == 0 {
				return nil, nil
			}
			b, err := indexes.AppendQuantized(nil, int(t.Dim), t.Data)
			if err != nil {
				return nil, fmt.Errorf("E12 token matrix: %w", err)
			}
			return b, nil
		}},
}

// spaceKey names one dense ANN space: a slot and, for pairs, the stored side.
type spaceKey struct {
	slot fingerprint.SlotID
	side fingerprint.Side
}

func (k spaceKey) String() string {
	if k.side == 0 {
		return k.slot.String()
	}
	a, b, _ := fingerprint.PairRoles(k.slot)
	if k.side == fingerprint.SideA {
		return k.slot.String() + " as-" + a
	}
	return k.slot.String() + " as-" + b
}

func (c column) space() spaceKey { return spaceKey{c.slot, c.side} }

// denseColumns are the columns with an ANN space.
func denseColumns() []column {
	var out []column
	for _, c := range columns {
		if c.vector != nil {
			out = append(out, c)
		}
	}
	return out
}
