package cli

import (
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestContradictionsCommand: a kept contradicts relation (here linked by
// hand: these tests run without the E1 model that finds one on write)
// badges the older memory in search text and JSON and in get, maintain
// --contradictions lists the open pair in text and JSON, and superseding
// the older memory closes it.
func TestContradictionsCommand(t *testing.T) {
	db := newStore(t)
	add := func(content string) record.ID {
		t.Helper()
		var out struct {
			ID record.ID `json:"id"`
		}
		oneJSON(t, mustRun(t, "", "--db", db, "--json", "add", content).stdout, &out)
		return out.ID
	}
	older := add("The API server listens on port 8080.")
	newer := add("The API server listens on port 9090.")
	mustRun(t, "", "--db", db, "link", newer.String(), older.String(), "--type", "contradicts")

	var sj struct {
		Results []struct {
			ID     record.ID `json:"id"`
			Memory struct {
				ContradictedBy []record.ID `json:"contradicted_by"`
			} `json:"memory"`
		} `json:"results"`
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "search", "API server port 8080", "--no-thresholds").stdout, &sj)
	badged := 0
	for _, r := range sj.Results {
		if r.ID == older && len(r.Memory.ContradictedBy) == 1 && r.Memory.ContradictedBy[0] == newer {
			badged++
		} else if len(r.Memory.ContradictedBy) != 0 {
			t.Fatalf("%s carries a badge it should not: %+v", r.ID, r.Memory.ContradictedBy)
		}
	}
	if badged != 1 {
		t.Fatalf("search --json does not badge the older memory: %+v", sj.Results)
	}
	if out := mustRun(t, "", "--db", db, "search", "API server port 8080", "--no-thresholds").stdout; !strings.Contains(out, "[contradicted by "+newer.String()+"]") {
		t.Fatalf("search text has no badge naming the newer memory:\n%s", out)
	}
	if out := mustRun(t, "", "--db", db, "get", older.String()).stdout; !strings.Contains(out, "contradicted: by "+newer.String()) {
		t.Fatalf("get does not say the memory is contradicted:\n%s", out)
	}

	var pairs []contradictionJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "maintain", "--contradictions").stdout, &pairs)
	if len(pairs) != 1 || pairs[0].Newer.ID != newer || pairs[0].Older.ID != older || pairs[0].Since.IsZero() {
		t.Fatalf("maintain --contradictions --json: %+v", pairs)
	}
	text := mustRun(t, "", "--db", db, "maintain", "--contradictions").stdout
	if !strings.Contains(text, "cgraph link "+newer.String()+" "+older.String()+" --type supersedes") || !strings.Contains(text, "port 8080") {
		t.Fatalf("maintain --contradictions text:\n%s", text)
	}
	if r := run(t, "", "--db", db, "maintain", "--contradictions", "--apply"); r.code != ExitUsage {
		t.Fatalf("--contradictions --apply: exit %d %s", r.code, r.stderr)
	}

	// Superseding the contradicting memory closes the pair too, until the
	// link goes again.
	third := add("The API server listens on port 7070.")
	mustRun(t, "", "--db", db, "link", third.String(), newer.String(), "--type", "supersedes")
	if out := mustRun(t, "", "--db", db, "get", older.String()).stdout; strings.Contains(out, "contradicted") {
		t.Fatalf("a badge names a contradicting memory that was superseded since:\n%s", out)
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "maintain", "--contradictions").stdout, &pairs)
	if len(pairs) != 0 {
		t.Fatalf("a pair whose newer memory was superseded is still open: %+v", pairs)
	}
	mustRun(t, "", "--db", db, "unlink", third.String(), newer.String(), "--type", "supersedes")
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "maintain", "--contradictions").stdout, &pairs)
	if len(pairs) != 1 {
		t.Fatalf("the pair did not reopen after the unlink: %+v", pairs)
	}

	mustRun(t, "", "--db", db, "link", newer.String(), older.String(), "--type", "supersedes")
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "maintain", "--contradictions").stdout, &pairs)
	if len(pairs) != 0 {
		t.Fatalf("a resolved pair is still open: %+v", pairs)
	}
}

// TestSearchAsOfFlag: search and context --as-of answer as the store knew
// it then (a date before every memory finds nothing, one after the link
// leaves the superseded memory out, one before the link keeps it), and a
// value that is no time is a usage error saying what to give.
func TestSearchAsOfFlag(t *testing.T) {
	db := newStore(t)
	add := func(content, created string) record.ID {
		t.Helper()
		var out struct {
			ID record.ID `json:"id"`
		}
		oneJSON(t, mustRun(t, "", "--db", db, "--json", "add", content, "--created-at", created).stdout, &out)
		return out.ID
	}
	older := add("Deploy releases with the blue-green script", "2025-01-01T00:00:00Z")
	newer := add("Deploy releases with the canary pipeline", "2025-02-01T00:00:00Z")
	mustRun(t, "", "--db", db, "link", newer.String(), older.String(), "--type", "supersedes")
	var got memoryJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "get", older.String()).stdout, &got)
	if got.ValidUntil.IsZero() || got.ValidUntil.Before(got.CreatedAt) {
		t.Fatalf("get --json of the superseded memory: valid_until %v", got.ValidUntil)
	}
	if out := mustRun(t, "", "--db", db, "get", older.String()).stdout; !strings.Contains(out, "valid until:") {
		t.Fatalf("get does not say when the memory stopped being valid:\n%s", out)
	}
	found := func(args ...string) []record.ID {
		t.Helper()
		var sj searchIDs
		oneJSON(t, mustRun(t, "", append([]string{"--db", db, "--json", "search", "deploy releases", "--no-thresholds"}, args...)...).stdout, &sj)
		var out []record.ID
		for _, r := range sj.Results {
			out = append(out, r.ID)
		}
		return out
	}
	if got := found("--as-of", "2024-12-31"); len(got) != 0 {
		t.Fatalf("--as-of before every memory: %v", got)
	}
	if got := found("--as-of", "2025-01-15"); len(got) != 1 || got[0] != older {
		t.Fatalf("--as-of between the two: %v, want only %s", got, older)
	}
	if got := found("--as-of", "2025-03-01T00:00:00Z"); len(got) != 2 {
		t.Fatalf("--as-of before the link: %v, want both", got)
	}
	if got := found(); len(got) != 1 || got[0] != newer {
		t.Fatalf("default search: %v, want only %s (valid now)", got, newer)
	}
	if out := mustRun(t, "", "--db", db, "context", "deploy releases", "--as-of", "2025-01-15").stdout; !strings.Contains(out, "blue-green") || strings.Contains(out, "canary") {
		t.Fatalf("context --as-of:\n%s", out)
	}
	if r := run(t, "", "--db", db, "search", "deploy", "--as-of", "last spring"); r.code != ExitUsage || !strings.Contains(r.stderr, "a date") {
		t.Fatalf("--as-of with no time: exit %d %s", r.code, r.stderr)
	}
}

// TestServeOnConflictRefused: serve refuses an unknown --on-conflict
// policy before it listens or opens the store, naming the valid ones.
func TestServeOnConflictRefused(t *testing.T) {
	db := newStore(t)
	r := run(t, "", "--db", db, "serve", "--addr", "127.0.0.1:0", "--on-conflict", "retire-older")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "supersede-newer") {
		t.Fatalf("serve --on-conflict retire-older: exit %d, stderr %s", r.code, r.stderr)
	}
}
