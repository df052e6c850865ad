package engine

import (
	"context"
	"hash/fnv"
	"math"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/fingerprint"
)

// hashEmbedder is a deterministic stand-in for the model-backed slots that
// have no model on this machine (E5, E8, E10, E12, E13, the E11 vector) so
// that the store's code paths for pairs, token matrices and sparse vectors
// run in tests. It hashes word trigrams of characters into small vectors;
// it claims no retrieval quality and is used for code paths only.
type hashEmbedder struct {
	slot fingerprint.SlotID
	dim  int
	tag  string // changes the producer (and the values), for mismatch tests
}

func (h hashEmbedder) producer() fingerprint.Producer {
	return embedders.ModelFree("test/hash-"+h.slot.String()+h.tag, h.dim)
}

func (h hashEmbedder) Slot() fingerprint.SlotID { return h.slot }

func (h hashEmbedder) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusPresent, Producer: h.producer(), Dims: h.dim, Representation: "test hash vectors"}
}

// vec hashes character trigrams of text (salted) into a unit vector.
func (h hashEmbedder) vec(text, salt string) []float32 {
	v := make([]float32, h.dim)
	t := strings.ToLower(text)
	for i := 0; i+3 <= len(t); i++ {
		f := fnv.New32a()
		f.Write([]byte(salt + h.tag + t[i:i+3]))
		x := f.Sum32()
		sign := float32(1)
		if x&1 == 1 {
			sign = -1
		}
		v[int(x>>1)%h.dim] += sign
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0] = 1
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

func (h hashEmbedder) value(text string) fingerprint.Value {
	switch h.slot.Kind() {
	case fingerprint.KindPair:
		return fingerprint.Pair{A: h.vec(text, "a"), B: h.vec(text, "b")}
	case fingerprint.KindTokens:
		words := strings.Fields(text)
		if len(words) > 8 {
			words = words[:8]
		}
		var data []float32
		for _, w := range words {
			data = append(data, h.vec(w, "t")...)
		}
		if len(data) == 0 {
			data = h.vec(text, "t")
		}
		return fingerprint.Tokens{Dim: uint32(h.dim), Data: data}
	case fingerprint.KindSparse:
		d := h.vec(text, "s")
		var sp fingerprint.Sparse
		for i, x := range d {
			if x > 0 {
				sp.Indices = append(sp.Indices, uint32(i))
				sp.Weights = append(sp.Weights, x)
			}
		}
		return sp
	case fingerprint.KindEntities:
		return nil // handled in EmbedDocuments
	}
	return fingerprint.Dense(h.vec(text, ""))
}

func (h hashEmbedder) EmbedDocuments(_ context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	for i, d := range docs {
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: h.producer(), Value: h.value(d.Text)}
	}
	return out, nil
}

func (h hashEmbedder) EmbedQuery(_ context.Context, q embedders.Query) (embedders.QueryView, error) {
	v := h.value(q.Text)
	if p, ok := v.(fingerprint.Pair); ok {
		as, err := embedders.QuerySide(h.slot, q)
		if err != nil {
			return embedders.QueryView{}, err
		}
		return embedders.QueryView{Slot: h.slot, Value: fingerprint.Dense(p.Get(as))}, nil
	}
	return embedders.QueryView{Slot: h.slot, Value: v}, nil
}

// fullRegistry is the model-free registry plus hash embedders for E1, E5, E7,
// E8, E10, E12 and E13: every family of the store gets written.
func fullRegistry(tag string) (*embedders.Registry, error) {
	var extra []embedders.Embedder
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E8, fingerprint.E10, fingerprint.E12, fingerprint.E13} {
		dim := 16
		if s == fingerprint.E1 {
			dim = 160 // long enough for the Matryoshka-128 view
		}
		extra = append(extra, hashEmbedder{slot: s, dim: dim, tag: tag})
	}
	return modelfree.Registry(modelfree.Config{}, extra...)
}
