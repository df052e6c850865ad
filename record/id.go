package record

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// ID identifies a memory: a UUIDv7, so ids sort by creation time. Its
// canonical text form is the 36-character UUID string.
type ID [16]byte

// DocNum is the dense number a store gives each memory, for roaring bitmaps
// and compact index arrays. It is never reused within a store.
type DocNum uint32

// NewID returns a fresh UUIDv7: ids made later sort after earlier ones. It
// panics only if the system's random source fails.
func NewID() ID {
	return ID(uuid.Must(uuid.NewV7()))
}

// ParseID parses the 36-character UUID text form of an id.
func ParseID(s string) (ID, error) {
	u, err := uuid.Parse(strings.TrimSpace(s))
	if err != nil {
		return ID{}, &ValidationError{
			Field:   "id",
			Problem: fmt.Sprintf("%q is not a memory id (%v)", s, err),
			Fix:     "give the 36-character id that add or list printed, e.g. 0192f1a4-7c3e-7b2a-9d4e-1f2a3b4c5d6e",
		}
	}
	return ID(u), nil
}

// String returns the canonical 36-character UUID text.
func (id ID) String() string { return uuid.UUID(id).String() }

// IsZero reports whether id is the zero id (no memory).
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText makes ids appear as their UUID text in JSON and similar formats.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses the UUID text form (see ParseID).
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
