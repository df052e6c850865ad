package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

const fixtures = "../capture/extract/testdata/transcripts"

// fixture copies a fixture transcript into a temporary directory (ingest
// keys its cursor by path) and returns the copy's path and bytes.
func fixture(t *testing.T, name string) (string, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b
}

// allMemories lists every memory of the store, keyed by id.
func allMemories(t *testing.T, e *engine.Engine) map[record.ID]record.Memory {
	t.Helper()
	out := map[record.ID]record.Memory{}
	var after record.ID
	for {
		page, err := e.List(context.Background(), record.ListOptions{Limit: 500, After: after, Oldest: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			if _, dup := out[m.ID]; dup {
				t.Fatalf("List returned %s twice", m.ID)
			}
			out[m.ID] = m
		}
		if len(page) < 500 {
			return out
		}
		after = page[len(page)-1].ID
	}
}

// turnKeys counts the conversation memories per capture_key: each must be 1.
func turnKeys(t *testing.T, ms map[record.ID]record.Memory) map[string]int {
	t.Helper()
	keys := map[string]int{}
	for _, m := range ms {
		if m.Type == record.TypeConversation {
			keys[m.Meta["capture_key"]]++
		}
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("turn %s stored %d times", k, n)
		}
	}
	return keys
}

func ingestOK(t *testing.T, e *engine.Engine, r IngestRequest) IngestReport {
	t.Helper()
	rep, err := Ingest(context.Background(), e, r)
	if err != nil {
		t.Fatalf("Ingest %s: %v (report %+v)", r.Path, err, rep)
	}
	return rep
}

// TestIngestIdempotent: a transcript ingested twice stores nothing the
// second time; with its cursor deleted, a third read finds every turn and
// memory stored and stores nothing either. The first read stores the turns
// as conversation memories with their provenance and the typed memories
// with a fixes link and an informs link to their turn.
func TestIngestIdempotent(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	path, _ := fixture(t, "go-failing-test.jsonl")
	req := IngestRequest{Path: path, Project: "billing"}
	first := ingestOK(t, e, req)
	if first.Turns == 0 || first.Stored == 0 || first.Typed[capture.KindError] == 0 || first.Typed[capture.KindFix] == 0 {
		t.Fatalf("first ingest: %+v, want turns, an error and its fix stored", first)
	}
	if first.Skipped != 0 || len(first.Problems) != 0 {
		t.Fatalf("first ingest skipped %d, problems %v", first.Skipped, first.Problems)
	}
	ms := allMemories(t, e)
	if len(ms) != first.Stored {
		t.Fatalf("store holds %d memories, the report says %d stored", len(ms), first.Stored)
	}
	keys := turnKeys(t, ms)
	if len(keys)+first.Duplicates != first.Turns {
		t.Errorf("%d turn memories + %d exact copies, want the %d turns read", len(keys), first.Duplicates, first.Turns)
	}
	var fix, turn record.Memory
	for _, m := range ms {
		switch {
		case m.Meta["capture_kind"] == "fix":
			fix = m
		case m.Type == record.TypeConversation && turn.ID.IsZero():
			turn = m
		}
	}
	if turn.Session == "" || turn.Sequence == 0 || turn.Meta["host"] != HostClaudeCode || turn.Meta["cwd"] == "" || turn.Project != "billing" ||
		!strings.Contains(turn.Source, path+"#") || turn.CreatedAt.Year() != 2025 || !strings.Contains(turn.Content, ": ") {
		t.Errorf("turn memory lacks its provenance: %+v", turn)
	}
	rels, err := e.Relations(ctx, fix.ID)
	if err != nil {
		t.Fatal(err)
	}
	var fixes, informs bool
	for _, r := range rels {
		fixes = fixes || r.Type == record.RelFixes && r.From == fix.ID && ms[r.To].Type == record.TypeError
		informs = informs || r.Type == record.RelInforms && r.To == fix.ID && ms[r.From].Type == record.TypeConversation
	}
	if !fixes || !informs {
		t.Errorf("fix %q: relations %+v, want fixes → an error and informs ← a turn", fix.Content, rels)
	}
	if first.Links == 0 {
		t.Error("no links reported")
	}

	second := ingestOK(t, e, req)
	if second.Stored != 0 || second.Turns != 0 || second.To != first.To {
		t.Errorf("second ingest: %+v, want nothing read or stored past %+v", second, first.To)
	}
	if err := os.Remove(CursorFile(e.Dir(), path, "billing")); err != nil {
		t.Fatal(err)
	}
	third := ingestOK(t, e, req)
	if third.Stored != 0 || third.Links != 0 || third.Turns != first.Turns || third.Skipped+third.Duplicates < first.Turns {
		t.Errorf("ingest without a cursor: %+v, want %d turns read and nothing stored", third, first.Turns)
	}
	if n := len(allMemories(t, e)); n != len(ms) {
		t.Errorf("store holds %d memories after re-ingesting, want %d", n, len(ms))
	}
	// Another project is another namespace: the turns are stored there too.
	other := ingestOK(t, e, IngestRequest{Path: path, Project: "other"})
	if other.Stored != first.Stored {
		t.Errorf("ingest into another project stored %d, want %d", other.Stored, first.Stored)
	}
}

// TestIngestResume: a transcript read while its last line is half
// written, then whole, stores every turn once — the same memories as one
// read of the whole file — also when the reads cross many small chunks.
func TestIngestResume(t *testing.T) {
	for _, chunk := range []int64{IngestChunkBytes, 3000} {
		t.Run(fmt.Sprintf("chunk=%d", chunk), func(t *testing.T) {
			old := chunkBytes
			chunkBytes = chunk
			t.Cleanup(func() { chunkBytes = old })
			path, whole := fixture(t, "inventory-day2-migrations.jsonl")

			once := openStore(t)
			whole1 := ingestOK(t, once, IngestRequest{Path: path})
			want := allMemories(t, once)

			e := openStore(t)
			lines := strings.SplitAfter(string(whole), "\n")
			cut := len(strings.Join(lines[:len(lines)/2], "")) + len(lines[len(lines)/2])/2 // mid-line
			if err := os.WriteFile(path, whole[:cut], 0o600); err != nil {
				t.Fatal(err)
			}
			a := ingestOK(t, e, IngestRequest{Path: path})
			if a.To.Offset >= int64(cut) || a.To.Offset == 0 {
				t.Fatalf("read of a half-written file stopped at %d, want before the cut at %d", a.To.Offset, cut)
			}
			if err := os.WriteFile(path, whole, 0o600); err != nil {
				t.Fatal(err)
			}
			b := ingestOK(t, e, IngestRequest{Path: path})
			if b.From != a.To || a.Turns+b.Turns != whole1.Turns {
				t.Errorf("second read: %+v, want it to start at %+v and the two reads to read the %d turns of one", b, a.To, whole1.Turns)
			}
			got := allMemories(t, e)
			turnKeys(t, got)
			for id, m := range want {
				if m.Type != record.TypeConversation && chunk != IngestChunkBytes {
					continue // extraction over other windows may differ
				}
				if g, ok := got[id]; !ok || g.Content != m.Content {
					t.Errorf("memory %s %q missing after the resumed read", id, m.Content)
				}
			}
			for id, m := range got {
				if _, ok := want[id]; !ok && (m.Type == record.TypeConversation || chunk == IngestChunkBytes) {
					t.Errorf("memory %s %q stored by the resumed read only", id, m.Content)
				}
			}
		})
	}
}

// TestIngestConcurrent: two ingests of one file at once (one engine, two
// goroutines) store each turn once.
func TestIngestConcurrent(t *testing.T) {
	old := chunkBytes
	chunkBytes = 4000 // many small batches, so the two interleave
	t.Cleanup(func() { chunkBytes = old })
	path, _ := fixture(t, "inventory-day1-setup.jsonl")
	once := openStore(t)
	ingestOK(t, once, IngestRequest{Path: path})
	want := allMemories(t, once)

	e := openStore(t)
	var wg sync.WaitGroup
	reps := make([]IngestReport, 2)
	errs := make([]error, 2)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = Ingest(context.Background(), e, IngestRequest{Path: path})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("ingest %d: %v", i, err)
		}
	}
	got := allMemories(t, e)
	turnKeys(t, got)
	if len(got) != len(want) {
		t.Errorf("two ingests at once stored %d memories, one alone %d (reports %+v)", len(got), len(want), reps)
	}
	if s := reps[0].Stored + reps[1].Stored; s != len(got) {
		t.Errorf("the reports say %d stored, the store holds %d", s, len(got))
	}
}

// TestIngestCursorChecks: a cursor is dropped (and the file read from its
// start, storing nothing twice) when the transcript was rewritten before
// it, and when its last turn is not in the store; bad requests name the
// field.
func TestIngestCursorChecks(t *testing.T) {
	e := openStore(t)
	path, whole := fixture(t, "rust-borrow.jsonl")
	first := ingestOK(t, e, IngestRequest{Path: path})
	n := len(allMemories(t, e))

	// The file is replaced by another session's transcript, longer than
	// the cursor's offset: its bytes before the cursor differ.
	other, err := os.ReadFile(filepath.Join(fixtures, "go-failing-test.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, other, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := ingestOK(t, e, IngestRequest{Path: path})
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "rewritten") || rep.From.Offset != 0 || rep.Stored == 0 {
		t.Errorf("after a rewrite: %+v, want the cursor dropped and the new session stored", rep)
	}
	if err := os.WriteFile(path, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	rep = ingestOK(t, e, IngestRequest{Path: path})
	if rep.Stored != 0 || rep.Turns != first.Turns {
		t.Errorf("the first transcript again: %+v, want its %d turns read and nothing stored", rep, first.Turns)
	}

	fresh := openStore(t) // a store without the cursor's last turn, same directory layout
	b, err := os.ReadFile(CursorFile(e.Dir(), path, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(CursorFile(fresh.Dir(), path, "")), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CursorFile(fresh.Dir(), path, ""), b, 0o600); err != nil {
		t.Fatal(err)
	}
	rep = ingestOK(t, fresh, IngestRequest{Path: path})
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "not in the store") || len(allMemories(t, fresh)) != n {
		t.Errorf("cursor without its turn: %+v, want it dropped and the %d memories stored", rep, n)
	}

	for _, c := range []struct {
		r     IngestRequest
		field string
	}{
		{IngestRequest{}, "path"},
		{IngestRequest{Path: path, Host: "cursor"}, "host"},
		{IngestRequest{Path: filepath.Dir(path)}, "path"},
		{IngestRequest{Path: path + ".missing"}, "path"},
	} {
		_, err := Ingest(context.Background(), e, c.r)
		var ve *record.ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field {
			t.Errorf("Ingest(%+v) = %v, want a validation error of %s", c.r, err, c.field)
		}
	}
}

// TestIngestProblems: malformed lines are reported with their numbers and
// the rest is stored.
func TestIngestProblems(t *testing.T) {
	e := openStore(t)
	b, err := os.ReadFile("../capture/claudecode/testdata/mixed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := ingestOK(t, e, IngestRequest{Path: path, Final: true})
	if rep.Stored == 0 || len(rep.Problems) == 0 || !strings.HasPrefix(rep.Problems[0], "line ") {
		t.Errorf("mixed transcript: %+v, want turns stored and the bad lines reported by number", rep)
	}
}

// TestIngestID: ids are deterministic, UUIDv7-shaped, time-ordered, and
// differ by project and key.
func TestIngestID(t *testing.T) {
	a := IngestID("p", "k", mustTime(t, "2025-06-02T09:14:25Z"))
	if a != IngestID("p", "k", mustTime(t, "2025-06-02T09:14:25Z")) {
		t.Fatal("IngestID is not deterministic")
	}
	if a == IngestID("q", "k", mustTime(t, "2025-06-02T09:14:25Z")) || a == IngestID("p", "k2", mustTime(t, "2025-06-02T09:14:25Z")) {
		t.Error("IngestID ignores the project or the key")
	}
	if a[6]>>4 != 7 || a[8]>>6 != 2 {
		t.Errorf("%s is not a UUIDv7 (version %d, variant %b)", a, a[6]>>4, a[8]>>6)
	}
	if b := IngestID("p", "a", mustTime(t, "2025-06-02T09:14:26Z")); b.String() < a.String() {
		t.Errorf("a later turn's id %s sorts before %s", b, a)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestIngestTotal: a total lists every file's report and sums its counts,
// problems counted and extracted kinds added up by name.
func TestIngestTotal(t *testing.T) {
	total := NewIngestTotal()
	total.Add(IngestReport{Path: "a", Turns: 3, Stored: 2, Skipped: 1, Links: 1, Typed: map[capture.Kind]int{capture.KindError: 1}, Problems: []string{"line 2: bad"}})
	total.Add(IngestReport{Path: "b", Turns: 4, Stored: 1, Duplicates: 2, Typed: map[capture.Kind]int{capture.KindError: 2, capture.KindFix: 1}})
	if len(total.Files) != 2 || total.Turns != 7 || total.Stored != 3 || total.Skipped != 1 || total.Duplicates != 2 || total.Links != 1 || total.Problems != 1 {
		t.Errorf("sums: %+v", total)
	}
	if total.Typed["error"] != 3 || total.Typed["fix"] != 1 || len(total.Typed) != 2 {
		t.Errorf("typed: %v", total.Typed)
	}
}
