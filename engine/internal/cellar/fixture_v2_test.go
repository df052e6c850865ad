package cellar

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/internal/testdir"
	"github.com/cgraph/cgraph/record"
)

// storeFixtureV2 is a whole format-v2 store (testdata/store_v2, its
// memories in store_v2.json) made by the last build of format 2: it has
// no content_hash family. It holds the same content three times (twice
// in project "p", spelled with different white space, once in the
// default project), a deleted memory and an updated one, so that the
// upgrade to version 3 has duplicates and history to index.
const storeFixtureV2 = "store_v2"

// writeStoreFixtureV2 makes the v2 store fixture; only a format-2 build
// may write it.
func writeStoreFixtureV2(t *testing.T, dst string) {
	ctx := context.Background()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dst, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	var ms []record.Memory
	for i, n := range []record.NewMemory{
		{Content: "Retry the flaky upload with backoff.", Project: "p", Type: record.TypeDecision},
		{Content: "Retry  the flaky upload\nwith backoff.", Project: "p", Type: record.TypeNote},
		{Content: "Retry the flaky upload with backoff.", Type: record.TypeNote},
		{Content: "This memory is deleted in the fixture.", Project: "p"},
		{Content: "The first words of an updated memory.", Project: "p", Session: "s"},
	} {
		n.CreatedAt = base.Add(time.Duration(i) * time.Minute)
		m, err := e.Add(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	if err := e.Delete(ctx, ms[3].ID); err != nil {
		t.Fatal(err)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	upd := ms[4]
	upd.Content = "The last words of an updated memory."
	if ms[4], _, err = b.Replace(upd); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	kept := []record.Memory{ms[0], ms[1], ms[2], ms[4]}
	closeFixture(t, e, dst, map[string]any{".json": kept})
}

func TestStoreFixtureV2(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("testdata", storeFixtureV2)
	if *update && FormatVersion == 2 { // frozen: only a format-2 build may write it
		writeStoreFixtureV2(t, src)
	}
	raw, err := os.ReadFile(src + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var want []record.Memory
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "store")
	testdir.Copy(t, src, dir)
	if _, err := Open(dir, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "open it once for writing") {
		t.Fatalf("read-only open of the v2 store: %v, want the advice to open it for writing", err)
	}
	e := openTest(t, dir, Options{})
	got, err := e.List(ctx, record.ListOptions{Oldest: true})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("fixture memories after the upgrade (%v)\n got %+v\nwant %+v", err, got, want)
	}
	if st, err := e.Stats(ctx); err != nil || st.FormatVersion != FormatVersion {
		t.Fatalf("format after the writer's upgrade: %+v, %v; want %d", st, err, FormatVersion)
	}
	if err := e.Check(ctx); err != nil { // content_hash holds exactly one key per record
		t.Fatalf("upgraded fixture fails Check: %v", err)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	for _, c := range []struct {
		project, content string
		want             []record.ID
	}{
		{"p", "Retry the flaky upload   with backoff.", []record.ID{want[0].ID, want[1].ID}},
		{"", "Retry the flaky upload with backoff.", []record.ID{want[2].ID}},
		{"q", "Retry the flaky upload with backoff.", nil},
		{"p", "This memory is deleted in the fixture.", nil},
		{"p", "The first words of an updated memory.", nil},
		{"p", "The last words of an updated memory.", []record.ID{want[3].ID}},
	} {
		if ids, err := b.SameContent(c.project, c.content); err != nil || !reflect.DeepEqual(ids, c.want) {
			t.Errorf("SameContent(%q, %q) = %v, %v; want %v", c.project, c.content, ids, err, c.want)
		}
	}
}

// TestContentHashFollowsWrites: Add, Replace and Delete keep content_hash
// exact, so a lookup finds the current content and nothing else.
func TestContentHashFollowsWrites(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	m, err := e.Add(ctx, record.NewMemory{Content: "one  two", Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(project, content string) []record.ID {
		t.Helper()
		b, err := e.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Abort()
		ids, err := b.SameContent(project, content)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if ids := lookup("p", "one two"); len(ids) != 1 || ids[0] != m.ID {
		t.Fatalf("after Add: %v", ids)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m.Content, m.Project = "three", "q"
	if _, _, err := b.Replace(m); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if ids := lookup("p", "one two"); len(ids) != 0 {
		t.Fatalf("old content still found after Replace: %v", ids)
	}
	if ids := lookup("q", "three"); len(ids) != 1 || ids[0] != m.ID {
		t.Fatalf("new content after Replace: %v", ids)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Delete(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if ids := lookup("q", "three"); len(ids) != 0 {
		t.Fatalf("found after Delete: %v", ids)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
