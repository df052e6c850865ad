package mcpserver

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cgraph/cgraph/engine"
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

// idPattern is the schema pattern of an id argument: a full id or a prefix
// of at least engine.MinIDPrefix hex digits, dashes optional.
const idPattern = `^[0-9a-fA-F-]{8,36}$`

const idFix = "give the 36-character UUID returned by store_memory or a search result (e.g. 0191e0a2-7c3b-7d4e-9f00-1234567890ab), or its last 8 or more hex digits (ids of one session share their first ones)"

// memoryID resolves an id argument — a full id or a unique prefix of one of
// at least 8 hex digits — to a stored memory's id. On a server pinned to a
// project the memory must belong to it.
func (s *Server) memoryID(ctx context.Context, arg, text string) (record.ID, error) {
	text = strings.TrimSpace(text)
	if _, err := record.ParseID(text); err != nil {
		digits := strings.ReplaceAll(text, "-", "")
		if _, herr := hex.DecodeString(digits + strings.Repeat("0", len(digits)%2)); herr != nil || len(digits) < engine.MinIDPrefix || len(digits) > 32 {
			return record.ID{}, badArg(arg, idFix, "%q is not a memory id", text)
		}
	}
	id, err := s.store.ResolveID(ctx, text)
	var ve *record.ValidationError
	switch {
	case errors.As(err, &ve): // a prefix several memories share
		return id, badArg(arg, ve.Fix, "%s", ve.Problem)
	case errors.Is(err, record.ErrNotFound):
		return id, fmt.Errorf("argument %q: %w", arg, err)
	case err != nil:
		return id, err
	}
	// A full id is parsed, not looked up: read the memory (without
	// recording an access) so that an unknown one is named by its argument.
	ms, found, err := s.store.Peek(ctx, []record.ID{id})
	switch p := s.opts.Project; {
	case err != nil:
		return id, err
	case !found[0]:
		return id, fmt.Errorf("argument %q: %w: no memory with id %s", arg, record.ErrNotFound, id)
	case p != "" && ms[0].Project != p:
		return id, badArg(arg, fmt.Sprintf("use a memory of project %q, or a cgraph mcp server started with --project %q for this one", p, ms[0].Project),
			"memory %s belongs to project %q, and this server is pinned to project %q", id, ms[0].Project, p)
	}
	return id, nil
}

// project is the project a memory is stored in or moved to: the pinned
// one when the argument is empty, and a different one refused there.
func (s *Server) project(arg, given string) (string, error) {
	p := s.opts.Project
	switch {
	case p == "" || given == p:
		return given, record.CheckProject(given)
	case given == "":
		return p, nil
	}
	return "", badArg(arg, fmt.Sprintf("leave it out or give %q: this server is pinned to that project (cgraph mcp --project)", p), "%q is another project", given)
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

func slotNames(ss []engine.SlotID) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = fmt.Sprintf("%s (%s)", s, s.Info().Name)
	}
	return strings.Join(names, ", ")
}

func parseSlot(arg, s string) (engine.SlotID, error) {
	slot, err := engine.ParseSlot(s)
	if err != nil {
		return 0, badArg(arg, "give one of "+slotNames(engine.Slots()), "%v", err)
	}
	return slot, nil
}

// searchArgNames are the search tools' argument names, as the messages of
// engine.SearchArgs name them.
var searchArgNames = engine.SearchArgNames{Profile: "profile", ProfileFile: "profile_file", Weights: "weights", Mode: "mode", Embedder: "embedder", Direction: "direction"}

// leadingSlot reads a slot argument that leads a search
// (engine.ParseLeadingSlot), pointing an agent that wanted time order to
// the tools for it.
func leadingSlot(arg, s string) (engine.SlotID, error) {
	slot, err := engine.ParseLeadingSlot(arg, s)
	var ve *record.ValidationError
	if errors.As(err, &ve) {
		return 0, badArg(ve.Field, ve.Fix+"; for time use search_recent, search_periodic or get_session_timeline", "%s", ve.Problem)
	}
	return slot, err
}

// parseDirection reads the direction argument (engine.SearchArgs).
func parseDirection(s string) (engine.Direction, error) {
	var req engine.SearchRequest
	err := engine.SearchArgs{Direction: s, Names: searchArgNames}.ParseShape(&req)
	return req.Direction, argOf(err)
}

// resolveProfile is the named profile with the per-slot weight overrides
// applied (engine.SearchArgs). An unnamed one is AgentDefaultProfile, or,
// with overrides (which the adaptive profile takes none of), the engine's
// static default.
func resolveProfile(name string, weights map[string]float64) (engine.Profile, error) {
	switch {
	case name == "" && len(weights) > 0:
		name = engine.DefaultProfile
	case name == "":
		name = AgentDefaultProfile
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
	p, err := engine.SearchArgs{Profile: name, Weights: ovs, Names: searchArgNames}.ParseProfile()
	return p, argOf(err)
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
