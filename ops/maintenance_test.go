package ops

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// TestPolicyFiles reads every policy fixture: the good ones give the
// policy written, missing keys keeping the defaults; each bad one is a
// *record.ValidationError naming the bad key and saying how to fix it.
func TestPolicyFiles(t *testing.T) {
	for _, c := range []struct {
		file  string
		want  Policy
		field string // for a bad file: the key named
	}{
		{file: "good.toml", want: Policy{Actions: []string{"merge_duplicate", "prune"}, PruneBelow: 0.05, Types: []record.Type{"note", "conversation"}, MaxActions: 50}},
		{file: "good.yaml", want: Policy{Actions: []string{"merge_duplicate", "supersede", "prune"}, PruneBelow: 0.1, Types: []record.Type{"note", "decision"}, MaxActions: 10, Near: true}},
		{file: "empty.yaml", want: DefaultPolicy()},
		{file: "consolidate.yaml", want: Policy{Actions: []string{"merge_duplicate", "consolidate", "prune"}, MaxActions: 20, Near: true}},
		{file: "consolidatenonear.toml", field: "near"},
		{file: "badkey.toml", field: "prune_bellow"},
		{file: "badaction.yaml", field: "actions"},
		{file: "badprune.toml", field: "prune_below"},
		{file: "badtype.yaml", field: "types"},
		{file: "badmax.toml", field: "max_actions"},
		{file: "badsyntax.toml", field: "policy"},
		{file: "wrongext.json", field: "policy"},
	} {
		t.Run(c.file, func(t *testing.T) {
			p, err := LoadPolicy(filepath.Join("testdata", "policy", c.file))
			if c.field == "" {
				if err != nil || !reflect.DeepEqual(p, c.want) {
					t.Fatalf("got %+v, %v; want %+v", p, err, c.want)
				}
				return
			}
			var ve *record.ValidationError
			if !errors.As(err, &ve) || ve.Field != c.field || ve.Fix == "" || !strings.Contains(err.Error(), c.file) {
				t.Fatalf("error %v (%#v), want one naming %q with a fix and the file", err, ve, c.field)
			}
		})
	}
}

// FuzzDecodePolicy: the policy parser never panics, and a policy it
// accepts is valid.
func FuzzDecodePolicy(f *testing.F) {
	f.Add([]byte("actions = [\"prune\"]\nprune_below = 0.05\n"), true)
	f.Add([]byte("actions: [merge_duplicate]\nmax_actions: 3\n"), false)
	f.Add([]byte("types: [note]\nnear: true\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, isTOML bool) {
		ext := ".yaml"
		if isTOML {
			ext = ".toml"
		}
		p, err := DecodePolicy(data, ext)
		if err == nil {
			if verr := p.Validate(); verr != nil {
				t.Fatalf("accepted an invalid policy %+v: %v", p, verr)
			}
		}
	})
}

// maintStore is a store with one exact copy, one superseded note, one
// faded note and one faded decision (the faded ones created 200 days
// before now, the others a day before).
type maintStore struct {
	e                                 *engine.Engine
	keep, dup, superseded, faded, dec record.ID
}

func newMaintStore(t *testing.T, clock func() time.Time) maintStore {
	t.Helper()
	ctx := context.Background()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(filepath.Join(t.TempDir(), "store"), engine.Options{Create: true, Embedders: reg, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	old, recent := clock().Add(-200*24*time.Hour), clock().Add(-24*time.Hour)
	add := func(n record.NewMemory) record.ID {
		if n.CreatedAt.IsZero() {
			n.CreatedAt = recent
		}
		m, err := e.Add(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	var s maintStore
	s.e = e
	s.keep = add(record.NewMemory{Content: "the release script lives in scripts/release.sh", Importance: 0.9})
	s.dup = add(record.NewMemory{Content: "the release script lives in scripts/release.sh", AllowDuplicate: true, Importance: 0.9})
	s.superseded = add(record.NewMemory{Content: "builds use go 1.25", Importance: 0.9})
	newer := add(record.NewMemory{Content: "builds use go 1.26 since November", Importance: 0.9})
	if _, err := e.Link(ctx, record.Relation{From: newer, To: s.superseded, Type: record.RelSupersedes}); err != nil {
		t.Fatal(err)
	}
	s.faded = add(record.NewMemory{Content: "the staging database was slow on Tuesday", Importance: 0.3, CreatedAt: old})
	s.dec = add(record.NewMemory{Content: "Decision: keep RocksDB as the embedded store", Type: record.TypeDecision, Importance: 0.3, CreatedAt: old})
	return s
}

// applied returns the ids of the applied actions.
func applied(r MaintenanceReport) []record.ID {
	var out []record.ID
	for _, a := range r.Actions {
		if a.Applied {
			out = append(out, a.ID)
		}
	}
	slices.SortFunc(out, func(a, b record.ID) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func ids(xs ...record.ID) []record.ID {
	slices.SortFunc(xs, func(a, b record.ID) int { return strings.Compare(a.String(), b.String()) })
	return xs
}

// TestMaintenancePolicies applies each policy to the same store and checks
// exactly what it carried out: a dry run nothing; the default policy the
// merge and the superseded prune, not the faded memories; prune_below the
// faded note but not the decision unless types names decisions; actions
// limits the kinds; max_actions the count, the rest held with the reason.
func TestMaintenancePolicies(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, c := range []struct {
		name   string
		policy Policy
		apply  bool
		want   func(s maintStore) []record.ID
		held   int
	}{
		{"dry run", DefaultPolicy(), false, func(maintStore) []record.ID { return nil }, 0},
		{"default", DefaultPolicy(), true, func(s maintStore) []record.ID { return ids(s.dup, s.superseded) }, 0},
		{"prune_below", Policy{Actions: []string{"prune"}, PruneBelow: 0.2, MaxActions: 100}, true,
			func(s maintStore) []record.ID { return ids(s.superseded, s.faded) }, 1},
		{"decisions named", Policy{Actions: []string{"prune"}, PruneBelow: 0.2, MaxActions: 100, Types: []record.Type{record.TypeNote, record.TypeDecision}}, true,
			func(s maintStore) []record.ID { return ids(s.superseded, s.faded, s.dec) }, 1},
		{"merge only", Policy{Actions: []string{"merge_duplicate"}, MaxActions: 100}, true,
			func(s maintStore) []record.ID { return ids(s.dup) }, 1},
		{"max_actions", Policy{Actions: []string{"merge_duplicate", "prune"}, MaxActions: 1}, true,
			func(s maintStore) []record.ID { return ids(s.dup) }, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newMaintStore(t, clock)
			rep, err := Maintenance(ctx, s.e, MaintenanceRequest{Policy: c.policy, Apply: c.apply, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := applied(rep), c.want(s); !slices.Equal(got, want) {
				t.Fatalf("applied %v, want %v; report %+v", got, want, rep.Actions)
			}
			held := 0
			for _, a := range rep.Actions {
				if a.Held != "" {
					held++
				}
				if a.Reason == "" {
					t.Fatalf("action without evidence: %+v", a)
				}
			}
			if held != c.held {
				t.Fatalf("%d actions held, want %d: %+v", held, c.held, rep.Actions)
			}
			log, err := s.e.AuditLog(ctx, 0)
			if err != nil || len(log) != rep.Applied {
				t.Fatalf("audit log %d entries (%v), %d applied", len(log), err, rep.Applied)
			}
			if err := s.e.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestScheduleNeverRetiresUsed simulates 90 days through the scheduled
// path (Schedule.RunOnce, applying, with a fake clock): a note that search
// returns every day is never retired, though nobody reads it by id; a
// decision is never retired (the policy does not name decisions); an idle
// note is retired on the run after it has been idle for its 30-day
// half-life, and its undo brings it back.
func TestScheduleNeverRetiresUsed(t *testing.T) {
	ctx := context.Background()
	day := 24 * time.Hour
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	now := start
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(filepath.Join(t.TempDir(), "store"), engine.Options{Create: true, Embedders: reg, Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	}()
	add := func(text string, typ record.Type) record.ID {
		m, err := e.Add(ctx, record.NewMemory{Content: text, Type: typ, Importance: 0.3, CreatedAt: start})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	used := add("the flaky integration test needs GOFLAGS=-count=1 to rerun", record.TypeNote)
	decision := add("Decision: we release on Thursdays after the soak test", record.TypeDecision)
	idle := add("lunch order for the offsite was pizza", record.TypeNote)
	var lines []string
	sc := NewSchedule(e, ScheduleOptions{Every: day, Clock: func() time.Time { return now },
		Request: MaintenanceRequest{Apply: true, Policy: Policy{Actions: []string{"prune"}, PruneBelow: 0.2, MaxActions: 100}},
		Log:     func(l string) { lines = append(lines, l) }})
	retired := -1
	for d := 0; d <= 90; d++ {
		now = start.Add(time.Duration(d)*day + 3*time.Hour)
		res, err := e.Search(ctx, engine.SearchRequest{Query: "flaky integration test GOFLAGS", TopK: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Memories) != 1 || res.Memories[0].ID != used {
			t.Fatalf("day %d: the daily search returned %+v", d, res.Memories)
		}
		rep := sc.RunOnce(ctx)
		if rep.Error != "" {
			t.Fatalf("day %d: %s", d, rep.Error)
		}
		for _, a := range rep.Actions {
			switch {
			case a.ID == used:
				t.Fatalf("day %d: the memory search returns every day was listed: %+v", d, a)
			case a.ID == decision:
				t.Fatalf("day %d: a decision was listed though the policy does not name decisions: %+v", d, a)
			case a.ID == idle && a.Applied:
				retired = d
			}
		}
	}
	if retired < 30 || retired > 31 {
		t.Fatalf("the idle note was retired on day %d, want once idle for its 30-day half-life", retired)
	}
	st := sc.Status()
	if st.Runs != 91 || st.Last == nil || !st.Apply || len(lines) != 91 || !strings.Contains(lines[retired], "prune 1; 1 applied") {
		t.Fatalf("status %+v, %d log lines; line of day %d: %q", st, len(lines), retired, lines[retired])
	}
	log, err := e.AuditLog(ctx, 0)
	if err != nil || len(log) != 1 || log[0].Memory != idle || log[0].By != "schedule" {
		t.Fatalf("audit log %+v, %v", log, err)
	}
	if _, err := e.Undo(ctx, log[0].ID); err != nil {
		t.Fatal(err)
	}
	if ms, found, err := e.Peek(ctx, []record.ID{idle}); err != nil || !found[0] || ms[0].Content != "lunch order for the offsite was pizza" {
		t.Fatalf("after undo: %+v %v %v", ms, found, err)
	}
}
