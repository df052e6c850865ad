package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/redact"
)

// Engine is a memory store with fingerprints and search: memory records plus
// every slot's derived data in one WriteBatch per write, in-memory indexes
// rebuilt on open, and pipeline search over them. It is safe for concurrent
// use: writes are serialised by writeMu (embedding happens before it is
// taken), searches run in parallel with each other.
type Engine struct {
	dir    string
	cellar *cellar.Store // the store's RocksDB families (engine/internal/cellar)
	reg    *embedders.Registry
	ro     bool
	// maxBytes is the content limit (cellar.Options.MaxContentBytes).
	maxBytes int
	nearDup  NearDuplicate
	// deferred are the slots AddBatch leaves to the filler (Options.DeferSlots).
	deferred []fingerprint.SlotID
	filler   *filler
	// onConflict is the policy of writes that name none (Options.OnConflict).
	onConflict record.ConflictPolicy
	// fusion is the fusion of searches that name none (Options.Fusion).
	fusion Fusion
	// writeSteps accumulates where this engine's writes spent their time
	// (WriteStats); guarded by statsMu.
	statsMu    sync.Mutex
	writeSteps writeSteps
	// failCommit, set by a test, is the error the next commit of write
	// fails with instead of committing. Guarded by writeMu.
	failCommit error

	// writeMu serialises Add, AddBatch, Delete and Reembed from the batch
	// to the index update, so indexes follow the store's commit order.
	// Lock order: writeMu, then the cellar's write lock (a Batch), then mu.
	writeMu sync.Mutex

	// mu guards the fields below. Searches hold it shared; swapping the
	// index set, changing slot records and read-only catch-up hold it
	// exclusively.
	mu sync.RWMutex
	ix *indexSet
	// stored is the slot registry as recorded in the store.
	stored [fingerprint.NumSlots]slotRecord
	// stale[i] is non-empty when slot i's stored producer differs from the
	// current one (opened with Options.Reembed): the slot cannot be searched
	// or written until Reembed finishes; the text says why.
	stale [fingerprint.NumSlots]string
	// seenNext and generation are a read-only store's position in the
	// writer's history: docs below seenNext are indexed, generation is the
	// slot/generation the indexes were built at, and edits the writer's
	// meta/edit_count they include.
	seenNext   record.DocNum
	generation uint64
	edits      uint64

	catchMu sync.Mutex // one catch-up at a time (read-only stores)

	// uses counts the memories searches hand out and writes the counts in
	// batches; nil on a read-only store.
	uses *useLog
	now  func() time.Time // Options.Clock, or time.Now
	// redactor removes secrets on every write; nil with KeepSecrets.
	redactor *redact.Redactor

	views *viewCache // encoded query views; nil when turned off
	// tokens caches decoded E12 matrices for S4; nil when read-only or off.
	tokens *tokenCache
	// judged caches the contradiction judge's words of stored memories
	// that writes compared new ones with; nil when read-only.
	judged *judgedWords
}

// Open opens (or with o.Create creates) the store in dir, checks the
// recorded slot producers against o.Embedders (refusing a mismatch with
// *ProducerMismatchError unless o.Reembed), and rebuilds the in-memory indexes
// from the column families. A read-only store (o.ReadOnly) catches up
// with the writer's new and deleted memories before every Search.
//
// Without o.Embedders the engine opens for records only — List, Get, Peek,
// Stats, Check, SessionTimeline, Delete, snapshots — loading no model and
// building no index, the way commands that only read records stay fast;
// Add, Search and Reembed then return ErrNoEmbedders.
func Open(dir string, o Options) (*Engine, error) {
	s := &Engine{dir: dir, reg: o.Embedders, ro: o.ReadOnly, maxBytes: o.MaxContentBytes, nearDup: o.NearDuplicate, now: o.Clock}
	if s.now == nil {
		s.now = time.Now
	}
	switch {
	case o.KeepSecrets:
	case o.Redactor != nil:
		s.redactor = o.Redactor
	default:
		s.redactor = redact.Default()
	}
	if s.nearDup == (NearDuplicate{}) {
		s.nearDup = DefaultNearDuplicate
	}
	switch {
	case o.ViewCacheSize == 0:
		s.views = newViewCache(DefaultViewCacheSize)
	case o.ViewCacheSize > 0:
		s.views = newViewCache(o.ViewCacheSize)
	}
	switch {
	case o.ReadOnly:
	case o.TokenCacheBytes == 0:
		s.tokens = newTokenCache(DefaultTokenCacheBytes)
	case o.TokenCacheBytes > 0:
		s.tokens = newTokenCache(o.TokenCacheBytes)
	}
	if !o.ReadOnly {
		s.judged = newJudgedWords(judgedWordsBytes)
	}
	onConflict, err := record.ParseConflictPolicy(string(o.OnConflict))
	if err != nil {
		return nil, err
	}
	s.onConflict = onConflict
	if !o.Fusion.Valid() {
		return nil, fmt.Errorf("open %s: invalid fusion %d: give rrf or minmax", dir, o.Fusion)
	}
	s.fusion = o.Fusion
	eo := cellar.Options{ReadOnly: o.ReadOnly, Create: o.Create, MaxContentBytes: o.MaxContentBytes, Sync: o.Sync,
		CreatedBy: Version}
	eng, err := cellar.Open(dir, eo)
	if err != nil {
		return nil, err
	}
	s.cellar = eng
	if !o.ReadOnly && !o.NoUses {
		s.uses = newUseLog(eng, s.now)
		go s.uses.run(UseFlushInterval)
	}
	if o.Embedders == nil {
		return s, nil // records only: no slot registry check, no indexes
	}
	if err := s.open(context.Background(), o); err != nil {
		return nil, errors.Join(err, s.uses.close(), eng.Close())
	}
	s.deferred = slices.Clone(o.DeferSlots)
	slices.Sort(s.deferred)
	s.deferred = slices.Compact(s.deferred)
	if slices.Contains(s.deferred, fingerprint.E4) {
		return nil, errors.Join(fmt.Errorf("E4 cannot be deferred: its value comes from the sequence number the write assigns"), s.uses.close(), eng.Close())
	}
	if len(s.deferred) > 0 && !o.ManualFill {
		s.StartFiller() // also resumes what a previous process left pending
	}
	return s, nil
}

func (s *Engine) open(ctx context.Context, o Options) error {
	recs, have, gen, err := readSlotRecords(ctx, s.cellar)
	if err != nil {
		return err
	}
	c, err := s.cellar.Counters(ctx)
	if err != nil {
		return err
	}
	mism, write := mismatches(&recs, have, c.Memories, s.reg.Statuses())
	if len(mism) > 0 && !o.Reembed {
		return &ProducerMismatchError{Dir: s.dir, Mismatches: mism}
	}
	s.stale = staleReasons(mism)
	if write && !s.ro {
		if err := s.recordProducers(ctx, &recs); err != nil {
			return fmt.Errorf("record slot producers: %w", err)
		}
	}
	s.stored = recs
	ix, err := rebuild(ctx, s.cellar, s.staleFlags(), s.wantDims())
	if errors.Is(err, record.ErrCorrupt) {
		return fmt.Errorf("open %s: %w: `cgraph check` names what is damaged, `cgraph check --repair` rewrites derived families from the fingerprints", s.dir, err)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", s.dir, err)
	}
	s.ix, s.seenNext, s.generation, s.edits = ix, c.NextDocNum, gen, c.Edits
	return nil
}

// Close closes the store.
func (s *Engine) Close() error {
	s.filler.close()
	uerr := s.uses.close()
	return errors.Join(uerr, s.cellar.Close())
}

// Dir returns the store directory.
func (s *Engine) Dir() string { return s.dir }

// StoreID returns the store's identity (FORMAT.md, meta/store_id) as text;
// "" for a store that no writer of this build has opened yet.
func (s *Engine) StoreID() string { return s.cellar.ID() }

// ReadOnly reports whether the store was opened read-only.
func (s *Engine) ReadOnly() bool { return s.ro }

// Registry returns the embedders the store computes fingerprints with.
func (s *Engine) Registry() *embedders.Registry { return s.reg }

// Warm opens every model the registry has by fingerprinting one short text
// (and throws it away): model sessions open on first use, so a long-lived
// server calls Warm at start and its first request does not pay for loading.
// It then fills the E12 token cache (WarmTokens). It writes nothing.
func (s *Engine) Warm(ctx context.Context) error {
	if _, err := s.reg.EmbedDocuments(ctx, []embedders.Input{{Text: "cgraph warm-up: load the models", Created: time.Now()}}); err != nil {
		return fmt.Errorf("warm the models: %w", err)
	}
	_, err := s.WarmTokens(ctx)
	return err
}

// Get returns a memory (records the access on a writable store, like
// cellar.Get).
func (s *Engine) Get(ctx context.Context, id record.ID) (record.Memory, error) {
	m, err := s.cellar.Get(ctx, id)
	if err == nil {
		s.markRelations(ctx, &m)
	}
	return m, err
}

// Fingerprint returns the stored fingerprint of a memory.
func (s *Engine) Fingerprint(ctx context.Context, id record.ID) (*fingerprint.Fingerprint, error) {
	vals, err := s.cellar.Values(ctx, cellar.FamFingerprints, [][]byte{id[:]})
	if err != nil {
		return nil, err
	}
	if vals[0] == nil {
		if _, err := s.cellar.DocNumOf(ctx, id); err != nil {
			return nil, err // not found
		}
		return nil, fmt.Errorf("memory %s has no fingerprint (written without package memory): run `cgraph reembed`: %w", id, record.ErrCorrupt)
	}
	fp, err := fingerprint.Decode(vals[0])
	if err != nil {
		return nil, fmt.Errorf("fingerprints/%s: %w", id, err)
	}
	doc, err := s.cellar.DocNumOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.hydrateE12(ctx, []record.DocNum{doc}, []*fingerprint.Fingerprint{fp}); err != nil {
		return nil, err
	}
	return fp, nil
}

// EachFingerprint calls fn for every memory in doc-number order with its
// record and fingerprint (for topics, divergence, exports). fn must not call
// Engine methods. Records are read without recording an access. Cost: one
// sequential pass over the doc numbers and a point read per memory and
// fingerprint, 256 at a time.
func (s *Engine) EachFingerprint(ctx context.Context, fn func(m record.Memory, fp *fingerprint.Fingerprint) error) error {
	var ids []record.ID
	if err := s.cellar.ScanDocs(ctx, func(_ record.DocNum, id record.ID) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		return err
	}
	const chunk = 256
	for lo := 0; lo < len(ids); lo += chunk {
		part := ids[lo:min(lo+chunk, len(ids))]
		ms, fps, err := s.readMemories(ctx, part)
		if err != nil {
			return err
		}
		for i := range ms {
			if fps[i] == nil {
				continue // deleted since the scan
			}
			if err := fn(ms[i], fps[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readMemories reads records and fingerprints of ids; a memory deleted
// meanwhile gets a nil fingerprint.
func (s *Engine) readMemories(ctx context.Context, ids []record.ID) ([]record.Memory, []*fingerprint.Fingerprint, error) {
	ms, fps, err := s.readComparable(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	docs := make([]record.DocNum, len(ms))
	for i := range ms {
		docs[i] = ms[i].DocNum
	}
	if err := s.hydrateE12(ctx, docs, fps); err != nil {
		return nil, nil, err
	}
	return ms, fps, nil
}

// readComparable is readMemories without the E12 token matrices: what a
// caller that compares memories by E1, E6 and E11 (near-duplicates,
// contradictions) needs, at a fraction of the bytes read.
func (s *Engine) readComparable(ctx context.Context, ids []record.ID) ([]record.Memory, []*fingerprint.Fingerprint, error) {
	ms, found, err := s.cellar.Peek(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	fps, err := s.storedFingerprints(ctx, ids, found)
	if err != nil {
		return nil, nil, err
	}
	return ms, fps, nil
}

// storedFingerprints decodes the stored fingerprints of ids (nil where
// found[i] is false) without their E12 token matrices, which live in their
// own family (hydrateE12 adds them): what a caller that compares E1, E6 or
// E11 needs. Given slots, only those are decoded (fingerprint.DecodeSlots).
func (s *Engine) storedFingerprints(ctx context.Context, ids []record.ID, found []bool, slots ...fingerprint.SlotID) ([]*fingerprint.Fingerprint, error) {
	keys := make([][]byte, len(ids))
	for i := range ids {
		keys[i] = ids[i][:]
	}
	fps := make([]*fingerprint.Fingerprint, len(ids))
	// Decoded in place: a decode copies what it keeps (fingerprint.Decode),
	// so a write's similar search reads each close memory's ~15 KB
	// fingerprint without copying it twice to decode its E6 and E11.
	err := s.cellar.ViewValues(ctx, cellar.FamFingerprints, keys, func(i int, v []byte, ok bool) error {
		if !found[i] {
			return nil
		}
		if !ok {
			return fmt.Errorf("memory %s has no fingerprint (written without package memory): run `cgraph reembed`: %w", ids[i], record.ErrCorrupt)
		}
		var err error
		if len(slots) == 0 {
			fps[i], err = fingerprint.Decode(v)
		} else {
			fps[i], err = fingerprint.DecodeSlots(v, slots...)
		}
		if err != nil {
			return fmt.Errorf("fingerprints/%s: %w", ids[i], err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fps, nil
}

// indexKind names the in-memory index of each slot for SlotInfo.
var indexKind = [fingerprint.NumSlots]string{
	"dense ANN (int8 sign sketch + exact rerank) + Matryoshka-128 flat scan",
	"post-retrieval badge (recency from creation time)",
	"post-retrieval badge (hour/weekday periodicity)",
	"post-retrieval badge (session position)",
	"two dense ANN (as-cause, as-effect)",
	"inverted (BM25, MaxScore)",
	"dense ANN (int8 sign sketch + exact rerank)",
	"two dense ANN (as-source, as-target)",
	"dense ANN over the projection, exact Hamming rescore",
	"two dense ANN (as-intent, as-context)",
	"dense ANN over entity vectors + entity-set Jaccard",
	"MaxSim over token matrices loaded from disk (rerank only)",
	"inverted (SPLADE impacts, recall only)",
}

// Slots reports the 13 slots in order: status from the registry (or why the
// slot is stale), index kind, docs, RAM, stored producer.
func (s *Engine) Slots() []SlotInfo {
	if s.reg == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	cur := s.reg.Statuses()
	ram := s.ix.ramBytes()
	out := make([]SlotInfo, fingerprint.NumSlots)
	for i, slot := range fingerprint.Slots() {
		st := cur[i]
		if s.stale[i] != "" {
			st.State, st.Reason = fingerprint.StatusUnavailable, s.stale[i]
		}
		s.ix.mu.RLock()
		docs := int(s.ix.has[i].GetCardinality())
		s.ix.mu.RUnlock()
		out[i] = SlotInfo{Slot: slot, Name: slot.Info().Name, Status: st, Index: indexKind[i],
			Docs: docs, RAMBytes: ram[i], Stored: s.stored[i].Producer}
	}
	return out
}

// RAMBytes is the estimated heap size of all in-memory indexes.
func (s *Engine) RAMBytes() int64 {
	var n int64
	for _, si := range s.Slots() {
		n += si.RAMBytes
	}
	return n
}

// staleFlags reports which slots await Reembed.
func (s *Engine) staleFlags() (out [fingerprint.NumSlots]bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i, why := range s.stale {
		out[i] = why != ""
	}
	return out
}

// wantDims is each slot's dense dimension per the current registry.
func (s *Engine) wantDims() (out [fingerprint.NumSlots]int) {
	for i, st := range s.reg.Statuses() {
		out[i] = st.Dims
	}
	return out
}

// mismatches compares the stored slot records with the current embedders.
// In a store without memories the current producers simply become the
// store's (recs is updated and write says they must be written).
func mismatches(recs *[fingerprint.NumSlots]slotRecord, have [fingerprint.NumSlots]bool, memories uint64, cur []embedders.SlotStatus) (mism []Mismatch, write bool) {
	for i, slot := range fingerprint.Slots() {
		now := recordOf(cur[i])
		switch {
		case memories == 0:
			write = write || !have[i] || recs[i] != now
			recs[i] = now
		case !have[i]:
			// Memories without a registry (written before it existed):
			// nothing is known about them, so the slot counts as stored by
			// nothing and mismatches any producer.
			if now.Producer != (fingerprint.Producer{}) {
				mism = append(mism, Mismatch{Slot: slot, Current: now.Producer})
			}
		case recs[i].Producer != now.Producer:
			mism = append(mism, Mismatch{Slot: slot, Stored: recs[i].Producer, Current: now.Producer, Unavailable: cur[i].Reason})
		}
	}
	return mism, write
}

// staleReasons says, per mismatched slot, why it cannot be searched.
func staleReasons(mism []Mismatch) (out [fingerprint.NumSlots]string) {
	for _, m := range mism {
		if m.broken() {
			out[m.Slot.Index()] = fmt.Sprintf("%s values were computed by %s, whose embedder is unavailable now: %s",
				m.Slot, producerName(m.Stored), m.Unavailable)
			continue
		}
		out[m.Slot.Index()] = fmt.Sprintf("%s values were computed by %s, the installed embedder is %s: run `cgraph reembed --slot %s`",
			m.Slot, producerName(m.Stored), producerName(m.Current), m.Slot)
	}
	return out
}

// Backup writes a consistent, openable copy of the store into dir (which
// must not exist), online: see cellar.Store.Backup. Only the writer can.
func (s *Engine) Backup(ctx context.Context, dir string) error { return s.cellar.Backup(ctx, dir) }

// ServerFile is the path of the file a running `cgraph serve` writes in the
// store directory dir to be found by other commands (see
// cellar.ServerFileName).
func ServerFile(dir string) string { return filepath.Join(dir, cellar.ServerFileName) }
