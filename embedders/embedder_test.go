package embedders_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// TestQuerySide: an asymmetric slot needs the side the query is embedded
// as, a symmetric slot refuses one. (Which side a direction embeds the query
// as — AP-77, seeking causes embeds it as an effect — is decided and pinned
// in package pipeline, View.Sides.)
func TestQuerySide(t *testing.T) {
	A, B := fingerprint.SideA, fingerprint.SideB
	cases := []struct {
		slot fingerprint.SlotID
		as   fingerprint.Side
		err  string
	}{
		{fingerprint.E5, B, ""},
		{fingerprint.E8, A, ""},
		{fingerprint.E10, A, ""},
		{fingerprint.E1, 0, ""},
		{fingerprint.E5, 0, "say whether the query is embedded as cause or effect"},
		{fingerprint.E8, fingerprint.Side(7), "source or target"},
		{fingerprint.E1, A, "symmetric"},
	}
	for _, c := range cases {
		got, err := embedders.QuerySide(c.slot, embedders.Query{As: c.as})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s as %d: error %v, want %q", c.slot, c.as, err, c.err)
			}
			continue
		}
		if err != nil || got != c.as {
			t.Errorf("%s as %d: %d, %v", c.slot, c.as, got, err)
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
