package cellar

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cgraph/cgraph/internal/testdir"
)

// TestStoreIdentity: a new store has an identity that reopening keeps and
// a reader sees; a backup gets its own; a store made before identities
// gets one at its first writer open.
func TestStoreIdentity(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	e, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	id := e.ID()
	if len(id) != 36 {
		t.Fatalf("new store's identity %q", id)
	}
	backup := filepath.Join(t.TempDir(), "backup")
	if err := e.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {ReadOnly: true}} {
		e := openTest(t, dir, opts)
		if e.ID() != id {
			t.Fatalf("read-only=%v: identity %q after reopening, want %q", opts.ReadOnly, e.ID(), id)
		}
	}
	b := openTest(t, backup, Options{})
	if b.ID() == id || len(b.ID()) != 36 {
		t.Fatalf("backup's identity %q, want a new one (the store's is %q)", b.ID(), id)
	}
	if err := b.Check(ctx); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "v2")
	testdir.Copy(t, filepath.Join("testdata", storeFixtureV2), old)
	if o := openTest(t, old, Options{}); len(o.ID()) != 36 {
		t.Fatalf("a store made before identities got %q at its writer open", o.ID())
	}
}
