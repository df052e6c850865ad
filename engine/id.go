package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"
)

// NewMemoryID returns a fresh UUIDv7: ids made later sort after earlier ones.
// It panics only if the system's random source fails.
func NewMemoryID() MemoryID {
	return MemoryID(uuid.Must(uuid.NewV7()))
}

// ParseMemoryID parses the 36-character UUID text form of an id.
func ParseMemoryID(s string) (MemoryID, error) {
	u, err := uuid.Parse(strings.TrimSpace(s))
	if err != nil {
		return MemoryID{}, &ValidationError{
			Field:   "id",
			Problem: fmt.Sprintf("%q is not a memory id (%v)", s, err),
			Fix:     "give the 36-character id that add or list printed, e.g. 0192f1a4-7c3e-7b2a-9d4e-1f2a3b4c5d6e",
		}
	}
	return MemoryID(u), nil
}

// String returns the canonical 36-character UUID text.
func (id MemoryID) String() string { return uuid.UUID(id).String() }

// IsZero reports whether id is the zero id (no memory).
func (id MemoryID) IsZero() bool { return id == MemoryID{} }

// ParseMemoryType parses a type name; the error lists the valid ones.
func ParseMemoryType(s string) (MemoryType, error) {
	t := MemoryType(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := typeCodes[t]; ok {
		return t, nil
	}
	return "", &ValidationError{
		Field:   "type",
		Problem: fmt.Sprintf("unknown type %q", s),
		Fix:     "use one of " + strings.Join(memoryTypeNames(), ", "),
	}
}

// MemoryTypes lists every memory type, sorted by name.
func MemoryTypes() []MemoryType {
	ts := make([]MemoryType, 0, len(typeCodes))
	for t := range typeCodes {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	return ts
}

func memoryTypeNames() []string {
	var names []string
	for _, t := range MemoryTypes() {
		names = append(names, string(t))
	}
	return names
}

// MarshalText makes ids appear as their UUID text in JSON and similar formats.
func (id MemoryID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses the UUID text form (see ParseMemoryID).
func (id *MemoryID) UnmarshalText(b []byte) error {
	v, err := ParseMemoryID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
