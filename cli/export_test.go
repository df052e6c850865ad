package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExportImportRoundTrip: export → import into a new store → export is
// byte-identical (ids, sessions, sequences, times, tags kept); importing the
// same file again stores nothing; an id the store holds with other content
// is refused by line.
func TestExportImportRoundTrip(t *testing.T) {
	a := newStore(t)
	lines := []string{
		`{"content":"Decision: pin grocksdb v1.7.15","type":"decision","tags":["go","rocksdb"],"source":"go.mod","created_at":"2026-02-20T10:40:00Z","importance":0.8}`,
		`{"content":"user: why does CI abort?","type":"conversation","session":"s1","created_at":"2026-03-02T14:00:00Z"}`,
		`{"content":"assistant: a RocksDB assertion at exit","type":"conversation","session":"s1","created_at":"2026-03-02T14:01:00Z"}`,
		`{"content":"note with \"quotes\", <html> & unicode: 数据库","created_at":"2026-03-03T09:00:00.123456789Z"}`,
	}
	mustRun(t, strings.Join(lines, "\n")+"\n", "--db", a, "add", "--jsonl", "-")
	dump := mustRun(t, "", "--db", a, "export").stdout
	if n := strings.Count(dump, "\n"); n != 4 || !strings.Contains(dump, `"sequence":2`) || !strings.Contains(dump, "<html> &") {
		t.Fatalf("export:\n%s", dump)
	}
	b := filepath.Join(t.TempDir(), "b")
	mustRun(t, "", "--db", b, "init")
	var res bulkResult
	oneJSON(t, mustRun(t, dump, "--db", b, "--json", "import", "-").stdout, &res)
	if res.Added != 4 || len(res.Duplicates) != 0 || res.Failed != 0 {
		t.Fatalf("import: %+v", res)
	}
	if again := mustRun(t, "", "--db", b, "export").stdout; again != dump {
		t.Fatalf("export after import differs:\n%s\nwant\n%s", again, dump)
	}
	oneJSON(t, mustRun(t, dump, "--db", b, "--json", "import", "-").stdout, &res)
	if res.Added != 0 || len(res.Duplicates) != 4 {
		t.Fatalf("second import: %+v", res)
	}
	id := dump[strings.Index(dump, `"id":"`)+6:][:36]
	r := run(t, `{"id":"`+id+`","content":"other content under a taken id"}`+"\n", "--db", b, "--json", "import", "-")
	oneJSON(t, r.stdout, &res)
	if r.code != ExitError || res.Failed != 1 || !strings.Contains(res.Errors[0].Error, "already stored") {
		t.Fatalf("a taken id: exit %d %+v", r.code, res)
	}
}
