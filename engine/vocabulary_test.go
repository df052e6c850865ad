package engine

import (
	"slices"
	"testing"
)

// TestLeadingSlots: the slots a single-embedder search can lead are every
// slot but the temporal badges E2–E4 and the reranker E12, in slot order.
func TestLeadingSlots(t *testing.T) {
	var got []string
	for _, s := range LeadingSlots() {
		got = append(got, s.String())
	}
	want := []string{"E1", "E5", "E6", "E7", "E8", "E9", "E10", "E11", "E13"}
	if !slices.Equal(got, want) {
		t.Errorf("LeadingSlots = %v, want %v", got, want)
	}
}
