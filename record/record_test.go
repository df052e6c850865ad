package record

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIDRoundTrip(t *testing.T) {
	a, b := NewID(), NewID()
	if a == b || a.IsZero() || !(a.String() < b.String()) {
		t.Fatalf("ids %s, %s: want distinct, non-zero, sorted by creation", a, b)
	}
	got, err := ParseID("  " + a.String() + "\n")
	if err != nil || got != a {
		t.Fatalf("ParseID(%s) = %s, %v", a, got, err)
	}
	var ve *ValidationError
	if _, err := ParseID("not-an-id"); !errors.As(err, &ve) || ve.Field != "id" {
		t.Fatalf("ParseID of garbage: %v, want a ValidationError on id", err)
	}
	text, _ := a.MarshalText()
	var back ID
	if err := back.UnmarshalText(text); err != nil || back != a {
		t.Fatalf("text round trip: %s, %v", back, err)
	}
}

func TestTypes(t *testing.T) {
	ts := Types()
	if len(ts) != 8 || !slices.IsSorted(ts) {
		t.Fatalf("Types() = %v, want the 8 types sorted", ts)
	}
	for _, ty := range ts {
		if !ty.Known() {
			t.Errorf("%s not Known", ty)
		}
		if got, err := ParseType(" " + strings.ToUpper(string(ty)) + " "); err != nil || got != ty {
			t.Errorf("ParseType(%s) = %s, %v", ty, got, err)
		}
	}
	ts[0] = "mutated"
	if Types()[0] == "mutated" {
		t.Fatal("Types returned the package's own slice")
	}
	if _, err := ParseType("gossip"); err == nil || !strings.Contains(err.Error(), "decision") {
		t.Fatalf("ParseType(gossip): %v, want an error listing the types", err)
	}
}

func TestValidate(t *testing.T) {
	ok := NewMemory{Content: "x", Type: TypeFact, Tags: []string{"a"}, Session: "s", Sequence: 3, Importance: 1}
	tests := []struct {
		name  string
		edit  func(*NewMemory)
		field string // "" means valid
	}{
		{"valid", func(*NewMemory) {}, ""},
		{"empty content", func(n *NewMemory) { n.Content = " \n" }, "content"},
		{"bad utf-8", func(n *NewMemory) { n.Content = "\xff" }, "content"},
		{"too long", func(n *NewMemory) { n.Content = strings.Repeat("x", 11) }, "content"},
		{"unknown type", func(n *NewMemory) { n.Type = "gossip" }, "type"},
		{"empty tag", func(n *NewMemory) { n.Tags = []string{""} }, "tags[0]"},
		{"control char in source", func(n *NewMemory) { n.Source = "a\tb" }, "source"},
		{"sequence without session", func(n *NewMemory) { n.Session = "" }, "sequence"},
		{"before 1970", func(n *NewMemory) { n.CreatedAt = time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC) }, "created_at"},
		{"importance above 1", func(n *NewMemory) { n.Importance = 1.5 }, "importance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ok
			tt.edit(&n)
			err := n.Validate(10)
			var ve *ValidationError
			switch {
			case tt.field == "" && err != nil:
				t.Fatalf("Validate: %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &ve) || ve.Field != tt.field || ve.Fix == ""):
				t.Fatalf("Validate: %v, want a ValidationError on %s with a fix", err, tt.field)
			}
		})
	}
}

// TestFilterJSON: the wire form of a filter round-trips, names modes by
// word and refuses an unknown one.
func TestFilterJSON(t *testing.T) {
	f := Filter{Project: "p", Types: []Type{TypeDecision}, TagsAll: []string{"a"}, MinImportance: 0.5,
		CreatedAfter: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Meta: map[string]string{"k": "v"}, Superseded: IncludeSuperseded}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"project":"p","types":["decision"],"tags_all":["a"],"created_after":"2026-01-02T03:04:05Z","min_importance":0.5,"meta":{"k":"v"},"superseded":"include"}`
	if string(b) != want {
		t.Fatalf("filter JSON\n got %s\nwant %s", b, want)
	}
	var back Filter
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, f) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"superseded":"never"}`), &back); err == nil {
		t.Fatal("unknown superseded mode accepted")
	}
	if b, _ := json.Marshal(Filter{}); string(b) != "{}" {
		t.Fatalf("zero filter JSON %s, want {}", b)
	}
}

// TestChangeApply: tags are removed then added without duplicates,
// metadata keys unset then set, and the input memory is not modified.
func TestChangeApply(t *testing.T) {
	m := Memory{Tags: []string{"a", "b"}, Meta: map[string]string{"x": "1", "y": "2"}}
	c := Change{AddTags: []string{"b", "c"}, RemoveTags: []string{"a"}, UnsetMeta: []string{"x"}, SetMeta: map[string]string{"z": "3"}}
	got := c.Apply(m)
	if !reflect.DeepEqual(got.Tags, []string{"b", "c"}) || !reflect.DeepEqual(got.Meta, map[string]string{"y": "2", "z": "3"}) {
		t.Fatalf("applied: %+v", got)
	}
	if !reflect.DeepEqual(m.Tags, []string{"a", "b"}) || len(m.Meta) != 2 {
		t.Fatalf("input modified: %+v", m)
	}
	if !(Change{}).Empty() || c.Empty() {
		t.Fatal("Empty is wrong")
	}
	if _, err := ParseMeta([]string{"bad key=v"}); err == nil {
		t.Fatal("ParseMeta accepted a key with a space")
	}
	if m, err := ParseMeta([]string{"a=1", "a=2", "b="}); err != nil || m["a"] != "2" || m["b"] != "" {
		t.Fatalf("ParseMeta: %v %v", m, err)
	}
}
