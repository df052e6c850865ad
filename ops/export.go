package ops

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/cgraph/cgraph/bulkimport"
	"github.com/cgraph/cgraph/record"
)

// ExportStore is what Export reads of a store; *engine.Engine is one.
type ExportStore interface {
	List(ctx context.Context, o record.ListOptions) ([]record.Memory, error)
	Relations(ctx context.Context, id record.ID) ([]record.Relation, error)
}

// ExportCount is what Export wrote.
type ExportCount struct {
	Memories, Relations int
}

// exportPage is how many memories Export lists at a time.
const exportPage = 1000

// Export writes the memories of s to w as JSON Lines, oldest first, each
// in its export view (Memory.Export: what cgraph import and add --jsonl read
// back), then one line {"relation": bulkimport.RelationLine} per relation
// whose two ends were exported, each once, from its source. With project
// set only that project's memories are exported. It writes no fingerprint
// and no access count, update time or earlier revision; it reads the store
// only. Cost: one List pass and one Relations read per exported memory.
func Export(ctx context.Context, s ExportStore, w io.Writer, project string) (ExportCount, error) {
	var n ExportCount
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	exported, err := exportMemories(ctx, s, enc, project)
	n.Memories = len(exported)
	if err != nil {
		return n, err
	}
	if n.Relations, err = exportRelations(ctx, s, enc, exported); err != nil {
		return n, err
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	return n, nil
}

// exportMemories writes the memory lines and returns the ids written, in
// order.
func exportMemories(ctx context.Context, s ExportStore, enc *json.Encoder, project string) ([]record.ID, error) {
	var exported []record.ID
	var after record.ID
	for {
		ms, err := s.List(ctx, record.ListOptions{Limit: exportPage, After: after, Oldest: true})
		if err != nil {
			return exported, err
		}
		for _, m := range ms {
			if project != "" && m.Project != project {
				continue
			}
			if err := enc.Encode(MemoryOf(m).Export()); err != nil {
				return exported, fmt.Errorf("export: %w", err)
			}
			exported = append(exported, m.ID)
		}
		if len(ms) < exportPage {
			return exported, nil
		}
		after = ms[len(ms)-1].ID
	}
}

// exportRelation is a relation line of an export, written after every
// memory line so that import links memories it has stored.
type exportRelation struct {
	Relation bulkimport.RelationLine `json:"relation"`
}

// exportRelations writes a line per relation between exported memories,
// from its source, and counts them.
func exportRelations(ctx context.Context, s ExportStore, enc *json.Encoder, exported []record.ID) (int, error) {
	in := make(map[record.ID]bool, len(exported))
	for _, id := range exported {
		in[id] = true
	}
	n := 0
	for _, id := range exported {
		rs, err := s.Relations(ctx, id)
		if err != nil {
			return n, fmt.Errorf("export: %w", err)
		}
		for _, r := range rs {
			if r.From != id || !in[r.To] { // each relation once, from its source; both ends exported
				continue
			}
			l := bulkimport.RelationLine{From: r.From.String(), To: r.To.String(), Type: r.Type, Weight: r.Weight, CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano)}
			if err := enc.Encode(exportRelation{l}); err != nil {
				return n, fmt.Errorf("export: %w", err)
			}
			n++
		}
	}
	return n, nil
}
