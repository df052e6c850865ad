package queue

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestQueue: a re-queued transcript is one entry that stays final;
// Pending sees one store's entries; Drain removes what it ingested, stops
// at a failure keeping that entry and the rest, and drops a damaged one.
func TestQueue(t *testing.T) {
	q := Queue{Dir: filepath.Join(t.TempDir(), "q")}
	for _, e := range []Entry{
		{DB: "/a", Host: "claude-code", Path: "/t/1.jsonl", Final: true},
		{DB: "/a", Host: "claude-code", Path: "/t/1.jsonl"}, // a later Stop of the same session
		{DB: "/a", Host: "claude-code", Path: "/t/2.jsonl"},
		{DB: "/b", Host: "claude-code", Path: "/t/3.jsonl"},
	} {
		if err := q.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	todo, err := q.Pending("/a")
	if err != nil || len(todo) != 2 {
		t.Fatalf("pending of /a: %q, %v; want 2 entries", todo, err)
	}
	var seen []Entry
	fail := errors.New("store in use")
	err = Drain(todo, func(e Entry) error {
		seen = append(seen, e)
		if e.Path == "/t/2.jsonl" {
			return fail
		}
		return nil
	})
	if !errors.Is(err, fail) {
		t.Fatalf("drain: %v, want the ingest failure", err)
	}
	for _, e := range seen {
		if e.Path == "/t/1.jsonl" && !e.Final {
			t.Error("the re-queued entry lost its final flag")
		}
	}
	if left, _ := q.Pending("/a"); len(left) != len(todo)-len(seen)+1 {
		t.Errorf("after a drain that failed on its %d. entry, %d of /a's are left", len(seen), len(left))
	}
	if left, _ := q.Pending("/b"); len(left) != 1 {
		t.Errorf("another store's entry was touched: %q", left)
	}
	bad := filepath.Join(q.Dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Drain([]string{bad}, func(Entry) error { t.Error("a damaged entry was ingested"); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("the damaged entry is still queued (%v)", err)
	}
}
