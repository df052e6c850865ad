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

	mustRun(t, "", "--db", db, "link", newer.String(), older.String(), "--type", "supersedes")
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "maintain", "--contradictions").stdout, &pairs)
	if len(pairs) != 0 {
		t.Fatalf("a resolved pair is still open: %+v", pairs)
	}
}
