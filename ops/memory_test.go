package ops

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// TestMemoryViews: the full form has every field (tags [] when none,
// accessed_at only once used); the export view has what an import reads
// back and nothing the importing store assigns.
func TestMemoryViews(t *testing.T) {
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	m := record.Memory{ID: record.NewID(), DocNum: 7, Content: "pin grocksdb v1.7.15", Type: record.TypeDecision,
		CreatedAt: at, UpdatedAt: at, Importance: 0.8, Revision: 2, AccessCount: 3}
	full, err := json.Marshal(MemoryOf(m))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"doc_num":7`, `"tags":[]`, `"source":""`, `"revision":2`, `"access_count":3`} {
		if !strings.Contains(string(full), want) {
			t.Errorf("full form lacks %s: %s", want, full)
		}
	}
	if strings.Contains(string(full), "accessed_at") {
		t.Errorf("never-used memory has accessed_at: %s", full)
	}
	m.AccessedAt = at.Add(time.Hour)
	if full, _ = json.Marshal(MemoryOf(m)); !strings.Contains(string(full), `"accessed_at":"2026-01-02T16:04:05Z"`) {
		t.Errorf("used memory: %s", full)
	}
	exp, err := json.Marshal(MemoryOf(m).Export())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + m.ID.String() + `","content":"pin grocksdb v1.7.15","type":"decision","created_at":"2026-01-02T15:04:05Z","importance":0.8}`
	if string(exp) != want {
		t.Errorf("export view\n got %s\nwant %s", exp, want)
	}
}

// TestViewsAreProjections: every field of a view (Export, Receipt) is a
// field of the wire form under the same JSON name, so a view omits fields
// and never renames or invents one; the receipt carries the memory's
// values.
func TestViewsAreProjections(t *testing.T) {
	names := map[string]bool{}
	wire := reflect.TypeFor[Memory]()
	for i := range wire.NumField() {
		names[jsonName(wire.Field(i))] = true
	}
	m := MemoryOf(record.Memory{ID: record.NewID(), DocNum: 9, Session: "s1", Sequence: 4, Project: "alpha", Meta: map[string]string{"ticket": "CG-1"},
		Revision: 3, Content: "x", CreatedAt: time.Date(2026, 1, 2, 15, 4, 5, 6, time.FixedZone("CET", 3600))})
	for _, view := range []any{m.Export(), m.Receipt()} {
		vt := reflect.TypeOf(view)
		for i := range vt.NumField() {
			if n := jsonName(vt.Field(i)); !names[n] {
				t.Errorf("%v: field %q is not a field of ops.Memory", vt, n)
			}
		}
	}
	got, err := json.Marshal(m.Receipt())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + m.ID.String() + `","doc_num":9,"session":"s1","sequence":4,"created_at":"2026-01-02T14:04:05.000000006Z","project":"alpha","meta":{"ticket":"CG-1"},"revision":3}`
	if string(got) != want {
		t.Errorf("receipt\n got %s\nwant %s", got, want)
	}
}

// jsonName is f's JSON field name.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}
