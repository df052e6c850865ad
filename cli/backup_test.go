package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupCommand: the copy is a store that checks clean and holds the
// memory; a second backup into the same directory is a usage error.
func TestBackupCommand(t *testing.T) {
	db := newStore(t)
	id := strings.TrimSpace(mustRun(t, "", "--db", db, "add", "kept across the backup").stdout)
	dir := filepath.Join(t.TempDir(), "copy")
	var out struct {
		Backup   string `json:"backup"`
		Memories uint64 `json:"memories"`
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "backup", dir).stdout, &out)
	if out.Backup != dir || out.Memories != 1 {
		t.Fatalf("backup answer %+v", out)
	}
	mustRun(t, "", "--db", dir, "check")
	if got := mustRun(t, "", "--db", dir, "get", id).stdout; !strings.Contains(got, "kept across the backup") {
		t.Fatalf("the copy lacks the memory: %s", got)
	}
	if r := run(t, "", "--db", db, "backup", dir); r.code != ExitUsage || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("backup over an existing directory: exit %d %s", r.code, r.stderr)
	}
}
