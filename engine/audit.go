package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// ActionID names one action of the audit log: 16 bytes, a UUIDv7, so ids
// sort by time. Its text is "a-" and 32 hex digits; ResolveAction also
// takes its last MinIDPrefix or more digits.
type ActionID [16]byte

// NewActionID returns a new, time-ordered action id.
func NewActionID() ActionID { return ActionID(record.NewID()) }

// String is "a-" + 32 hex digits.
func (a ActionID) String() string { return "a-" + hex.EncodeToString(a[:]) }

// MarshalText writes the String form.
func (a ActionID) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads the String form.
func (a *ActionID) UnmarshalText(b []byte) error {
	s := string(b)
	raw, err := hex.DecodeString(strings.TrimPrefix(s, "a-"))
	if err != nil || len(raw) != 16 || !strings.HasPrefix(s, "a-") {
		return &record.ValidationError{Field: "action", Problem: fmt.Sprintf("%q is not an action id", s),
			Fix: "give the id `cgraph log` prints (a- and 32 hex digits), or its last 8 or more hex digits"}
	}
	copy(a[:], raw)
	return nil
}

// AuditEntry is one action in the audit log: what was done to which
// memory, on what evidence, by whom, and whether it was undone. An entry is
// written in the same batch as the action it describes, so the log never
// names an action that did not happen nor misses one that did.
type AuditEntry struct {
	ID ActionID  `json:"id"`
	At time.Time `json:"at"`
	// Action is a MaintainAction's: prune, merge_duplicate, supersede or
	// consolidate.
	Action string    `json:"action"`
	Memory record.ID `json:"memory"`
	Keep   record.ID `json:"keep,omitzero"`
	// Evidence is why: the MaintainAction's reason.
	Evidence string `json:"evidence"`
	// By says what ran it: "schedule" (serve --maintain-every) or
	// "maintain" (cgraph maintain --apply).
	By string `json:"by"`
	// Content is the start of the memory's content, so the log says what
	// went without the memory.
	Content string `json:"content"`
	// Linked are the relations the action added: a merge's links moved
	// onto Keep, a supersede's link. Undo removes them.
	Linked []record.Relation `json:"linked,omitempty"`
	// Kept says the action deleted the memory and kept it, with its
	// history and relations, for Undo.
	Kept     bool      `json:"kept"`
	UndoneAt time.Time `json:"undone_at,omitzero"`
}

// auditVersion follows cellar.AuditEntryMagic in every entry value; JSON
// follows it.
const auditVersion = 1

func encodeAudit(e *AuditEntry) ([]byte, error) {
	j, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode audit entry %s: %w", e.ID, err)
	}
	return append(append([]byte(cellar.AuditEntryMagic), auditVersion), j...), nil
}

// decodeAudit decodes an entry value. It never panics and wraps
// record.ErrCorrupt for anything that is not an entry.
func decodeAudit(v []byte) (AuditEntry, error) {
	var e AuditEntry
	m := len(cellar.AuditEntryMagic)
	if len(v) < m+1 || string(v[:m]) != cellar.AuditEntryMagic {
		return e, fmt.Errorf("audit entry: no %q magic: %w", cellar.AuditEntryMagic, record.ErrCorrupt)
	}
	if v[m] != auditVersion {
		return e, fmt.Errorf("audit entry: version %d, this cgraph reads version %d (upgrade cgraph): %w", v[m], auditVersion, record.ErrCorrupt)
	}
	dec := json.NewDecoder(bytes.NewReader(v[m+1:]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return AuditEntry{}, fmt.Errorf("audit entry: %w: %w", err, record.ErrCorrupt)
	}
	if dec.More() {
		return AuditEntry{}, fmt.Errorf("audit entry: trailing data: %w", record.ErrCorrupt)
	}
	return e, nil
}

// contentStart is the first 120 characters of content, for the log.
func contentStart(content string) string {
	const n = 120
	if utf8.RuneCountInString(content) <= n {
		return content
	}
	return string([]rune(content)[:n]) + "…"
}

// applyAction carries out one maintenance action in one batch with its
// audit entry: prune, merge_duplicate and consolidate delete the memory
// keeping it for Undo (a merge or consolidate first moves its relations
// onto the kept memory; a consolidate also keeps its record as an earlier
// revision of Keep, cellar.Fold); supersede links Keep → ID. After a crash the store holds the action and
// its entry, or neither. It returns the entry.
func (s *Engine) applyAction(ctx context.Context, a MaintainAction, by string, now time.Time) (AuditEntry, error) {
	e := AuditEntry{ID: NewActionID(), At: now.UTC(), Action: a.Action, Memory: a.ID, Keep: a.Keep, Evidence: a.Reason, By: by}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return e, err
	}
	defer b.Abort()
	m, err := b.Memory(a.ID)
	if err != nil {
		return e, err
	}
	e.Content = contentStart(m.Content)
	if a.faded && (s.uses.waiting(a.ID) || DecayOf(m, now).IdleDays < DecayOf(m, now).HalfLife) {
		return e, &changedError{fmt.Sprintf("memory %s was used since it was listed", a.ID)}
	}
	var rels []record.Relation
	switch a.Action {
	case "supersede":
		r := record.Relation{From: a.Keep, To: a.ID, Type: record.RelSupersedes, Weight: record.DefaultRelationWeight, CreatedAt: e.At}
		if err := b.Link(r); err != nil {
			return e, err
		}
		e.Linked = []record.Relation{r}
	case "prune", "merge_duplicate", "consolidate":
		if a.Action == "consolidate" { // never across projects, even if one moved since the listing
			if k, err := b.Memory(a.Keep); err != nil {
				return e, err
			} else if k.Project != m.Project {
				return e, &changedError{fmt.Sprintf("memory %s moved to another project than %s since it was listed", a.ID, a.Keep)}
			}
		}
		if m, rels, err = s.deleteIn(ctx, b, a.ID, &e.ID); err != nil {
			return e, err
		}
		e.Kept = true
		if a.Action != "prune" {
			if e.Linked, err = moveLinks(b, rels, a.ID, a.Keep); err != nil {
				return e, err
			}
		}
		if a.Action == "consolidate" { // the content stays, as an earlier revision of the survivor
			if _, err := b.Fold(a.Keep, m); err != nil {
				return e, fmt.Errorf("fold %s into %s: %w", a.ID, a.Keep, err)
			}
		}
	default:
		return e, fmt.Errorf("maintenance action %q is not one this build applies (broken invariant)", a.Action)
	}
	enc, err := encodeAudit(&e)
	if err != nil {
		return e, err
	}
	b.PutAuditEntry(e.ID, enc)
	if err := b.Commit(); err != nil {
		return e, fmt.Errorf("%s %s: %w", a.Action, a.ID, err)
	}
	if e.Kept {
		s.afterDelete(ctx, m, rels)
	}
	for _, r := range e.Linked {
		s.setMark(ctx, r.Type, r.From, r.To, true)
	}
	return e, nil
}

// changedError says a listed action no longer holds: the memory was used
// (or changed) between Maintain's listing and the action's batch.
type changedError struct{ why string }

func (e *changedError) Error() string { return e.why }

// moveLinks relinks each relation of the deleted copy onto keep, keeping
// its type, weight and time; a relation with keep itself, or one keep
// already has, is not moved. It returns the relations it added.
func moveLinks(b *cellar.Batch, rels []record.Relation, copyID, keep record.ID) ([]record.Relation, error) {
	var added []record.Relation
	for _, r := range rels {
		if r.From == copyID {
			r.From = keep
		} else {
			r.To = keep
		}
		if r.From == r.To || slices.ContainsFunc(added, func(x record.Relation) bool { return x.From == r.From && x.To == r.To && x.Type == r.Type }) {
			continue
		}
		if has, err := b.HasRelation(r.From, r.To, r.Type); err != nil {
			return nil, err
		} else if has {
			continue
		}
		if err := b.Link(r); err != nil {
			return nil, fmt.Errorf("move relation %s %s %s onto %s: %w", r.From, r.Type, r.To, keep, err)
		}
		added = append(added, r)
	}
	return added, nil
}

// Undo reverses an action of the audit log in one batch: the relations it
// added are removed, a consolidate's revision is taken out of the survivor
// (cellar.Unfold), and a memory it deleted is stored again with the same
// id, record, history and relations (those whose other memory is still
// stored), its fingerprint and indexes derived from what the delete kept —
// no model runs. The entry is marked undone. An action undone already, or
// one whose memory was stored again since, is refused with a
// *record.ValidationError.
func (s *Engine) Undo(ctx context.Context, id ActionID) (AuditEntry, error) {
	if s.ro {
		return AuditEntry{}, s.refuseReadOnly("change it")
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return AuditEntry{}, err
	}
	defer b.Abort()
	e, err := undoable(b, id)
	if err != nil {
		return e, err
	}
	for _, r := range e.Linked {
		if _, err := b.Unlink(r.From, r.To, r.Type); err != nil {
			return e, err
		}
	}
	if e.Action == "consolidate" {
		if _, err := b.Unfold(e.Keep, e.Memory); err != nil {
			return e, fmt.Errorf("undo %s: take the folded revision out of %s: %w", id, e.Keep, err)
		}
	}
	var m record.Memory
	var fp *fingerprint.Fingerprint
	var back []record.Relation
	if e.Kept {
		if m, fp, back, err = s.restoreKept(b, id); err != nil {
			return e, err
		}
	}
	e.UndoneAt = s.clock().UTC()
	enc, err := encodeAudit(&e)
	if err != nil {
		return e, err
	}
	b.PutAuditEntry(id, enc)
	if err := b.Commit(); err != nil {
		return e, fmt.Errorf("undo %s: %w", id, err)
	}
	for _, r := range e.Linked {
		s.setMark(ctx, r.Type, r.From, r.To, false)
	}
	if e.Kept && s.ix != nil && fp != nil {
		if err := s.ix.apply(m, fp, nil); err != nil {
			return e, fmt.Errorf("memory %s was restored but not indexed (reopen the store to rebuild its indexes): %w", m.ID, err)
		}
	}
	for _, r := range back {
		if r.Type == record.RelSupersedes {
			s.setMark(ctx, r.Type, r.From, r.To, true)
		}
	}
	return e, nil
}

// undoable reads the audit entry of action id, refusing one that is not
// in the log or was undone already.
func undoable(b *cellar.Batch, id ActionID) (AuditEntry, error) {
	v, ok, err := b.Get(cellar.FamDefault, cellar.AuditEntryKey(id))
	if err != nil {
		return AuditEntry{}, err
	}
	if !ok {
		return AuditEntry{}, fmt.Errorf("%w: no action %s in the audit log (`cgraph log` lists them)", record.ErrNotFound, id)
	}
	e, err := decodeAudit(v)
	if err != nil {
		return AuditEntry{}, fmt.Errorf("default/audit/e/%x: %w", id[:], err)
	}
	if !e.UndoneAt.IsZero() {
		return e, &record.ValidationError{Field: "action", Problem: fmt.Sprintf("%s was undone at %s", id, e.UndoneAt.Format(time.RFC3339)),
			Fix: "nothing to do; `cgraph log` shows every action and whether it was undone"}
	}
	return e, nil
}

// restoreKept puts back in b the memory action id deleted and kept: its
// record, history and relations (cellar.Restore), and its fingerprint with
// the values derived from it, when the store's models still made it. It
// returns the memory, its fingerprint (nil when none was kept) and the
// relations restored.
func (s *Engine) restoreKept(b *cellar.Batch, id ActionID) (record.Memory, *fingerprint.Fingerprint, []record.Relation, error) {
	k, err := b.Restore(id)
	if err != nil {
		return record.Memory{}, nil, nil, fmt.Errorf("undo %s: %w", id, err)
	}
	m := k.Memory
	if len(k.Fingerprint) == 0 {
		return m, nil, k.Relations, nil
	}
	fp, err := fingerprint.Decode(k.Fingerprint)
	if err != nil {
		return m, nil, nil, fmt.Errorf("undo %s: the kept fingerprint of %s: %w", id, m.ID, err)
	}
	if err := s.sameProducers(fp); err != nil {
		return m, nil, nil, fmt.Errorf("undo %s: %w", id, err)
	}
	if err := s.writeMemory(b, m, fp); err != nil {
		return m, nil, nil, fmt.Errorf("undo %s: memory %s: %w", id, m.ID, err)
	}
	return m, fp, k.Relations, nil
}

// sameProducers refuses a kept fingerprint whose slots were computed by
// other models than the store's now (a re-embed ran since the delete).
func (s *Engine) sameProducers(fp *fingerprint.Fingerprint) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, slot := range fingerprint.Slots() {
		got, want := fp.Get(slot), s.stored[slot.Index()].Producer
		if got.Value != nil && want != (fingerprint.Producer{}) && got.Producer != want {
			return &record.ValidationError{Field: "action", Problem: fmt.Sprintf("the memory's %s was computed by %s, the store's by %s now (re-embedded since)", slot, producerName(got.Producer), producerName(want)),
				Fix: "add the memory again from `cgraph log --json` (its content is there), or re-embed after the undo is impossible"}
		}
	}
	return nil
}

// clock is Options.Clock, or time.Now.
func (s *Engine) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// AuditLog returns the newest limit entries of the audit log (limit ≤ 0:
// all), newest first. Cost: one scan of the log's keys.
func (s *Engine) AuditLog(ctx context.Context, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.cellar.Scan(ctx, cellar.FamDefault, cellar.AuditEntryPrefix, func(k, v []byte) error {
		e, err := decodeAudit(v)
		if err != nil {
			return fmt.Errorf("default/audit/e/%x: %w", k[len(cellar.AuditEntryPrefix):], err)
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the audit log: %w", err)
	}
	slices.Reverse(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ResolveAction turns an action id, or its last MinIDPrefix or more hex
// digits, into the id. Cost: a scan of the log's keys for a suffix.
func (s *Engine) ResolveAction(ctx context.Context, text string) (ActionID, error) {
	text = strings.ToLower(strings.TrimSpace(text))
	var id ActionID
	if id.UnmarshalText([]byte(text)) == nil {
		return id, nil
	}
	digits := strings.TrimPrefix(text, "a-")
	if _, err := hex.DecodeString(digits + strings.Repeat("0", len(digits)%2)); err != nil || len(digits) < MinIDPrefix || len(digits) > 32 {
		return id, &record.ValidationError{Field: "action", Problem: fmt.Sprintf("%q is not an action id", text),
			Fix: fmt.Sprintf("give the id `cgraph log` prints (a- and 32 hex digits), or its last %d or more hex digits", MinIDPrefix)}
	}
	var found []ActionID
	err := s.cellar.Scan(ctx, cellar.FamDefault, cellar.AuditEntryPrefix, func(k, _ []byte) error {
		if h := hex.EncodeToString(k[len(cellar.AuditEntryPrefix):]); len(h) == 32 && strings.HasSuffix(h, digits) {
			var a ActionID
			copy(a[:], k[len(cellar.AuditEntryPrefix):])
			found = append(found, a)
		}
		return nil
	})
	switch {
	case err != nil:
		return id, fmt.Errorf("resolve action %s: %w", text, err)
	case len(found) == 0:
		return id, fmt.Errorf("%w: no action id ends with %s (`cgraph log` lists them)", record.ErrNotFound, digits)
	case len(found) > 1:
		return id, &record.ValidationError{Field: "action", Problem: fmt.Sprintf("%d actions end with %s", len(found), digits), Fix: "give more digits, or the whole id"}
	}
	return found[0], nil
}

// undoneActions are the actions undone, as action + "\x00" + memory id.
func (s *Engine) undoneActions(ctx context.Context) (map[string]bool, error) {
	log, err := s.AuditLog(ctx, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range log {
		if !e.UndoneAt.IsZero() {
			out[e.Action+"\x00"+e.Memory.String()] = true
		}
	}
	return out, nil
}
