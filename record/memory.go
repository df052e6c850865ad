package record

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Type says what kind of thing a memory is.
type Type string

// The memory types. Unknown types are rejected by Validate.
const (
	TypeFact         Type = "fact"
	TypeDecision     Type = "decision"
	TypeError        Type = "error"
	TypePattern      Type = "pattern"
	TypeCode         Type = "code"
	TypeConversation Type = "conversation"
	TypeNote         Type = "note"
	TypePreference   Type = "preference"
)

// types are the known types, sorted by name.
var types = []Type{TypeCode, TypeConversation, TypeDecision, TypeError, TypeFact, TypeNote, TypePattern, TypePreference}

// Types lists every memory type, sorted by name. The caller may modify the
// slice.
func Types() []Type { return slices.Clone(types) }

// Known reports whether t is one of Types.
func (t Type) Known() bool { return slices.Contains(types, t) }

func typeNames() string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// ParseType parses a type name; the error lists the valid ones.
func ParseType(s string) (Type, error) {
	t := Type(strings.ToLower(strings.TrimSpace(s)))
	if t.Known() {
		return t, nil
	}
	return "", &ValidationError{Field: "type", Problem: fmt.Sprintf("unknown type %q", s), Fix: "use one of " + typeNames()}
}

// NewMemory is what a caller gives to store a memory. Zero values get
// defaults: Type note, CreatedAt now, Importance 0.5. Sequence is assigned
// by the store (next in the session) when Session is set and Sequence is 0.
type NewMemory struct {
	// ID, when set (an import), is the memory's id; an id the store holds
	// already is refused. Zero means a new id.
	ID         ID
	Content    string
	Type       Type
	Tags       []string
	Source     string
	Session    string
	Sequence   uint64
	CreatedAt  time.Time
	Importance float64
	// Project is the namespace the memory belongs to ("" is the store's
	// default project). Searches stay inside one project unless asked
	// otherwise, and deduplication compares only memories of one project.
	Project string
	// Meta is arbitrary caller metadata, filterable by exact key=value
	// (ValidateMeta says which keys and values are accepted).
	Meta map[string]string
	// AllowDuplicate stores the memory even when the store already holds
	// the same content (SameContent): a benchmark corpus may repeat a text
	// under two ids. By default Add returns the earlier memory instead.
	AllowDuplicate bool
	// Supersede marks every near-duplicate found on write (Memory.Similar
	// with Near set) as superseded by the new memory, in the same batch.
	Supersede bool
	// OnConflict is what Add does with a stored memory the new one
	// contradicts or updates (Memory.Contradicts): report it
	// (ConflictReport: the pair is kept as a "contradicts" relation, open
	// until resolved) or link the new memory as superseding it
	// (ConflictSupersedeNewer). The zero value takes the store's default
	// (engine Options.OnConflict, `cgraph serve --on-conflict`; report).
	OnConflict ConflictPolicy
}

// ConflictPolicy says what a write does with the contradictions it finds.
type ConflictPolicy string

// The conflict policies.
const (
	// ConflictReport reports them and keeps each as a "contradicts"
	// relation from the new memory to the old, in the same batch: an open
	// pair that search badges and `cgraph maintain --contradictions` lists.
	ConflictReport ConflictPolicy = "report"
	// ConflictSupersedeNewer links the new memory as superseding the old
	// one (relation "supersedes"), in the same batch.
	ConflictSupersedeNewer ConflictPolicy = "supersede-newer"
)

// ParseConflictPolicy parses a policy name; the error lists the valid ones.
// "" stays "": the store's default applies.
func ParseConflictPolicy(s string) (ConflictPolicy, error) {
	switch p := ConflictPolicy(strings.ToLower(strings.TrimSpace(s))); p {
	case "", ConflictReport, ConflictSupersedeNewer:
		return p, nil
	}
	return "", &ValidationError{Field: "on_conflict", Problem: fmt.Sprintf("unknown policy %q", s), Fix: "use report or supersede-newer"}
}

// Contradiction is a stored memory that a new one contradicts or updates,
// found on write, with the evidence: the subject spaces agree (E1, E6,
// E11 as in Similar) and the texts make different claims (Reason).
type Contradiction struct {
	ID ID `json:"id"`
	// Kind is "contradiction" (the claims cannot both hold) or "update"
	// (the new memory says the fact changed).
	Kind string  `json:"kind"`
	E1   float64 `json:"e1"`
	E6   float64 `json:"e6"`
	E11  float64 `json:"e11"`
	// Superseded says this write linked the new memory as superseding it
	// (NewMemory.OnConflict).
	Superseded bool `json:"superseded"`
	// Reason names the differing words and the subject evidence.
	Reason string `json:"reason"`
}

// Similar is a stored memory found close to a new one on write, with the
// evidence of each space. Near is set only when every space agrees (E1
// cosine, E6 term overlap and E11 entity overlap at or above their
// thresholds), never on one signal.
type Similar struct {
	ID ID `json:"id"`
	// E1 is the cosine of the dense vectors; E6 the Jaccard overlap of the
	// keyword terms; E11 the Jaccard overlap of the entity names (1 when
	// neither memory names an entity: no evidence against).
	E1  float64 `json:"e1"`
	E6  float64 `json:"e6"`
	E11 float64 `json:"e11"`
	// Near says every space agreed; Superseded that this write marked the
	// memory superseded (NewMemory.Supersede).
	Near       bool `json:"near_duplicate"`
	Superseded bool `json:"superseded"`
	// Decision says in words why it is or is not a near-duplicate.
	Decision string `json:"decision"`
}

// SameContent reports whether two contents are the same memory for
// deduplication: equal once leading and trailing space is trimmed and every
// run of white space is one space. Case, punctuation and wording count.
func SameContent(a, b string) bool { return NormalizeContent(a) == NormalizeContent(b) }

// NormalizeContent is the form SameContent compares.
func NormalizeContent(s string) string { return strings.Join(strings.Fields(s), " ") }

// Memory is a stored memory record.
type Memory struct {
	ID          ID
	DocNum      DocNum
	Content     string
	Type        Type
	Tags        []string
	Source      string
	Session     string
	Sequence    uint64
	CreatedAt   time.Time
	UpdatedAt   time.Time
	AccessedAt  time.Time
	AccessCount uint64
	Importance  float64
	Project     string
	Meta        map[string]string
	// Revision counts the memory's versions: 1 when stored, +1 for every
	// Update that changed it. Earlier revisions are kept (Engine.History).
	Revision uint32
	// ValidUntil is when the memory stopped being valid: the creation time
	// of the oldest "supersedes" relation that targets it (zero: still
	// valid). The store keeps it in step with those relations, in their
	// batch; valid-from is CreatedAt. A search as of a time T
	// (record.Filter.AsOf) shows the memories created at or before T whose
	// ValidUntil is zero or after T. Callers never set it.
	ValidUntil time.Time
	// Similar lists, on a memory Add just stored, the stored memories of
	// its project that came close (near-duplicates and candidates that one
	// space rejected), each with its evidence. It is never stored.
	Similar []Similar
	// Contradicts lists, on a memory Add just stored, the stored memories
	// of its project it contradicts or updates, each with its evidence.
	// It is never stored.
	Contradicts []Contradiction
	// SupersededBy lists the memories that supersede this one (relation
	// "supersedes"), oldest link first. The engine fills it on what it
	// returns; it is never stored in the record.
	SupersededBy []ID
	// ContradictedBy lists the newer memories that contradict this one
	// (relation "contradicts", kept by a write under the report policy),
	// oldest link first: the search badge. Superseding this memory (or
	// removing the relation) resolves the pair. The
	// engine fills it on what it returns; it is never stored in the record.
	ContradictedBy []ID
	// Duplicate is set only on a memory Add returned instead of storing a
	// new one: the store already held the same content (SameContent), so
	// nothing was written and this is that earlier memory, its access
	// recorded. It is never stored.
	Duplicate bool
}

// Change is an update of a stored memory: nil and empty fields are left as
// they are. A content change re-computes the fingerprint; the others touch
// the record only.
type Change struct {
	Content    *string
	Type       *Type
	Project    *string
	Importance *float64
	// AddTags are added (if absent) after RemoveTags are removed.
	AddTags, RemoveTags []string
	// SetMeta sets keys (a value replaces the old one) after UnsetMeta
	// removes keys.
	SetMeta   map[string]string
	UnsetMeta []string
}

// Empty reports whether c changes nothing.
func (c Change) Empty() bool {
	return c.Content == nil && c.Type == nil && c.Project == nil && c.Importance == nil &&
		len(c.AddTags)+len(c.RemoveTags)+len(c.SetMeta)+len(c.UnsetMeta) == 0
}

// Apply returns m with c applied (m itself is not modified). The result
// still needs validating (AsNew().Validate).
func (c Change) Apply(m Memory) Memory {
	out := m
	out.Tags = slices.Clone(m.Tags)
	if c.Content != nil {
		out.Content = *c.Content
	}
	if c.Type != nil {
		out.Type = *c.Type
	}
	if c.Project != nil {
		out.Project = *c.Project
	}
	if c.Importance != nil {
		out.Importance = *c.Importance
	}
	out.Tags = slices.DeleteFunc(out.Tags, func(t string) bool { return slices.Contains(c.RemoveTags, t) })
	for _, t := range c.AddTags {
		if !slices.Contains(out.Tags, t) {
			out.Tags = append(out.Tags, t)
		}
	}
	if len(c.SetMeta)+len(c.UnsetMeta) > 0 {
		meta := make(map[string]string, len(m.Meta)+len(c.SetMeta))
		for k, v := range m.Meta {
			if !slices.Contains(c.UnsetMeta, k) {
				meta[k] = v
			}
		}
		for k, v := range c.SetMeta {
			meta[k] = v
		}
		out.Meta = meta
	}
	if len(out.Meta) == 0 {
		out.Meta = nil
	}
	return out
}

// AsNew is m's caller-given fields as a NewMemory, to validate an edited
// memory with the rules of a new one.
func (m Memory) AsNew() NewMemory {
	return NewMemory{ID: m.ID, Content: m.Content, Type: m.Type, Tags: m.Tags, Source: m.Source, Session: m.Session, Sequence: m.Sequence,
		CreatedAt: m.CreatedAt, Importance: m.Importance, Project: m.Project, Meta: m.Meta}
}

// ListOptions page through memories in creation order (newest first unless
// Oldest is set). After is the last id of the previous page, or zero.
type ListOptions struct {
	Limit  int
	After  ID
	Oldest bool
}

// Stats describe a store.
type Stats struct {
	Memories      uint64
	NextDocNum    DocNum
	FormatVersion uint32
	Families      map[string]FamilyStats
}

// FamilyStats are per-column-family figures (RocksDB estimates).
type FamilyStats struct {
	Keys  uint64
	Bytes uint64
}
