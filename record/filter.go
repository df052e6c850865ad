package record

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Superseded says what a search does with superseded memories (the target
// of a "supersedes" relation).
type Superseded uint8

// The superseded modes.
const (
	// ExcludeSuperseded leaves superseded memories out (the default: a
	// replaced decision should not come back as the answer).
	ExcludeSuperseded Superseded = iota
	// IncludeSuperseded keeps them, marked with SupersededBy.
	IncludeSuperseded
	// OnlySuperseded finds only superseded memories.
	OnlySuperseded
)

var supersededNames = [...]string{"exclude", "include", "only"}

// SupersededNames lists the mode names.
func SupersededNames() []string { return slices.Clone(supersededNames[:]) }

func (s Superseded) String() string {
	if int(s) < len(supersededNames) {
		return supersededNames[s]
	}
	return fmt.Sprintf("superseded(%d)", uint8(s))
}

// MarshalText writes the mode's name.
func (s Superseded) MarshalText() ([]byte, error) {
	if int(s) >= len(supersededNames) {
		return nil, fmt.Errorf("unknown superseded mode %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a mode name (ParseSuperseded).
func (s *Superseded) UnmarshalText(b []byte) error {
	v, err := ParseSuperseded(string(b))
	*s = v
	return err
}

// ParseSuperseded parses a mode name ("" is exclude).
func ParseSuperseded(s string) (Superseded, error) {
	if s == "" {
		return ExcludeSuperseded, nil
	}
	for i, n := range supersededNames {
		if n == s {
			return Superseded(i), nil
		}
	}
	return 0, &ValidationError{Field: "superseded", Problem: fmt.Sprintf("unknown mode %q", s), Fix: "use exclude, include or only"}
}

// Filter restricts a search (or a listing) to the memories that match every
// field set. Its JSON form is the "filter" object of the HTTP API and the
// MCP tools. The zero Filter keeps the default project's memories that are
// not superseded. Searches apply it inside every index, before fusion, so
// that top-k stays full however few memories match.
type Filter struct {
	// Project is the project searched; "" is the default project.
	// AllProjects searches every project and ignores Project.
	Project     string `json:"project,omitempty"`
	AllProjects bool   `json:"all_projects,omitempty"`
	// Types keeps memories of any of these types.
	Types []Type `json:"types,omitempty"`
	// TagsAny keeps memories with at least one of these tags; TagsAll
	// those with every one.
	TagsAny []string `json:"tags_any,omitempty"`
	TagsAll []string `json:"tags_all,omitempty"`
	// Session and Source keep memories of exactly that session or source.
	Session string `json:"session,omitempty"`
	Source  string `json:"source,omitempty"`
	// Time bounds: After is inclusive, Before exclusive; zero is open.
	CreatedAfter  time.Time `json:"created_after,omitzero"`
	CreatedBefore time.Time `json:"created_before,omitzero"`
	UpdatedAfter  time.Time `json:"updated_after,omitzero"`
	UpdatedBefore time.Time `json:"updated_before,omitzero"`
	// MinImportance keeps memories with importance ≥ it.
	MinImportance float64 `json:"min_importance,omitempty"`
	// Meta keeps memories whose metadata has every key with that value.
	Meta map[string]string `json:"meta,omitempty"`
	// Superseded says whether superseded memories are left out (default),
	// kept or the only ones kept.
	Superseded Superseded `json:"superseded,omitzero"`
	// AsOf, when set, answers as the store knew it at that time: only
	// memories created at or before it, "superseded" meaning ended
	// (Memory.ValidUntil) at or before it, and each memory with the
	// revision it had then (the engine reads the history). Memories
	// deleted since are gone and cannot be shown.
	AsOf time.Time `json:"as_of,omitzero"`
}

// Validate checks the filter's values.
func (f Filter) Validate() error {
	if err := CheckProject(f.Project); err != nil {
		return err
	}
	for _, t := range f.Types {
		if !t.Known() {
			return &ValidationError{Field: "filter.types", Problem: fmt.Sprintf("unknown type %q", t), Fix: "use one of " + typeNames()}
		}
	}
	if math.IsNaN(f.MinImportance) || f.MinImportance < 0 || f.MinImportance > 1 {
		return &ValidationError{Field: "filter.min_importance", Problem: fmt.Sprintf("%v is outside [0, 1]", f.MinImportance), Fix: "give a number from 0 to 1"}
	}
	for _, p := range []struct {
		name          string
		after, before time.Time
	}{{"created", f.CreatedAfter, f.CreatedBefore}, {"updated", f.UpdatedAfter, f.UpdatedBefore}} {
		if !p.after.IsZero() && !p.before.IsZero() && !p.after.Before(p.before) {
			return &ValidationError{Field: "filter." + p.name + "_after", Problem: fmt.Sprintf("%s is not before %s_before %s", p.after.Format(time.RFC3339), p.name, p.before.Format(time.RFC3339)),
				Fix: "give an after time earlier than the before time"}
		}
	}
	for k := range f.Meta {
		if err := CheckMetaKey(k); err != nil {
			return err
		}
	}
	if int(f.Superseded) >= len(supersededNames) {
		return &ValidationError{Field: "filter.superseded", Problem: fmt.Sprintf("unknown mode %d", f.Superseded), Fix: "use exclude, include or only"}
	}
	return nil
}

// Scope is the part of f that also bounds what relations bring along to
// the hits (search expansion, context attachments): the project and the
// superseded mode. The other fields choose the hits themselves — a search
// of errors expanded by "fixes" wants the fixes, whatever their type.
func (f Filter) Scope() Filter {
	return Filter{Project: f.Project, AllProjects: f.AllProjects, Superseded: f.Superseded, AsOf: f.AsOf}
}

// ValidAt reports whether m was stored and still valid at t: created at or
// before t and not ended (ValidUntil) at or before it.
func ValidAt(m Memory, t time.Time) bool {
	return !m.CreatedAt.After(t) && (m.ValidUntil.IsZero() || m.ValidUntil.After(t))
}

// Match reports whether m passes the filter; superseded says whether m is
// the target of a "supersedes" relation. It is the definition the
// engine's index-side filtering must agree with. With AsOf, superseded
// means ended at or before AsOf (ValidAt), and a memory created after it
// never matches.
func (f Filter) Match(m Memory, superseded bool) bool {
	if !f.AsOf.IsZero() {
		if m.CreatedAt.After(f.AsOf) {
			return false
		}
		superseded = !ValidAt(m, f.AsOf)
	}
	switch {
	case !f.AllProjects && m.Project != f.Project:
		return false
	case len(f.Types) > 0 && !slices.Contains(f.Types, m.Type):
		return false
	case f.Session != "" && m.Session != f.Session:
		return false
	case f.Source != "" && m.Source != f.Source:
		return false
	case !f.CreatedAfter.IsZero() && m.CreatedAt.Before(f.CreatedAfter):
		return false
	case !f.CreatedBefore.IsZero() && !m.CreatedAt.Before(f.CreatedBefore):
		return false
	case !f.UpdatedAfter.IsZero() && m.UpdatedAt.Before(f.UpdatedAfter):
		return false
	case !f.UpdatedBefore.IsZero() && !m.UpdatedAt.Before(f.UpdatedBefore):
		return false
	case m.Importance < f.MinImportance:
		return false
	case f.Superseded == ExcludeSuperseded && superseded, f.Superseded == OnlySuperseded && !superseded:
		return false
	}
	if len(f.TagsAny) > 0 && !slices.ContainsFunc(f.TagsAny, func(t string) bool { return slices.Contains(m.Tags, t) }) {
		return false
	}
	for _, t := range f.TagsAll {
		if !slices.Contains(m.Tags, t) {
			return false
		}
	}
	for k, v := range f.Meta {
		if got, ok := m.Meta[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ParseWhen reads a time bound of a filter as a person types it: an RFC
// 3339 time, or an age before now ("30m", "36h", "7d", "2w"). The error
// says only that s is neither; the caller names the flag or field.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if len(s) >= 2 {
		unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
		if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && unit != 0 && n >= 0 {
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	return time.Time{}, errors.New("neither an RFC 3339 time nor an age")
}

// ParseAsOf reads the time of an as-of search (Filter.AsOf): an RFC 3339
// time, or a date (2006-01-02), which means the end of that day in UTC —
// the store as it was once the day was over. The error says which forms
// it takes.
func ParseAsOf(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.Add(24*time.Hour - time.Nanosecond).UTC(), nil
	}
	return time.Time{}, &ValidationError{Field: "as_of", Problem: fmt.Sprintf("%q is neither an RFC 3339 time nor a date", s),
		Fix: "give a time such as 2026-03-01T14:30:00Z or a date such as 2026-03-01 (its end, UTC)"}
}
