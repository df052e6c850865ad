package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

type updateMemoryIn struct {
	ID         string            `json:"id" jsonschema:"the id (or its last 8+ hex digits)"`
	Content    *string           `json:"content,omitempty" jsonschema:"the corrected text"`
	Type       string            `json:"type,omitempty" jsonschema:"the new type"`
	AddTags    []string          `json:"add_tags,omitempty" jsonschema:"tags to add"`
	RemoveTags []string          `json:"remove_tags,omitempty" jsonschema:"tags to remove"`
	Importance *float64          `json:"importance,omitempty" jsonschema:"above 0, at most 1"`
	Meta       map[string]string `json:"meta,omitempty" jsonschema:"metadata keys to set"`
	UnsetMeta  []string          `json:"unset_meta,omitempty" jsonschema:"metadata keys to remove"`
	Project    *string           `json:"project,omitempty" jsonschema:"move it to this project (\"\": the default)"`
}

// updateMemoryOut is the memory after the change, and what the change did.
type updateMemoryOut struct {
	MemoryOutput
	// Changed is false when the change left the memory as it was (nothing
	// written, the revision unchanged).
	Changed bool `json:"changed"`
	// Reembedded is true when the content changed and the memory was
	// indexed again.
	Reembedded bool `json:"reembedded"`
}

func updateMemory(ctx context.Context, s *Server, in updateMemoryIn) (any, error) {
	id, err := s.memoryID(ctx, "id", in.ID)
	if err != nil {
		return nil, err
	}
	c := record.Change{Content: in.Content, AddTags: in.AddTags, RemoveTags: in.RemoveTags, Importance: in.Importance, SetMeta: in.Meta, UnsetMeta: in.UnsetMeta}
	if in.Type != "" {
		t, err := record.ParseType(in.Type)
		if err != nil {
			return nil, badArg("type", "give one of "+typeNames(), "%q is not a memory type", in.Type)
		}
		c.Type = &t
	}
	if in.Project != nil {
		if s.opts.Project != "" && *in.Project != s.opts.Project {
			return nil, badArg("project", fmt.Sprintf("leave it out: this server is pinned to project %q (cgraph mcp --project) and cannot move memories out of it", s.opts.Project),
				"%q is another project", *in.Project)
		}
		c.Project = in.Project
	}
	if c.Empty() {
		return nil, badArg("id", "give at least one of content, type, add_tags, remove_tags, importance, meta, unset_meta or project", "nothing to change")
	}
	if err := record.ValidateMeta(in.Meta); err != nil {
		return nil, err
	}
	res, err := s.store.Update(ctx, id, c)
	if err != nil {
		return nil, err
	}
	return updateMemoryOut{MemoryOutput: toMemoryOutput(res.Memory), Changed: res.Changed, Reembedded: res.Reembedded}, nil
}

type linkMemoriesIn struct {
	From   string  `json:"from" jsonschema:"the id the link starts from (or its last 8+ hex digits)"`
	To     string  `json:"to" jsonschema:"the id the link points to"`
	Type   string  `json:"type" jsonschema:"what from says about to"`
	Weight float64 `json:"weight,omitempty" jsonschema:"how sure, above 0 to 1; default 1"`
	Unlink bool    `json:"unlink,omitempty" jsonschema:"remove this link instead"`
}

// linkOut is link_memories' answer: the link as stored, or what unlinking
// removed.
type linkOut struct {
	From record.ID `json:"from"`
	To   record.ID `json:"to"`
	Type string    `json:"type"`
	// Linked says whether the link exists after the call.
	Linked bool `json:"linked"`
	// Weight and CreatedAt are the stored link's (not set when unlinking).
	Weight    float64    `json:"weight,omitempty"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
	// Removed is set when unlinking: whether there was such a link.
	Removed *bool `json:"removed,omitempty"`
}

func linkMemories(ctx context.Context, s *Server, in linkMemoriesIn) (any, error) {
	t, err := record.ParseRelationType(in.Type)
	if err != nil {
		return nil, badArg("type", "give one of "+record.RelationTypeNames(), "%q is not a relation type", in.Type)
	}
	from, err := s.memoryID(ctx, "from", in.From)
	if err != nil {
		return nil, err
	}
	to, err := s.memoryID(ctx, "to", in.To)
	if err != nil {
		return nil, err
	}
	if from == to {
		return nil, badArg("to", "give two different memories: a memory cannot be linked to itself", "is the same memory as from (%s)", from)
	}
	if in.Unlink {
		ok, err := s.store.Unlink(ctx, from, to, t)
		if err != nil {
			return nil, err
		}
		return linkOut{From: from, To: to, Type: t.String(), Removed: &ok}, nil
	}
	r, err := s.store.Link(ctx, record.Relation{From: from, To: to, Type: t, Weight: in.Weight})
	if err != nil {
		return nil, err
	}
	at := r.CreatedAt.UTC()
	return linkOut{From: r.From, To: r.To, Type: r.Type.String(), Linked: true, Weight: r.Weight, CreatedAt: &at}, nil
}

type getRelatedIn struct {
	ID    string   `json:"id" jsonschema:"the memory to start from: its id or its last 8 or more hex digits"`
	Types []string `json:"types,omitempty" jsonschema:"follow only links of these types (causes, fixes, supersedes, …); default every type"`
	Depth int      `json:"depth,omitempty" jsonschema:"how many links away to go, 1 to 3; default 1"`
	Limit int      `json:"limit,omitempty" jsonschema:"the most memories to return, 1 to 100; default 50"`
}

// RelatedEntry is one memory get_related reached.
type RelatedEntry struct {
	Memory Brief `json:"memory"`
	// Relation is the type of the link followed; Direction is "out" when
	// it runs from Via to this memory (Via causes it), "in" when it runs
	// from this memory to Via (it fixes Via).
	Relation  string    `json:"relation"`
	Direction string    `json:"direction"`
	Weight    float64   `json:"weight"`
	Via       record.ID `json:"via"`   // the memory the link was followed from (the start at depth 1)
	Depth     int       `json:"depth"` // links away from the start
}

type relatedOut struct {
	ID      record.ID      `json:"id"` // the memory the walk started from
	Related []RelatedEntry `json:"related"`
	Notes   []string       `json:"notes,omitempty"`
}

func getRelated(ctx context.Context, s *Server, in getRelatedIn) (any, error) {
	id, err := s.memoryID(ctx, "id", in.ID)
	if err != nil {
		return nil, err
	}
	types, err := relationTypes("types", in.Types)
	if err != nil {
		return nil, err
	}
	if in.Depth < 0 || in.Depth > engine.MaxRelatedDepth {
		return nil, badArg("depth", fmt.Sprintf("give 1 to %d, or leave it out for 1", engine.MaxRelatedDepth), "%d is out of range", in.Depth)
	}
	if in.Limit < 0 || in.Limit > maxTopK {
		return nil, badArg("limit", fmt.Sprintf("give 1 to %d, or leave it out for %d", maxTopK, engine.DefaultRelatedLimit), "%d is out of range", in.Limit)
	}
	rel, err := s.store.Related(ctx, id, engine.RelatedOptions{Types: types, Depth: in.Depth, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	out := relatedOut{ID: id, Related: []RelatedEntry{}}
	other := 0
	for _, r := range rel {
		if p := s.opts.Project; p != "" && r.Memory.Project != p {
			other++
			continue
		}
		out.Related = append(out.Related, RelatedEntry{Memory: toBrief(r.Memory), Relation: r.Relation.Type.String(),
			Direction: ops.Direction(r.Relation, r.Via), Weight: r.Relation.Weight, Via: r.Via, Depth: r.Depth})
	}
	if other > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d linked memories of other projects left out: this server is pinned to project %q", other, s.opts.Project))
	}
	if len(rel) == 0 {
		out.Notes = append(out.Notes, "no links: make them with link_memories (e.g. an error and its fix, a decision and the one it replaces)")
	}
	return out, nil
}
