package cellar

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// The record-only writes below are for this package's tests: package engine
// writes a memory only through a Batch that carries its derived data too.

// Add validates and stores one record in one atomic batch and returns it as
// stored. It writes the record and its indexes only; package engine adds a
// memory with its derived data through Begin. Cost: one WAL append (an
// fsync too with Options.Sync).
func (e *Store) Add(ctx context.Context, m record.NewMemory) (record.Memory, error) {
	ms, err := e.AddBatch(ctx, []record.NewMemory{m})
	if err != nil {
		return record.Memory{}, err
	}
	return ms[0], nil
}

// AddBatch validates every record first and then stores them all in one
// atomic batch: after a crash either all are stored or none. A bad record is
// reported as "memory N of M: <problem>" and nothing is written.
func (e *Store) AddBatch(ctx context.Context, ns []record.NewMemory) ([]record.Memory, error) {
	for i, n := range ns {
		if err := n.Validate(e.opts.MaxContentBytes); err != nil {
			return nil, BatchErr(len(ns), i, err)
		}
	}
	b, err := e.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Abort()
	out := make([]record.Memory, len(ns))
	for i, n := range ns {
		if out[i], err = b.Add(n); err != nil {
			return nil, BatchErr(len(ns), i, err)
		}
	}
	if err := b.Commit(); err != nil {
		return nil, fmt.Errorf("store %d memories: %w", len(ns), err)
	}
	return out, nil
}

// Delete removes the record and every key it owns in every family keyed per
// memory, in one atomic batch. Its doc number is never reused.
func (e *Store) Delete(ctx context.Context, id record.ID) error {
	b, err := e.Begin(ctx)
	if err != nil {
		return err
	}
	defer b.Abort()
	if _, err := b.Delete(id); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("delete memory %s: %w", id, err)
	}
	return nil
}
