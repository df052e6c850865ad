package ops

import "github.com/cgraph/cgraph/engine"

// EmbedderRow is one embedder slot as `cgraph embedders --json` reports
// it: the model or algorithm that fills it, whether it is ready, and with
// a store its index, size, recorded producer and pending deferred values.
type EmbedderRow struct {
	Slot   string `json:"slot"`
	Name   string `json:"name"`
	Status string `json:"status"` // ready, fallback or unavailable
	Reason string `json:"reason"` // why a slot is unavailable or which fallback it uses
	Model  string `json:"model"`  // model id, or the algorithm of a model-free slot; "" when unavailable
	// Device is the execution provider the slot's model runs on ("cpu",
	// "cuda", "cpu (fallback: …)", "… (not loaded yet)"); "" for a model-free
	// slot.
	Device         string `json:"device"`
	Producer       string `json:"producer"`
	Dims           int    `json:"dims"`
	Representation string `json:"representation"`
	Index          string `json:"index"` // "-" without a store
	Docs           int    `json:"docs"`
	RAMBytes       int64  `json:"ram_bytes"`
	// Stored is the producer recorded in the store for the slot ("" when
	// none or without a store); StoredDiffers says it is not the installed
	// one (also when "" is stored and a model is installed now), so the
	// slot needs `cgraph reembed --slot`.
	Stored        string `json:"stored"`
	StoredDiffers bool   `json:"stored_differs"`
	// Pending counts the memories whose value of the slot a deferred write
	// (add --defer, serve --defer-slots) has not filled yet.
	Pending int `json:"pending"`
}

// RegistryRows describes slots from their embedders alone (no store).
func RegistryRows(sts []engine.SlotReadiness) []EmbedderRow {
	rows := make([]EmbedderRow, 0, len(sts))
	for i, st := range sts {
		rows = append(rows, statusRow(engine.Slots()[i], st))
	}
	return rows
}

// StoreRows describes slots of an open store; Pending is the caller's to
// fill (engine.PendingBySlot).
func StoreRows(infos []engine.SlotInfo) []EmbedderRow {
	rows := make([]EmbedderRow, 0, len(infos))
	for _, si := range infos {
		r := statusRow(si.Slot, si.Status)
		r.Index, r.Docs, r.RAMBytes = si.Index, si.Docs, si.RAMBytes
		if si.Stored != (engine.Producer{}) {
			r.Stored = si.Stored.String()
		}
		// A slot recorded as "nothing" that has a producer now differs too:
		// the store's memories have no value of it.
		r.StoredDiffers = si.Stored != si.Status.Producer
		rows = append(rows, r)
	}
	return rows
}

func statusRow(slot engine.SlotID, st engine.SlotReadiness) EmbedderRow {
	r := EmbedderRow{Slot: slot.String(), Name: slot.Info().Name, Status: statusWord(st.State), Reason: st.Reason,
		Dims: st.Dims, Representation: st.Representation, Index: "-", Device: st.Device}
	if st.Producer != (engine.Producer{}) {
		r.Model, r.Producer = st.Producer.Model, st.Producer.String()
	}
	return r
}

// statusWord is the word the slot reports use for a slot state:
// ready, fallback or unavailable.
func statusWord(s engine.SlotStatus) string {
	switch s {
	case engine.SlotPresent:
		return "ready"
	case engine.SlotFallback:
		return "fallback"
	}
	return "unavailable"
}
