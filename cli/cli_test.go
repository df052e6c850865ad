package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// result is what one in-process run of the command line produced.
type result struct {
	stdout, stderr string
	code           int
}

// run executes the command line in-process with stdin and returns its
// output and exit code.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := ExecuteContext(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return result{out.String(), errb.String(), code}
}

// mustRun runs and fails the test unless the exit code is 0.
func mustRun(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	r := run(t, stdin, args...)
	if r.code != ExitOK {
		t.Fatalf("cgraph %s: exit %d, stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// oneJSON decodes stdout, which must be exactly one JSON value, into v.
func oneJSON(t *testing.T, stdout string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout has more than one JSON value (next token err %v):\n%s", err, stdout)
	}
}

// newStore creates an empty store and returns its --db flag.
func newStore(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "store")
	mustRun(t, "", "--db", db, "init")
	return db
}

func TestRoundTrip(t *testing.T) {
	db := newStore(t)
	r := mustRun(t, "", "--db", db, "--json", "add", "use column families per embedder",
		"--type", "decision", "--tag", "rocksdb", "--tag", "storage", "--source", "ADR-1",
		"--session", "s1", "--importance", "0.8", "--created-at", "2026-01-02T15:04:05Z")
	var added struct {
		ID string `json:"id"`
	}
	oneJSON(t, r.stdout, &added)
	if _, err := record.ParseID(added.ID); err != nil {
		t.Fatalf("add printed id %q: %v", added.ID, err)
	}

	r = mustRun(t, "", "--db", db, "--json", "get", added.ID)
	var got memoryJSON
	oneJSON(t, r.stdout, &got)
	want := memoryJSON{Content: "use column families per embedder", Type: record.TypeDecision,
		Tags: []string{"rocksdb", "storage"}, Source: "ADR-1", Session: "s1", Sequence: 1, Importance: 0.8, AccessCount: 1}
	if got.ID.String() != added.ID || got.Content != want.Content || got.Type != want.Type ||
		strings.Join(got.Tags, ",") != "rocksdb,storage" || got.Source != want.Source || got.Session != want.Session ||
		got.Sequence != want.Sequence || got.Importance != want.Importance || got.AccessCount != want.AccessCount {
		t.Fatalf("get = %+v, want %+v", got, want)
	}
	if !got.CreatedAt.Equal(mustTime(t, "2026-01-02T15:04:05Z")) || got.AccessedAt.IsZero() {
		t.Fatalf("times: created %v accessed %v", got.CreatedAt, got.AccessedAt)
	}

	r = mustRun(t, "", "--db", db, "get", added.ID)
	for _, s := range []string{"type:       decision", "tags:       rocksdb, storage", "session:    s1 #1", "use column families per embedder"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("human get lacks %q:\n%s", s, r.stdout)
		}
	}

	r = mustRun(t, "", "--db", db, "list")
	if !strings.Contains(r.stdout, added.ID) || !strings.Contains(r.stdout, "decision") {
		t.Errorf("list lacks the memory:\n%s", r.stdout)
	}

	r = mustRun(t, "", "--db", db, "--json", "delete", added.ID)
	var del map[string]string
	oneJSON(t, r.stdout, &del)
	if del["deleted"] != added.ID {
		t.Fatalf("delete printed %v", del)
	}
	r = run(t, "", "--db", db, "get", added.ID)
	if r.code != ExitError || !strings.Contains(r.stderr, "no memory with id "+added.ID) || !strings.Contains(r.stderr, "cgraph list") {
		t.Fatalf("get after delete: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mustRun(t, "", "--db", db, "--json", "stats")
	var st statsJSON
	oneJSON(t, r.stdout, &st)
	if st.Memories != 0 || st.NextDocNum != 1 {
		t.Fatalf("stats after delete: %+v", st)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// modelFreeEmbedders is the registry of the slots that need no model (E2–E4,
// E6, E9, E11 sets; the rest unavailable): real fingerprints for tests of
// the plumbing, without loading ONNX models.
func modelFreeEmbedders(tb testing.TB) *engine.Registry {
	tb.Helper()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}
