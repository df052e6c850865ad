package engine

import (
	"github.com/cgraph/cgraph/embedders/hdc"
	"github.com/cgraph/cgraph/fingerprint"
)

// hyperStore keeps the E9 hypervectors in RAM, contiguously, for exact
// Hamming scoring of candidates: 1,256 bytes per memory. Loading them from
// e9_hdc per search cost 5 ms per 1,000 candidates (S3 scores ~1,000) on this
// machine kind, against ~0.3 ms from RAM; with it all in-memory indexes stay
// under the 6 KB-per-memory goal while E13 has no model (see the package
// doc). Deletes swap the last row into the hole. Not safe for concurrent use:
// indexSet.mu guards it.
type hyperStore struct {
	words []uint64 // row r is words[r*HyperWords : (r+1)*HyperWords]
	docs  []uint32 // doc of each row
	rowOf []int32  // doc → row+1; 0 = absent
}

func (h *hyperStore) put(doc uint32, bits []uint64) {
	if len(bits) != fingerprint.HyperWords {
		return
	}
	if int(doc) >= len(h.rowOf) {
		h.rowOf = append(h.rowOf, make([]int32, int(doc)+1-len(h.rowOf))...)
	}
	if r := h.rowOf[doc]; r > 0 {
		copy(h.row(int(r-1)), bits)
		return
	}
	h.words = append(h.words, bits...)
	h.docs = append(h.docs, doc)
	h.rowOf[doc] = int32(len(h.docs))
}

func (h *hyperStore) row(r int) []uint64 {
	return h.words[r*fingerprint.HyperWords : (r+1)*fingerprint.HyperWords]
}

// get returns doc's bits (aliasing the store) or nil.
func (h *hyperStore) get(doc uint32) []uint64 {
	if int(doc) >= len(h.rowOf) || h.rowOf[doc] == 0 {
		return nil
	}
	return h.row(int(h.rowOf[doc] - 1))
}

func (h *hyperStore) remove(doc uint32) {
	if int(doc) >= len(h.rowOf) || h.rowOf[doc] == 0 {
		return
	}
	r, last := int(h.rowOf[doc]-1), len(h.docs)-1
	if r != last {
		copy(h.row(r), h.row(last))
		h.docs[r] = h.docs[last]
		h.rowOf[h.docs[r]] = int32(r + 1)
	}
	h.words = h.words[:last*fingerprint.HyperWords]
	h.docs = h.docs[:last]
	h.rowOf[doc] = 0
}

func (h *hyperStore) similarity(doc uint32, q []uint64) (float64, bool) {
	b := h.get(doc)
	if b == nil {
		return 0, false
	}
	return hdc.Similarity(q, b), true
}

func (h *hyperStore) bytes() int64 {
	return int64(8*len(h.words) + 4*len(h.docs) + 4*len(h.rowOf))
}
