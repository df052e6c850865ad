package record

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// RelationType is what a typed link between two memories says. The
// numbers are on-disk codes (engine/FORMAT.md, "relations"): never
// renumbered, new types get new numbers.
type RelationType uint8

// The relation types, read "From <type> To": an error causes a failure, a
// commit fixes an error, a new decision supersedes an old one.
const (
	RelCauses          RelationType = 1
	RelFixes           RelationType = 2
	RelSupersedes      RelationType = 3
	RelContradicts     RelationType = 4
	RelInforms         RelationType = 5
	RelExampleOf       RelationType = 6
	RelPrerequisiteFor RelationType = 7
	RelLedTo           RelationType = 8
	RelRelatedTo       RelationType = 9
)

var relationNames = [...]string{"", "causes", "fixes", "supersedes", "contradicts", "informs", "example_of", "prerequisite_for", "led_to", "related_to"}

// RelationTypes lists every relation type in code order.
func RelationTypes() []RelationType {
	out := make([]RelationType, 0, len(relationNames)-1)
	for i := 1; i < len(relationNames); i++ {
		out = append(out, RelationType(i))
	}
	return out
}

// RelationTypeNames is the relation type names, comma separated, for
// messages and help texts.
func RelationTypeNames() string { return strings.Join(relationNames[1:], ", ") }

// Known reports whether t is one of RelationTypes.
func (t RelationType) Known() bool { return t > 0 && int(t) < len(relationNames) }

// String is the type's name.
func (t RelationType) String() string {
	if t.Known() {
		return relationNames[t]
	}
	return fmt.Sprintf("relation(%d)", uint8(t))
}

// MarshalText writes the name.
func (t RelationType) MarshalText() ([]byte, error) {
	if !t.Known() {
		return nil, fmt.Errorf("unknown relation type %d", uint8(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads a name (ParseRelationType).
func (t *RelationType) UnmarshalText(b []byte) error {
	v, err := ParseRelationType(string(b))
	*t = v
	return err
}

// CheckRelationType refuses a type that is not one of RelationTypes, as a
// *ValidationError of field.
func CheckRelationType(field string, t RelationType) error {
	if t.Known() {
		return nil
	}
	return &ValidationError{Field: field, Problem: fmt.Sprintf("unknown relation type %d", t), Fix: "use one of " + RelationTypeNames()}
}

// ParseRelationType parses a relation type name; the error lists them.
func ParseRelationType(s string) (RelationType, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for i := 1; i < len(relationNames); i++ {
		if relationNames[i] == name {
			return RelationType(i), nil
		}
	}
	return 0, &ValidationError{Field: "type", Problem: fmt.Sprintf("unknown relation type %q", s), Fix: "use one of " + RelationTypeNames()}
}

// ParseRelationTypes parses a comma-separated list of names ("" is none).
func ParseRelationTypes(s string) ([]RelationType, error) {
	var out []RelationType
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		t, err := ParseRelationType(f)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Relation is a typed, weighted link From → To between two stored
// memories. It is stored in both directions and deleted with either end.
type Relation struct {
	From      ID           `json:"from"`
	To        ID           `json:"to"`
	Type      RelationType `json:"type"`
	Weight    float64      `json:"weight"`
	CreatedAt time.Time    `json:"created_at"`
}

// DefaultRelationWeight is the weight of a link given none.
const DefaultRelationWeight = 1.0

// CheckWeight refuses a relation weight outside (0, 1].
func CheckWeight(w float64) error {
	if math.IsNaN(w) || w <= 0 || w > 1 {
		return &ValidationError{Field: "weight", Problem: fmt.Sprintf("%v is outside (0, 1]", w), Fix: "give a number above 0 and at most 1 (1 is a certain link)"}
	}
	return nil
}
