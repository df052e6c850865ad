package capture

import (
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

func TestKindsHaveRecordTypes(t *testing.T) {
	want := map[Kind]record.Type{KindError: record.TypeError, KindFix: record.TypeNote, KindDecision: record.TypeDecision,
		KindPreference: record.TypePreference, KindFact: record.TypeFact}
	for _, k := range Kinds() {
		if got := k.RecordType(); got != want[k] || !got.Known() {
			t.Errorf("%s.RecordType() = %s, want %s", k, got, want[k])
		}
	}
}

func TestNewMemoryValidates(t *testing.T) {
	many := make([]string, 200)
	for i := range many {
		many[i] = "internal/pkg/some/long/path/file.go"
	}
	c := Candidate{Kind: KindFix, Content: "Fix: x", Confidence: 1.7, Session: "s", UUIDs: []string{"u1", "u2"}, Source: "p#u1", Files: many, Rule: "r"}
	n := c.NewMemory("proj")
	if err := n.Validate(record.DefaultMaxContentBytes); err != nil {
		t.Fatalf("NewMemory does not validate: %v", err)
	}
	if n.Importance != 0.8 || n.Type != record.TypeNote || n.Meta["capture_key"] != "fix/s/u1" || !strings.HasPrefix(n.Meta["files"], many[0]) {
		t.Errorf("NewMemory = %+v", n)
	}
}

func TestTurnKey(t *testing.T) {
	tests := []struct {
		t    Turn
		want string
	}{
		{Turn{Session: "s", UUIDs: []string{"a", "b"}}, "s/a"},
		{Turn{Session: "s", UUIDs: []string{"a"}, Block: 2}, "s/a#2"},
		{Turn{Session: "s"}, ""},
	}
	for _, tc := range tests {
		if got := tc.t.Key(); got != tc.want {
			t.Errorf("Key() = %q, want %q", got, tc.want)
		}
	}
	if KindTool.String() != "tool" || TurnKind(9).String() != "unknown" {
		t.Error("TurnKind names")
	}
}
