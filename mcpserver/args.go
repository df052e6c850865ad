package mcpserver

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// Limits of the search tools.
const (
	defaultTopK = 10
	maxTopK     = 100
)

// argError is a bad argument: which one, what was wrong, how to fix it.
type argError struct {
	Arg, Problem, Fix string
}

func (e *argError) Error() string {
	return fmt.Sprintf("argument %q: %s: %s", e.Arg, e.Problem, e.Fix)
}

func badArg(arg, fix, format string, a ...any) error {
	return &argError{Arg: arg, Problem: fmt.Sprintf(format, a...), Fix: fix}
}

func parseID(arg, s string) (record.ID, error) {
	id, err := record.ParseID(strings.TrimSpace(s))
	if err != nil {
		return id, badArg(arg, "give the 36-character UUID returned by store_memory or a search result, e.g. 0191e0a2-7c3b-7d4e-9f00-1234567890ab", "%q is not a memory id", s)
	}
	return id, nil
}

func topK(k int) (int, error) {
	switch {
	case k == 0:
		return defaultTopK, nil
	case k < 1 || k > maxTopK:
		return 0, badArg("top_k", fmt.Sprintf("give a number from 1 to %d, or leave it out for %d", maxTopK, defaultTopK), "%d is out of range", k)
	}
	return k, nil
}

func requireQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return badArg("query", "give the text to search for, e.g. \"why did the build fail\"", "is empty")
	}
	return nil
}

// retrievingSlots are the slots a single-embedder search can lead: all but
// the temporal badges E2–E4 and the reranker E12.
func retrievingSlots() []fingerprint.SlotID {
	var out []fingerprint.SlotID
	for _, s := range fingerprint.Slots() {
		if s.CanLead() {
			out = append(out, s)
		}
	}
	return out
}

func slotNames(ss []fingerprint.SlotID) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = fmt.Sprintf("%s (%s)", s, s.Info().Name)
	}
	return strings.Join(names, ", ")
}

func parseSlot(arg, s string) (fingerprint.SlotID, error) {
	slot, err := fingerprint.ParseSlot(s)
	if err != nil {
		return 0, badArg(arg, "give one of "+slotNames(fingerprint.Slots()), "%v", err)
	}
	return slot, nil
}

func parseRetrievingSlot(arg, s string) (fingerprint.SlotID, error) {
	slot, err := parseSlot(arg, s)
	if err != nil {
		return 0, err
	}
	if !slot.CanLead() {
		return 0, badArg(arg, "give one of "+slotNames(retrievingSlots())+"; for time use search_recent, search_periodic or get_session_timeline",
			"%s cannot lead a search: E2–E4 only order or badge results and E12 only reranks", slot)
	}
	return slot, nil
}

func parseDirection(s string) (pipeline.Direction, error) {
	d, err := pipeline.ParseDirection(s)
	if err != nil {
		return 0, badArg("direction", `give "causes" (the query describes an effect), "effects" (it describes a cause) or leave it out`, "%v", err)
	}
	return d, nil
}

// resolveProfile is the named profile (default semantic_search) with the
// per-slot weight overrides applied.
func resolveProfile(name string, weights map[string]float64) (profiles.Profile, error) {
	if name == "" {
		name = profiles.Default
	}
	p, err := profiles.Lookup(name)
	if err != nil {
		return p, badArg("profile", "give one of "+strings.Join(profiles.Names(), ", "), "%v", err)
	}
	if len(weights) == 0 {
		return p, nil
	}
	keys := make([]string, 0, len(weights))
	for k := range weights {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ovs := make([]string, len(keys))
	for i, k := range keys {
		ovs[i] = k + "=" + strconv.FormatFloat(weights[k], 'g', -1, 64)
	}
	parsed, err := profiles.ParseOverrides(ovs)
	if err != nil {
		return p, badArg("weights", `give slot names with weights in [0, 1], e.g. {"E5": 0.6, "E7": 0.2}`, "%v", err)
	}
	if p, err = p.WithOverrides(parsed...); err != nil {
		return p, badArg("weights", "pinned weights must leave room for the others (sum ≤ 1) and temporal slots E2–E4 need a temporal profile such as temporal_navigation", "%v", err)
	}
	return p, nil
}

func parseTime(arg, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, badArg(arg, "give an RFC 3339 time such as 2026-03-01T14:30:00Z", "%q is not an RFC 3339 time", s)
	}
	return t, nil
}
