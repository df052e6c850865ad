package ops

import (
	"encoding/json"
	"testing"
)

// TestEmbedderRows: without a store every one of the 13 slots is reported
// with index "-" and a status word; the model-free slots of a store are
// ready, produced by what the store recorded, so none differs.
func TestEmbedderRows(t *testing.T) {
	e := openStore(t)
	reg := RegistryRows(e.Registry().Statuses())
	if len(reg) != 13 {
		t.Fatalf("%d registry rows, want 13", len(reg))
	}
	for _, r := range reg {
		if r.Index != "-" || r.Status != "ready" && r.Status != "fallback" && r.Status != "unavailable" {
			t.Errorf("registry row %+v", r)
		}
	}
	rows := StoreRows(e.Slots())
	ready := 0
	for _, r := range rows {
		if r.Status == "ready" {
			ready++
			if r.Model == "" || r.Producer == "" || r.StoredDiffers {
				t.Errorf("ready slot without model, producer or with a differing stored producer: %+v", r)
			}
		}
	}
	if len(rows) != 13 || ready == 0 {
		t.Errorf("%d store rows, %d ready; want 13 with the model-free ones ready", len(rows), ready)
	}
	raw, err := json.Marshal(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil || back["stored_differs"] == nil || back["ram_bytes"] == nil {
		t.Errorf("JSON form lost its fields: %s", raw)
	}
}
