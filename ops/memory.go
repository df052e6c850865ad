package ops

import (
	"time"

	"github.com/cgraph/cgraph/record"
)

// Memory is a stored memory in its one wire form: what `cgraph get` and
// `cgraph list` print with --json, what the MCP tool get_memory and GET
// /v1/memories/{id} answer (with their own additions beside it), in its
// export view, Export, each memory line of `cgraph export`, and in its
// write view, Receipt, what store_memory and POST /v1/memories answer. A
// view omits fields and keeps the others' names (TestViewsAreProjections). Field
// names are snake_case and stable: scripts and agents read them. Times are
// RFC 3339 with nanoseconds, in UTC; tags are [] when there are none;
// accessed_at is left out until the memory is first used (the MCP output
// schemas say "string", which a null would break).
type Memory struct {
	ID          record.ID         `json:"id"`
	DocNum      record.DocNum     `json:"doc_num"`
	Content     string            `json:"content"`
	Type        record.Type       `json:"type"`
	Tags        []string          `json:"tags"`
	Source      string            `json:"source"`
	Session     string            `json:"session"`
	Sequence    uint64            `json:"sequence"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
	AccessedAt  time.Time         `json:"accessed_at,omitzero"` // left out until first used
	AccessCount uint64            `json:"access_count"`
	Importance  float64           `json:"importance"`
	Project     string            `json:"project"` // "" is the default project
	Meta        map[string]string `json:"meta,omitempty"`
	// Revision counts the memory's versions: 1 when stored, +1 per change.
	Revision uint32 `json:"revision"`
	// ValidUntil is when a supersedes link ended the memory's validity;
	// left out while it is valid.
	ValidUntil time.Time `json:"valid_until,omitzero"`
	// SupersededBy lists the newer memories that supersede this one.
	SupersededBy []record.ID `json:"superseded_by,omitempty"`
	// ContradictedBy names the newer memories that contradict this one
	// (an open pair: record.Memory.ContradictedBy).
	ContradictedBy []record.ID `json:"contradicted_by,omitempty"`
}

// MemoryOf is m in its wire form.
func MemoryOf(m record.Memory) Memory {
	j := Memory{
		ID: m.ID, DocNum: m.DocNum, Content: m.Content, Type: m.Type, Tags: m.Tags,
		Source: m.Source, Session: m.Session, Sequence: m.Sequence,
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
		AccessCount: m.AccessCount, Importance: m.Importance,
		Project: m.Project, Meta: m.Meta, Revision: m.Revision, SupersededBy: m.SupersededBy,
		ContradictedBy: m.ContradictedBy,
	}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	if !m.AccessedAt.IsZero() {
		j.AccessedAt = m.AccessedAt.UTC()
	}
	if !m.ValidUntil.IsZero() {
		j.ValidUntil = m.ValidUntil.UTC()
	}
	return j
}

// Export is the memory's export view: the fields an import reads back (id,
// content, type, tags, source, session, sequence, created_at, importance,
// project, meta), empty ones left out. What the importing store assigns
// itself — doc number, update and access times, revision, supersession
// (relations travel on their own lines) — is not in it.
func (m Memory) Export() any {
	return struct {
		ID         record.ID         `json:"id"`
		Content    string            `json:"content"`
		Type       record.Type       `json:"type"`
		Tags       []string          `json:"tags,omitempty"`
		Source     string            `json:"source,omitempty"`
		Session    string            `json:"session,omitempty"`
		Sequence   uint64            `json:"sequence,omitempty"`
		CreatedAt  string            `json:"created_at"`
		Importance float64           `json:"importance"`
		Project    string            `json:"project,omitempty"`
		Meta       map[string]string `json:"meta,omitempty"`
	}{m.ID, m.Content, m.Type, m.Tags, m.Source, m.Session, m.Sequence, m.CreatedAt.UTC().Format(time.RFC3339Nano), m.Importance, m.Project, m.Meta}
}

// Receipt is the memory's write view: what a writer gets back once the
// memory is stored (the MCP tool store_memory, POST /v1/memories) — its id
// and where it landed: doc number, session position, creation time,
// project, metadata, revision — and not the content, type, tags or
// importance it sent. An empty session, sequence, project or meta is left
// out; created_at is the RFC 3339 string Export writes. A writer's answer
// adds what the write found beside it (duplicate_of, similar,
// contradicts).
type Receipt struct {
	ID        record.ID         `json:"id"`
	DocNum    record.DocNum     `json:"doc_num"`
	Session   string            `json:"session,omitempty"`
	Sequence  uint64            `json:"sequence,omitempty"`
	CreatedAt string            `json:"created_at"`
	Project   string            `json:"project,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
	Revision  uint32            `json:"revision"`
}

// Receipt is m's write view.
func (m Memory) Receipt() Receipt {
	return Receipt{ID: m.ID, DocNum: m.DocNum, Session: m.Session, Sequence: m.Sequence, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339Nano),
		Project: m.Project, Meta: m.Meta, Revision: m.Revision}
}
