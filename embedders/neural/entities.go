package neural

import (
	"context"
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/entities"
	"github.com/cgraph/cgraph/fingerprint"
)

// noEntities is the E11 note of a memory that names no entity.
const noEntities = "no entity found (identifier, library, path, error code or version)"

// entityEmbedder is E11 with its model: the entity set of package entities
// plus an entity vector, the embedding of the entity names (kind prefixes
// dropped) joined by ", ".
type entityEmbedder struct {
	lm     *loaded
	status embedders.SlotStatus
}

var _ embedders.Embedder = (*entityEmbedder)(nil)

func (e *entityEmbedder) Slot() fingerprint.SlotID     { return fingerprint.E11 }
func (e *entityEmbedder) Status() embedders.SlotStatus { return e.lm.withDevice(e.status) }

// entityText is what the entity vector embeds: the names without their kind
// prefixes ("lib:rocksdb" → "rocksdb").
func entityText(names []string) string {
	bare := make([]string, len(names))
	for i, n := range names {
		if _, after, ok := strings.Cut(n, ":"); ok {
			n = after
		}
		bare[i] = n
	}
	return strings.Join(bare, ", ")
}

func (e *entityEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	sets := make([][]string, len(docs))
	var texts []string
	var idx []int
	embedders.ForEach(len(docs), func(i int) { sets[i] = entities.Extract(docs[i].Text) }) // the regexps: on all cores while the GPU runs the other slots
	for i := range docs {
		if len(sets[i]) == 0 {
			out[i] = fingerprint.Entry{Status: fingerprint.StatusUnavailable, Note: noEntities}
			continue
		}
		texts, idx = append(texts, entityText(sets[i])), append(idx, i)
	}
	if len(texts) == 0 {
		return out, nil
	}
	vs, err := e.lm.EmbedPrefixed(ctx, "", texts)
	if err != nil {
		return nil, fmt.Errorf("E11: %w", err)
	}
	for k, v := range vs {
		i := idx[k]
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: e.status.Producer, Note: truncNote(v.Meta, e.lm),
			Value: fingerprint.Entities{Names: sets[i], Vector: v.Vector}}
	}
	return out, nil
}

// EmbedQuery extracts the query's entities and embeds them; a query naming
// none is a caller error (entity search has nothing to match).
func (e *entityEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	if err := symmetric(fingerprint.E11, q); err != nil {
		return embedders.QueryView{}, err
	}
	names := entities.Extract(q.Text)
	if len(names) == 0 {
		return embedders.QueryView{}, embedders.Nothing("E11: query %s names no entity (identifier, library, path, error code or version)", embedders.Quote(q.Text))
	}
	v, err := embedOne(ctx, e.lm, "", entityText(names), fingerprint.E11)
	if err != nil {
		return embedders.QueryView{}, err
	}
	return embedders.QueryView{Slot: fingerprint.E11, Value: fingerprint.Entities{Names: names, Vector: v}}, nil
}

// buildE11: the entity set plus an all-MiniLM-L6-v2 entity vector; without
// the model, the set-only embedder of package entities (status fallback).
func buildE11(l *loader) (embedders.Embedder, error) {
	id := l.cfg.variant(l.mf, modelMiniLM)
	lm, _, err := l.get(id)
	if err != nil {
		return nil, err
	}
	if lm == nil {
		return entities.Embedder{}, nil
	}
	return &entityEmbedder{lm: lm, status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
		Producer: lm.producer("E11 entity vector v1", entities.ListSHA256),
		Representation: fmt.Sprintf("entity set (identifiers, calls, %d known names, paths, error codes, versions) + %d-d %s embedding of the names; onnx sha256 %s",
			entities.Names(), lm.meta.Dims, id, lm.short())}}, nil
}
