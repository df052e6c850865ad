package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

type storeMemoryIn struct {
	Content     string            `json:"content" jsonschema:"the text to remember (at most 1 MiB)"`
	Type        string            `json:"type,omitempty" jsonschema:"default note"`
	Tags        []string          `json:"tags,omitempty" jsonschema:"short labels, e.g. rocksdb, ci"`
	Source      string            `json:"source,omitempty" jsonschema:"where it came from: file, URL, tool"`
	Session     string            `json:"session,omitempty" jsonschema:"session id; a session's memories are numbered in order"`
	Importance  *float64          `json:"importance,omitempty" jsonschema:"0 to 1; default 0.5"`
	CreatedAt   string            `json:"created_at,omitempty" jsonschema:"RFC 3339; default now"`
	Project     string            `json:"project,omitempty" jsonschema:"its project; default the default (or pinned) project"`
	Supersede   bool              `json:"supersede,omitempty" jsonschema:"mark the near-duplicates found (similar) superseded by this one"`
	OnConflict  string            `json:"on_conflict,omitempty" jsonschema:"report or supersede-newer; default: the server's"`
	Meta        map[string]string `json:"meta,omitempty" jsonschema:"key: value metadata to filter by, e.g. {\"ticket\": \"CG-12\"}"`
	Fingerprint bool              `json:"fingerprint,omitempty" jsonschema:"also list each space's representation"`
}

// storeMemoryOut is store_memory's answer: the stored memory's write view
// (ops.Receipt) and what the write found beside it.
type storeMemoryOut struct {
	ops.Receipt
	// DuplicateOf is set when the store already held this content: nothing
	// was stored, ID is that earlier memory.
	DuplicateOf *record.ID `json:"duplicate_of,omitempty"`
	// Similar are the memories of the project found close to this one on
	// write, each with the evidence of every space and the decision taken
	// (near_duplicate only when every space agrees; superseded when
	// supersede marked it).
	Similar []record.Similar `json:"similar,omitempty"`
	// Contradicts are the stored memories of the project this one
	// contradicts or updates, with the evidence (superseded when
	// on_conflict supersede-newer linked them).
	Contradicts []record.Contradiction `json:"contradicts,omitempty"`
	// Fingerprint lists each slot's status when asked (fingerprint: true).
	Fingerprint []SlotEntry `json:"fingerprint,omitempty"`
}

// summary is store_memory's text content: the id and what was found close.
func (o storeMemoryOut) summary() string {
	s := "stored " + o.ID.String()
	if o.DuplicateOf != nil {
		s = "already stored as " + o.ID.String() + " (duplicate_of): nothing stored"
	}
	if len(o.Similar) > 0 {
		s += fmt.Sprintf("; %d similar memories (see similar)", len(o.Similar))
	}
	if len(o.Contradicts) > 0 {
		s += fmt.Sprintf("; contradicts or updates %d stored memories (see contradicts)", len(o.Contradicts))
	}
	return s
}

func storeMemory(ctx context.Context, s *Server, in storeMemoryIn) (any, error) {
	if strings.TrimSpace(in.Content) == "" {
		return nil, badArg("content", "give the text to remember", "is empty")
	}
	n := record.NewMemory{Content: in.Content, Tags: in.Tags, Source: in.Source, Session: in.Session, Meta: in.Meta, Supersede: in.Supersede}
	var err error
	if n.Project, err = s.project("project", in.Project); err != nil {
		return nil, err
	}
	if err := record.ValidateMeta(in.Meta); err != nil {
		return nil, err
	}
	if n.OnConflict, err = record.ParseConflictPolicy(in.OnConflict); err != nil {
		return nil, err
	}
	if in.Type != "" {
		t, err := record.ParseType(in.Type)
		if err != nil {
			return nil, badArg("type", "give one of fact, decision, error, pattern, code, conversation, note, preference", "%v", err)
		}
		n.Type = t
	}
	if in.Importance != nil {
		if *in.Importance < 0 || *in.Importance > 1 {
			return nil, badArg("importance", "give a number from 0 to 1", "%g is out of range", *in.Importance)
		}
		n.Importance = *in.Importance
	}
	if n.CreatedAt, err = record.ParseCreatedAt(in.CreatedAt); err != nil {
		return nil, err
	}
	m, err := s.store.Add(ctx, n)
	if err != nil {
		return nil, err
	}
	out := storeMemoryOut{Receipt: ops.MemoryOf(m).Receipt(), Similar: m.Similar, Contradicts: m.Contradicts}
	if m.Duplicate {
		out.DuplicateOf = &m.ID
	}
	if in.Fingerprint {
		fp, err := s.store.Fingerprint(ctx, m.ID)
		if err != nil {
			return nil, err
		}
		out.Fingerprint = fingerprintEntries(fp)
	}
	return out, nil
}

type getMemoryIn struct {
	ID          string `json:"id" jsonschema:"the id (or its last 8+ hex digits)"`
	Fingerprint bool   `json:"fingerprint,omitempty" jsonschema:"also list each space's representation"`
	History     bool   `json:"history,omitempty" jsonschema:"also list earlier revisions, oldest first"`
}

func getMemory(ctx context.Context, s *Server, in getMemoryIn) (any, error) {
	id, err := s.memoryID(ctx, "id", in.ID)
	if err != nil {
		return nil, err
	}
	m, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	out := toMemoryOutput(m)
	if in.Fingerprint {
		fp, err := s.store.Fingerprint(ctx, id)
		if err != nil {
			return nil, err
		}
		out.Fingerprint = fingerprintEntries(fp)
	}
	if in.History {
		revs, err := s.store.History(ctx, id)
		if err != nil {
			return nil, err
		}
		out.History = []RevisionOf{}
		for _, r := range revs {
			out.History = append(out.History, RevisionOf{Revision: r.Revision, Content: r.Content, Type: r.Type, Tags: r.Tags,
				Importance: r.Importance, Project: r.Project, Meta: r.Meta, UpdatedAt: r.UpdatedAt.UTC()})
		}
	}
	return out, nil
}

type deleteMemoryIn struct {
	ID string `json:"id" jsonschema:"the id (or its last 8+ hex digits)"`
}

type deleteMemoryOut struct {
	Deleted record.ID `json:"deleted"`
}

func deleteMemory(ctx context.Context, s *Server, in deleteMemoryIn) (any, error) {
	id, err := s.memoryID(ctx, "id", in.ID)
	if err != nil {
		return nil, err
	}
	if err := s.store.Delete(ctx, id); err != nil {
		return nil, err
	}
	return deleteMemoryOut{Deleted: id}, nil
}
