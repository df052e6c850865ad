package cellar

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/cgraph/cgraph/record"
)

// SameContent returns the stored memories of project whose content equals
// content once white space is collapsed (record.SameContent), as committed
// plus this batch's own writes, by one prefix scan of content_hash: it
// cannot miss a copy however many memories share its words. The ids come
// in key order (UUIDv7: oldest first for memories this store created).
// Cost: one seek and a read per copy.
func (b *Batch) SameContent(project, content string) ([]record.ID, error) {
	h := contentHash(project, content)
	var ids []record.ID
	err := b.scan(FamContent, h[:], func(k, _ []byte) error {
		if len(k) != 48 {
			return fmt.Errorf("content_hash/%x is %d bytes, want 48: %w", k, len(k), record.ErrCorrupt)
		}
		ids = append(ids, record.ID(k[32:]))
		return nil
	})
	return ids, err
}

// contentBatch bounds the keys one batch of the content_hash migration
// writes.
const contentBatch = 4096

// buildContentIndex (the migration to format 3) makes content_hash hold
// exactly one key per stored record: it deletes whatever the family holds
// (what an interrupted run left, or keys an older build did not keep up
// to date), then writes the key of every record, in batches. The caller
// sets meta/format_version afterwards, so an interrupted run is redone
// from the start on the next writer open. Cost: one scan of memories.
func buildContentIndex(s *rocksStore) error {
	del := s.newBatch()
	defer del.destroy()
	it := s.iter(FamContent, nil, nil)
	for it.first(); it.valid(); it.next() {
		del.del(FamContent, slices.Clone(it.key()))
	}
	err := it.err()
	it.close()
	if err != nil {
		return fmt.Errorf("scan content_hash: %w", err)
	}
	if del.count() > 0 {
		if err := s.write(del, false); err != nil {
			return fmt.Errorf("clear content_hash: %w", err)
		}
	}
	b := s.newBatch()
	defer func() { b.destroy() }()
	it = s.iter(FamMemories, nil, nil)
	defer it.close()
	for it.first(); it.valid(); it.next() {
		m, err := decodeRecord(it.value())
		if err != nil {
			return fmt.Errorf("index the content of memories/%x: %w", it.key(), err)
		}
		b.put(FamContent, contentKey(contentHash(m.Project, m.Content), m.ID), nil)
		if b.count() >= contentBatch {
			if err := s.write(b, false); err != nil {
				return fmt.Errorf("write content_hash: %w", err)
			}
			b.destroy()
			b = s.newBatch()
		}
	}
	if err := it.err(); err != nil {
		return fmt.Errorf("scan memories: %w", err)
	}
	if b.count() > 0 {
		if err := s.write(b, true); err != nil {
			return fmt.Errorf("write content_hash: %w", err)
		}
	}
	return nil
}

// EachCopyGroup calls fn with the ids of every content hash that two or
// more stored memories share (in id order): the candidates for exact
// copies, still to be compared record by record (a hash collision is not
// a copy). Cost: one scan of content_hash's keys; no record is read.
func (e *Store) EachCopyGroup(ctx context.Context, fn func(ids []record.ID) error) error {
	var hash []byte
	var group []record.ID
	flush := func() error {
		if len(group) < 2 {
			return nil
		}
		return fn(group)
	}
	err := e.Scan(ctx, FamContent, nil, func(k, _ []byte) error {
		if len(k) != 48 {
			return fmt.Errorf("content_hash/%x: a key of %d bytes, want 48: %w", k, len(k), record.ErrCorrupt)
		}
		if !bytes.Equal(k[:32], hash) {
			if err := flush(); err != nil {
				return err
			}
			hash, group = bytes.Clone(k[:32]), nil
		}
		group = append(group, record.ID(k[32:]))
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
