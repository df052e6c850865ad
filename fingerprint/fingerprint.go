package fingerprint

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// Status says whether a slot of one fingerprint holds a value. The numbers are
// part of the binary format and never change.
type Status uint8

// Slot statuses. The zero value means the slot was not computed at all and is
// not written by the codec.
const (
	StatusMissing     Status = 0 // not computed (e.g. the fingerprint predates the slot)
	StatusPresent     Status = 1 // value produced by the slot's own method
	StatusFallback    Status = 2 // value produced by a documented fallback; Note says which
	StatusUnavailable Status = 3 // no value; Note says why (no model, no session, …)
	numStatuses              = 4
)

// String returns "missing", "present", "fallback" or "unavailable".
func (s Status) String() string {
	switch s {
	case StatusMissing:
		return "missing"
	case StatusPresent:
		return "present"
	case StatusFallback:
		return "fallback"
	case StatusUnavailable:
		return "unavailable"
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Producer identifies what computed a slot value: a model id and the sha256 of
// its weights, or for model-free slots an algorithm id and the sha256 of its
// parameters. The engine persists it so that a store is never silently mixed
// from two producers.
type Producer struct {
	Model  string
	SHA256 [32]byte
}

// String returns "model@sha256:<first 12 hex digits>".
func (p Producer) String() string {
	return p.Model + "@sha256:" + hex.EncodeToString(p.SHA256[:6])
}

// Entry is one slot of a fingerprint.
type Entry struct {
	Status Status
	// Note is the reason for StatusUnavailable (required) or the fallback used
	// for StatusFallback (required); optional otherwise.
	Note     string
	Producer Producer
	// Value is nil exactly when Status is StatusMissing or StatusUnavailable;
	// otherwise its Kind is the slot's Kind.
	Value Value
}

// Fingerprint is the full set of slot representations of one memory, indexed by
// SlotID.Index(). It is plain data: not safe for concurrent mutation; safe for
// concurrent reads.
type Fingerprint struct {
	Slots [NumSlots]Entry
}

// Get returns the entry of slot s. It panics on an invalid slot.
func (f *Fingerprint) Get(s SlotID) Entry {
	if !s.Valid() {
		panic(fmt.Sprintf("fingerprint: invalid slot %d", uint8(s)))
	}
	return f.Slots[s.Index()]
}

// Set stores e in slot s after checking it (see Entry.Check); on error the
// fingerprint is unchanged.
func (f *Fingerprint) Set(s SlotID, e Entry) error {
	if err := e.Check(s); err != nil {
		return err
	}
	f.Slots[s.Index()] = e
	return nil
}

// Validate checks every slot entry; the codec refuses to encode a fingerprint
// that does not validate.
func (f *Fingerprint) Validate() error {
	var errs []error
	for _, s := range Slots() {
		if err := f.Slots[s.Index()].Check(s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Check reports whether e may be stored in slot s: a known status, a value of
// the slot's kind exactly when the status carries one, a note where the status
// requires one, and a value whose own invariants hold.
func (e Entry) Check(s SlotID) error {
	if !s.Valid() {
		return fmt.Errorf("invalid slot %d: slots are E1…E13", uint8(s))
	}
	switch e.Status {
	case StatusMissing:
		if e.Value != nil || e.Note != "" || e.Producer != (Producer{}) {
			return fmt.Errorf("%s: a missing slot carries no value, note or producer", s)
		}
		return nil
	case StatusUnavailable:
		if e.Value != nil {
			return fmt.Errorf("%s: an unavailable slot carries no value", s)
		}
		if e.Note == "" {
			return fmt.Errorf("%s: an unavailable slot needs a note saying why", s)
		}
		return nil
	case StatusPresent, StatusFallback:
		if e.Status == StatusFallback && e.Note == "" {
			return fmt.Errorf("%s: a fallback value needs a note naming the fallback", s)
		}
	default:
		return fmt.Errorf("%s: unknown status %d", s, uint8(e.Status))
	}
	if e.Value == nil {
		return fmt.Errorf("%s: status %s needs a value", s, e.Status)
	}
	if e.Value.Kind() != s.Kind() {
		return fmt.Errorf("%s stores %s values, got %s", s, s.Kind(), e.Value.Kind())
	}
	if err := e.Value.validate(); err != nil {
		return fmt.Errorf("%s %s value: %w", s, s.Kind(), err)
	}
	return nil
}
