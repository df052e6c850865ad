package embedders_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// TestDirectionPlan pins AP-77's direction: looking for causes, the query is
// embedded as an effect and searches the stored cause vectors.
func TestDirectionPlan(t *testing.T) {
	A, B := fingerprint.SideA, fingerprint.SideB
	cases := []struct {
		d                embedders.Direction
		slot             fingerprint.SlotID
		against, queryAs fingerprint.Side
		err              string
	}{
		{embedders.FindCauses, fingerprint.E5, A, B, ""},
		{embedders.FindEffects, fingerprint.E5, B, A, ""},
		{embedders.FindSources, fingerprint.E8, A, B, ""},
		{embedders.FindTargets, fingerprint.E8, B, A, ""},
		{embedders.FindIntents, fingerprint.E10, A, B, ""},
		{embedders.FindContexts, fingerprint.E10, B, A, ""},
		{embedders.DirectionDefault, fingerprint.E5, A, B, ""},
		{embedders.DirectionDefault, fingerprint.E10, B, A, ""},
		{embedders.DirectionDefault, fingerprint.E1, 0, 0, ""},
		{embedders.FindCauses, fingerprint.E8, 0, 0, "E8 takes [sources targets]"},
		{embedders.FindEffects, fingerprint.E1, 0, 0, "symmetric"},
		{embedders.Direction(99), fingerprint.E5, 0, 0, "does not apply"},
	}
	for _, c := range cases {
		against, queryAs, err := c.d.Plan(c.slot)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s on %s: error %v, want %q", c.d, c.slot, err, c.err)
			}
			continue
		}
		if err != nil || against != c.against || queryAs != c.queryAs {
			t.Errorf("%s on %s: against %d, query as %d, %v; want %d, %d", c.d, c.slot, against, queryAs, err, c.against, c.queryAs)
		}
	}
	if a, b, _ := fingerprint.PairRoles(fingerprint.E5); a != "cause" || b != "effect" {
		t.Errorf("E5 roles %s/%s", a, b)
	}
}

// broken returns the wrong number of entries or values of the wrong kind.
type broken struct {
	slot  fingerprint.SlotID
	short bool
}

func (b broken) Slot() fingerprint.SlotID { return b.slot }
func (b broken) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusPresent}
}
func (b broken) EmbedQuery(context.Context, embedders.Query) (embedders.QueryView, error) {
	return embedders.QueryView{}, nil
}
func (b broken) EmbedDocuments(_ context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	if b.short {
		return nil, nil
	}
	out := make([]fingerprint.Entry, len(docs))
	for i := range out {
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Value: fingerprint.Dense{1}}
	}
	return out, nil
}

func TestRegistryRejectsBrokenEmbedders(t *testing.T) {
	if _, err := embedders.NewRegistry(broken{slot: fingerprint.E1}, broken{slot: fingerprint.E1}); err == nil {
		t.Error("two E1 embedders accepted")
	}
	if _, err := embedders.NewRegistry(broken{slot: 0}); err == nil {
		t.Error("invalid slot accepted")
	}
	r, err := embedders.NewRegistry(broken{slot: fingerprint.E6}, broken{slot: fingerprint.E7, short: true})
	if err != nil {
		t.Fatal(err)
	}
	fps, err := r.EmbedDocuments(context.Background(), []embedders.Input{{Text: "x"}})
	if fps != nil || err == nil || !strings.Contains(err.Error(), "E6 stores term_freqs values, got dense") ||
		!strings.Contains(err.Error(), "E7: 0 entries for 1 documents") {
		t.Errorf("got %v, %v; want both slot errors and no fingerprints", fps, err)
	}
	if st := r.Get(fingerprint.E2).Status(); st.State != fingerprint.StatusUnavailable || !strings.Contains(st.Reason, "no embedder registered") {
		t.Errorf("unregistered slot: %+v", st)
	}
	if _, err := r.Get(fingerprint.E2).EmbedQuery(context.Background(), embedders.Query{}); err == nil {
		t.Error("unavailable slot answered a query")
	}
}

func TestModelFreeProducer(t *testing.T) {
	a := embedders.ModelFree("x/v1", 3, "UTC")
	b := embedders.ModelFree("x/v1", 3, "Europe/Berlin")
	c := embedders.ModelFree("x/v1", "3UTC")
	if a == b || a == c || a.Model != "x/v1" || a != embedders.ModelFree("x/v1", 3, "UTC") {
		t.Errorf("producers not distinct or not stable: %v %v %v", a, b, c)
	}
}
