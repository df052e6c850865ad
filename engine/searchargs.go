package engine

import (
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// SearchArgs are the arguments that shape a search as a face received them,
// unparsed: the one parse of the CLI's search flags and the MCP search
// tools' arguments, so that both take the same values by the same rules and
// refuse bad ones in the same words. It opens nothing and must not grow
// face-specific rules (an MCP tool that takes no embedder refuses
// embedder_first itself).
type SearchArgs struct {
	Profile     string   // a built-in profile; "" is DefaultProfile, or the file
	ProfileFile string   // a custom profile file (TOML, YAML); not with Profile
	Weights     []string // per-slot overrides, "E5=0.6"
	Mode        string   // "" is ModeMultiSpace, or ModeEmbedderFirst with Embedder
	Embedder    string   // the slot leading an embedder_first search
	Direction   string   // "" is DirectionAny

	// Names are the face's names of the fields above, for messages.
	Names SearchArgNames
}

// SearchArgNames are a face's names of the SearchArgs fields: "--mode" on
// the command line, "mode" in an MCP call. Every error of SearchArgs is a
// *record.ValidationError whose Field is one of them.
type SearchArgNames struct {
	Profile, ProfileFile, Weights, Mode, Embedder, Direction string
}

// ParseProfile builds the search's profile: the built-in one named (or
// the file), with the weight overrides applied and the other weighted
// slots re-normalised.
func (a SearchArgs) ParseProfile() (Profile, error) {
	n := a.Names
	var p Profile
	var err error
	switch {
	case a.Profile != "" && a.ProfileFile != "":
		return p, &record.ValidationError{Field: n.Profile, Problem: fmt.Sprintf("both %s %s and %s %s given", n.Profile, a.Profile, n.ProfileFile, a.ProfileFile), Fix: "choose one"}
	case a.ProfileFile != "":
		if p, err = profiles.LoadFile(a.ProfileFile); err != nil {
			return p, &record.ValidationError{Field: n.ProfileFile, Problem: err.Error(), Fix: "correct the file, or give a built-in profile with " + n.Profile}
		}
	default:
		name := a.Profile
		if name == "" {
			name = DefaultProfile
		}
		if p, err = profiles.Lookup(name); err != nil {
			return p, unknownProfile(n.Profile, name, n.ProfileFile)
		}
	}
	if len(a.Weights) == 0 {
		return p, nil
	}
	ovs, err := profiles.ParseOverrides(a.Weights)
	if err != nil {
		return p, &record.ValidationError{Field: n.Weights, Problem: err.Error(), Fix: "give each slot (E1–E13 or its name) once, with a weight in [0, 1], e.g. E5 0.6"}
	}
	if p, err = p.WithOverrides(ovs...); err != nil {
		return p, &record.ValidationError{Field: n.Weights, Problem: err.Error(), Fix: "pinned weights must leave room for the others (sum ≤ 1) and temporal slots E2–E4 need a temporal profile such as temporal_navigation"}
	}
	return p, nil
}

// ParseShape sets req's Mode, Embedder and Direction. An embedder implies
// ModeEmbedderFirst, which needs one; no mode is ModeMultiSpace.
func (a SearchArgs) ParseShape(req *SearchRequest) error {
	n := a.Names
	mode := ModeMultiSpace
	if a.Mode != "" {
		var err error
		if mode, err = pipeline.ParseMode(a.Mode); err != nil {
			return &record.ValidationError{Field: n.Mode, Problem: err.Error(), Fix: "leave it out for " + ModeMultiSpace.String()}
		}
	}
	var slot SlotID
	switch {
	case a.Embedder != "":
		var err error
		if slot, err = ParseLeadingSlot(n.Embedder, a.Embedder); err != nil {
			return err
		}
		if a.Mode != "" && mode != ModeEmbedderFirst {
			return &record.ValidationError{Field: n.Embedder, Problem: fmt.Sprintf("%s %s needs %s embedder_first, got %s %s", n.Embedder, slot, n.Mode, n.Mode, mode),
				Fix: fmt.Sprintf("drop %s, or give %s embedder_first", n.Mode, n.Mode)}
		}
		mode = ModeEmbedderFirst
	case mode == ModeEmbedderFirst:
		return &record.ValidationError{Field: n.Mode, Problem: fmt.Sprintf("%s embedder_first needs %s", n.Mode, n.Embedder),
			Fix: fmt.Sprintf("add %s Ek, one of %s", n.Embedder, slotList(LeadingSlots()))}
	}
	dir, err := pipeline.ParseDirection(a.Direction)
	if err != nil {
		return &record.ValidationError{Field: n.Direction, Problem: err.Error(), Fix: `give "causes" (the query describes an effect), "effects" (it describes a cause), or leave it out for both`}
	}
	req.Mode, req.Embedder, req.Direction = mode, slot, dir
	return nil
}

// ParseLeadingSlot reads the slot that leads a single-embedder search: a
// slot name that can lead (LeadingSlots). Errors are a
// *record.ValidationError naming field.
func ParseLeadingSlot(field, name string) (SlotID, error) {
	slot, err := fingerprint.ParseSlot(name)
	if err != nil {
		return 0, &record.ValidationError{Field: field, Problem: err.Error(), Fix: "give a slot that can lead a search: " + slotList(LeadingSlots())}
	}
	if !slot.CanLead() {
		return 0, &record.ValidationError{Field: field, Problem: fmt.Sprintf("%s cannot lead a search: E2–E4 only order or badge results and E12 only reranks", slot),
			Fix: "give one of " + slotList(LeadingSlots())}
	}
	return slot, nil
}

// slotList is "E1, E5, …".
func slotList(ss []SlotID) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.String()
	}
	return strings.Join(names, ", ")
}
