package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestLifecycleCommands: update (record-only and content), get --history,
// link, related, supersede hiding a memory from search until included,
// unlink, project scoping and the filter flags, each through the CLI.
func TestLifecycleCommands(t *testing.T) {
	db := newStore(t)
	add := func(args ...string) record.ID {
		t.Helper()
		var out struct {
			ID record.ID `json:"id"`
		}
		oneJSON(t, mustRun(t, "", append([]string{"--db", db, "--json", "add"}, args...)...).stdout, &out)
		return out.ID
	}
	old := add("Decision: pin grocksdb at v1.7.15 for librocksdb 7.8.3", "--type", "decision", "--meta", "ticket=CG-1")
	errID := add("Error: link failed with undefined reference to rocksdb_create_column_family", "--type", "error")
	fix := add("Fix: set CGO_LDFLAGS to link librocksdb statically", "--type", "pattern")
	other := add("Decision: pin grocksdb at v1.7.15 for librocksdb 7.8.3", "--project", "side")
	if other == old {
		t.Fatal("the same content in another project was deduplicated")
	}

	// update: record only, then content; history keeps both earlier revisions.
	var upd struct {
		memoryJSON
		Changed, Reembedded bool
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "update", old.String()[:13], "--tag", "storage", "--meta", "owner=ana", "--importance", "0.9").stdout, &upd)
	if !upd.Changed || upd.Reembedded || upd.Revision != 2 || upd.Meta["owner"] != "ana" || upd.Meta["ticket"] != "CG-1" {
		t.Fatalf("record update: %+v", upd)
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "update", old.String(), "--content", "Decision: pin grocksdb at v1.7.15 (librocksdb 7.8.3 on Debian 12)").stdout, &upd)
	if !upd.Reembedded || upd.Revision != 3 {
		t.Fatalf("content update: %+v", upd)
	}
	var hist struct {
		Memory  memoryJSON   `json:"memory"`
		History []memoryJSON `json:"history"`
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "get", old.String(), "--history").stdout, &hist)
	if len(hist.History) != 2 || !strings.Contains(hist.History[0].Content, "for librocksdb 7.8.3") || hist.Memory.Revision != 3 {
		t.Fatalf("history: %+v", hist)
	}
	if r := run(t, "", "--db", db, "update", old.String()); r.code != ExitUsage || !strings.Contains(r.stderr, "needs something to change") {
		t.Fatalf("update with nothing: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "--db", db, "update", old.String(), "--meta", "bad key=1"); r.code != ExitUsage {
		t.Fatalf("update with a bad meta key: %d %s", r.code, r.stderr)
	}

	// link, related, expand.
	mustRun(t, "", "--db", db, "link", fix.String(), errID.String(), "--type", "fixes")
	var rel []relatedJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "related", errID.String()).stdout, &rel)
	if len(rel) != 1 || rel[0].Memory.ID != fix || rel[0].Relation != record.RelFixes || rel[0].Direction != "in" {
		t.Fatalf("related: %+v", rel)
	}
	if r := run(t, "", "--db", db, "link", fix.String(), errID.String(), "--type", "repairs"); r.code != ExitUsage || !strings.Contains(r.stderr, "fixes") {
		t.Fatalf("unknown relation type: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "--db", db, "related", errID.String(), "--depth", "4"); r.code != ExitUsage {
		t.Fatalf("depth 4: %d %s", r.code, r.stderr)
	}
	var sj searchIDs
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "search", "undefined reference rocksdb_create_column_family", "--top-k", "1", "--expand", "fixes").stdout, &sj)
	if len(sj.Results) != 1 || sj.Results[0].ID != errID || len(sj.Expanded) != 1 || sj.Expanded[0].ID != fix {
		t.Fatalf("search --expand: results %+v expanded %+v", sj.Results, sj.Expanded)
	}

	// supersede hides the old decision from search until included.
	newer := add("Decision: move to grocksdb v1.8 once Debian ships librocksdb 8", "--type", "decision")
	mustRun(t, "", "--db", db, "link", newer.String(), old.String(), "--type", "supersedes")
	ids := func(args ...string) []record.ID {
		t.Helper()
		var sj searchIDs
		oneJSON(t, mustRun(t, "", append([]string{"--db", db, "--json", "search", "pin grocksdb librocksdb", "--no-thresholds"}, args...)...).stdout, &sj)
		var out []record.ID
		for _, r := range sj.Results {
			out = append(out, r.ID)
		}
		return out
	}
	has := func(ids []record.ID, id record.ID) bool {
		for _, x := range ids {
			if x == id {
				return true
			}
		}
		return false
	}
	if has(ids(), old) || !has(ids("--superseded", "include"), old) || has(ids("--superseded", "only"), newer) {
		t.Fatal("supersede: the old decision is not hidden by default, shown with include, or only superseded ones with only")
	}
	if got := ids("--type", "decision"); has(got, errID) || !has(got, newer) {
		t.Fatalf("--type decision: %v", got)
	}
	if got := ids("--project", "side"); len(got) != 1 || got[0] != other {
		t.Fatalf("--project side: %v, want only %s", got, other)
	}
	if got := ids("--all-projects", "--superseded", "include"); !has(got, other) || !has(got, old) {
		t.Fatalf("--all-projects: %v", got)
	}
	if got := ids("--meta", "owner=ana", "--superseded", "include"); len(got) != 1 || got[0] != old {
		t.Fatalf("--meta owner=ana: %v", got)
	}
	if got := ids("--created-after", "1h"); len(got) == 0 {
		t.Fatal("--created-after 1h found nothing; every memory was made just now")
	}
	if r := run(t, "", "--db", db, "search", "x", "--created-after", "yesterday"); r.code != ExitUsage || !strings.Contains(r.stderr, "RFC 3339") {
		t.Fatalf("bad --created-after: %d %s", r.code, r.stderr)
	}
	mustRun(t, "", "--db", db, "unlink", newer.String(), old.String(), "--type", "supersedes")
	if !has(ids(), old) {
		t.Fatal("unlinked decision still hidden")
	}

	// export → import → export keeps projects, metadata and relations.
	dump := mustRun(t, "", "--db", db, "export").stdout
	if !strings.Contains(dump, `"project":"side"`) || !strings.Contains(dump, `"meta":{"owner":"ana","ticket":"CG-1"}`) || !strings.Contains(dump, `{"relation":{"from":"`+fix.String()) {
		t.Fatalf("export lacks project, meta or relation:\n%s", dump)
	}
	b := filepath.Join(t.TempDir(), "b")
	mustRun(t, "", "--db", b, "init")
	var res bulkResult
	oneJSON(t, mustRun(t, dump, "--db", b, "--json", "import", "-").stdout, &res)
	if res.Added != 5 || res.Linked != 1 || res.Failed != 0 {
		t.Fatalf("import: %+v", res)
	}
	if again := mustRun(t, "", "--db", b, "export").stdout; again != dump {
		t.Fatalf("export after import differs:\n%s\nwant\n%s", again, dump)
	}
}

// searchIDs is the part of search --json these tests read.
type searchIDs struct {
	Results []struct {
		ID record.ID `json:"id"`
	} `json:"results"`
	Expanded []struct {
		ID record.ID `json:"id"`
	} `json:"expanded"`
}

// TestMaintainCommand: maintain lists a superseded memory without --apply
// and deletes it with --apply; add --supersede is accepted where no space
// can find a near-duplicate (these tests run without the E1 model: the
// engine tests cover the detection with every space).
func TestMaintainCommand(t *testing.T) {
	db := newStore(t)
	var first, second struct {
		ID      record.ID        `json:"id"`
		Similar []record.Similar `json:"similar"`
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "add", "Decision: pin grocksdb at v1.7.15").stdout, &first)
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "add", "--supersede", "Decision: pin grocksdb at v1.8.0").stdout, &second)
	if len(second.Similar) != 0 {
		t.Fatalf("near-duplicates found without E1: %+v", second.Similar)
	}
	mustRun(t, "", "--db", db, "link", second.ID.String(), first.ID.String(), "--type", "supersedes")
	dry := mustRun(t, "", "--db", db, "maintain")
	if !strings.Contains(dry.stdout, "would prune") || !strings.Contains(dry.stdout, first.ID.String()) || !strings.Contains(dry.stderr, "--apply") {
		t.Fatalf("maintain dry run: %s %s", dry.stdout, dry.stderr)
	}
	mustRun(t, "", "--db", db, "get", first.ID.String())
	mustRun(t, "", "--db", db, "maintain", "--apply")
	if r := run(t, "", "--db", db, "get", first.ID.String()); r.code == ExitOK {
		t.Fatal("maintain --apply left the superseded memory")
	}
	mustRun(t, "", "--db", db, "get", second.ID.String())
	if r := run(t, "", "--db", db, "maintain", "--prune-below", "1.5"); r.code != ExitUsage {
		t.Fatalf("--prune-below 1.5: %d %s", r.code, r.stderr)
	}
}

// TestListByProject: list shows the project's memories, page by page,
// and every project's with --all-projects.
func TestListByProject(t *testing.T) {
	db := newStore(t)
	for i := range 5 {
		mustRun(t, "", "--db", db, "add", fmt.Sprintf("default project note %d", i))
		mustRun(t, "", "--db", db, "--project", "side", "add", fmt.Sprintf("side project note %d", i))
	}
	var ms []memoryJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "list", "--limit", "3").stdout, &ms)
	if len(ms) != 3 || ms[0].Project != "" || ms[2].Project != "" {
		t.Fatalf("list: %+v", ms)
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "--project", "side", "list", "--limit", "100").stdout, &ms)
	if len(ms) != 5 || ms[4].Project != "side" {
		t.Fatalf("list --project side: %d memories", len(ms))
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "list", "--all-projects", "--limit", "100").stdout, &ms)
	if len(ms) != 10 {
		t.Fatalf("list --all-projects: %d memories", len(ms))
	}
	r := mustRun(t, "", "--db", db, "list", "--limit", "2")
	if !strings.Contains(r.stderr, "--after") {
		t.Fatalf("no next page named: %s", r.stderr)
	}
}

// TestAddDeferred: add --jsonl --defer stores every line, says when they
// became searchable and when every slot was filled, and leaves a store that
// checks clean with nothing pending. (These tests run without neural
// models, so no slot is deferred here; the engine's TestDeferredSlots
// covers the deferral itself.)
func TestAddDeferred(t *testing.T) {
	db := newStore(t)
	r := mustRun(t, "{\"content\":\"first deferred line\"}\n{\"content\":\"second deferred line\"}\n", "--db", db, "add", "--jsonl", "-", "--defer")
	if !strings.Contains(r.stderr, "2 memories searchable") || !strings.Contains(r.stderr, "every slot filled") || !strings.Contains(r.stdout, "added 2") {
		t.Fatalf("add --defer: %s / %s", r.stdout, r.stderr)
	}
	mustRun(t, "", "--db", db, "check")
	if r := mustRun(t, "", "--db", db, "fill"); !strings.Contains(r.stdout, "filled 0 memories") {
		t.Fatalf("fill with nothing pending: %s", r.stdout)
	}
}
