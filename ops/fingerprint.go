package ops

import "github.com/cgraph/cgraph/engine"

// FingerprintSlot is one slot of a memory's stored fingerprint in its one
// wire form: what `cgraph get --fingerprint --json` prints for each stored
// slot. The MCP tools (store_memory and get_memory with fingerprint: true)
// list every slot in its compact view, CompactSlot.
type FingerprintSlot struct {
	Slot     string  `json:"slot"`
	Status   string  `json:"status"` // present, fallback or unavailable; missing: never computed
	Note     string  `json:"note"`
	Producer string  `json:"producer"` // model@sha256 prefix; "" when none made it
	Model    string  `json:"model"`
	Kind     string  `json:"kind"`
	Dims     int     `json:"dims"`
	Norm     float64 `json:"norm"`
	NormB    float64 `json:"norm_b"` // side B of a pair (E5 effect, E8 target, E10 context)
	NNZ      int     `json:"nnz"`
	Tokens   int     `json:"tokens"`
}

// FingerprintOf is fp slot by slot in its wire form, in slot order: the
// stored slots (not missing) with their summary (kind, dims, norms,
// non-zeros, tokens), and with all the missing ones too, status and
// producer only. The slice is never nil. Cost O(size of fp).
func FingerprintOf(fp *engine.Fingerprint, all bool) []FingerprintSlot {
	sums := map[engine.SlotID]engine.SlotSummary{}
	for _, ss := range fp.Summary() {
		sums[ss.Slot] = ss
	}
	out := make([]FingerprintSlot, 0, len(engine.Slots()))
	for _, s := range engine.Slots() {
		ss, stored := sums[s]
		if !stored && !all {
			continue
		}
		e := fp.Get(s)
		w := FingerprintSlot{Slot: s.String(), Status: e.Status.String(), Note: e.Note, Model: e.Producer.Model}
		if e.Producer != (engine.Producer{}) {
			w.Producer = e.Producer.String()
		}
		if stored {
			w.Kind, w.Dims, w.Norm, w.NormB, w.NNZ, w.Tokens = ss.Kind.String(), ss.Dims, ss.Norm, ss.NormB, ss.NNZ, ss.Tokens
		}
		out = append(out, w)
	}
	return out
}

// CompactSlot is a fingerprint slot's compact view, what an agent's
// context pays for: slot, status, and the kind, dims, non-zeros, note and
// producer when there are any; no norms, model or token count.
type CompactSlot struct {
	Slot     string `json:"slot"`
	Status   string `json:"status"`
	Kind     string `json:"kind,omitempty"`
	Dims     int    `json:"dims,omitempty"`
	NNZ      int    `json:"nnz,omitempty"`
	Note     string `json:"note,omitempty"`
	Producer string `json:"producer,omitempty"`
}

// Compact is s's compact view.
func (s FingerprintSlot) Compact() CompactSlot {
	return CompactSlot{Slot: s.Slot, Status: s.Status, Kind: s.Kind, Dims: s.Dims, NNZ: s.NNZ, Note: s.Note, Producer: s.Producer}
}

// CompactFingerprint is every slot of fp, E1 … E13, in its compact view.
func CompactFingerprint(fp *engine.Fingerprint) []CompactSlot {
	var out []CompactSlot
	for _, s := range FingerprintOf(fp, true) {
		out = append(out, s.Compact())
	}
	return out
}
