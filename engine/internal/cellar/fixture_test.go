package cellar

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/internal/testdir"
	"github.com/cgraph/cgraph/record"
)

// storeFixture is a whole format-v1 store made by the first release of the
// engine (testdata/store_v1, with its expected memories in
// store_v1.json). Later builds must keep opening it, for writing and for
// reading, with every memory intact.
const storeFixture = "store_v1"

func TestStoreFixtureV1(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("testdata", storeFixture)
	if *update && FormatVersion == 1 { // frozen: only a format-1 build may write it
		writeStoreFixture(t, src)
	}
	raw, err := os.ReadFile(src + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var want []record.Memory
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Revision = 1 // a v1 record reads as the first revision
	}
	dir := filepath.Join(t.TempDir(), "store")
	testdir.Copy(t, src, dir)

	// A reader cannot open a v1 store: it lacks the families version 2
	// added, and only a writer creates them.
	if _, err := Open(dir, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "open it once for writing") {
		t.Fatalf("read-only open of the v1 store: %v, want the advice to open it for writing", err)
	}
	for _, opts := range []Options{{}, {ReadOnly: true}} { // the writer upgrades; then a reader opens it
		e, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.List(ctx, record.ListOptions{Oldest: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read-only=%v: fixture memories\n got %+v\nwant %+v", opts.ReadOnly, got, want)
		}
		if err := e.Check(ctx); err != nil {
			t.Fatalf("fixture store fails Check: %v", err)
		}
		st, err := e.Stats(ctx)
		if err != nil || st.FormatVersion != FormatVersion || st.Memories != uint64(len(want)) || st.NextDocNum != 4 {
			t.Fatalf("fixture stats %+v, %v (want format %d after the writer's upgrade)", st, err, FormatVersion)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	e := openTest(t, dir, Options{})
	m, err := e.Add(ctx, record.NewMemory{Content: "added by a later build", Session: "fixture", Project: "p", Meta: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.DocNum != 4 || m.Sequence != 3 || m.Revision != 1 {
		t.Fatalf("new memory in the fixture: docnum %d seq %d revision %d, want 4, 3 and 1", m.DocNum, m.Sequence, m.Revision)
	}
	// An old record updated is written in the new version, its v1 form kept as history.
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	upd := want[1]
	upd.Content, upd.Project = "func main() { run() }", "p"
	if _, _, err := b.Replace(upd); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if h, err := e.History(ctx, upd.ID); err != nil || len(h) != 1 || !reflect.DeepEqual(h[0], want[1]) {
		t.Fatalf("history of the updated v1 memory: %+v, %v; want its v1 record", h, err)
	}
	if got, err := e.Get(ctx, upd.ID); err != nil || got.Revision != 2 || got.Content != upd.Content || got.Project != "p" {
		t.Fatalf("updated v1 memory reads %+v, %v", got, err)
	}
	if err := e.Delete(ctx, want[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("fixture store after writes fails Check: %v", err)
	}
}

// writeStoreFixture makes the v1 store fixture: four memories, one deleted,
// flushed so that data sits in SST files as well as the log.
func writeStoreFixture(t *testing.T, dst string) {
	ctx := context.Background()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dst, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 11, 5, 9, 0, 0, 0, time.UTC)
	var kept []record.Memory
	for i, n := range []record.NewMemory{
		{Content: "Fusion is weighted RRF with K=60.", Type: record.TypeDecision, Tags: []string{"fusion"}, Session: "fixture", Importance: 0.9},
		{Content: "This memory is deleted in the fixture.", Type: record.TypeNote},
		{Content: "func main() {}", Type: record.TypeCode, Source: "main.go", Session: "fixture"},
		{Content: "Prefer tabs.", Type: record.TypePreference, Tags: []string{"style", "go"}},
	} {
		n.CreatedAt = base.Add(time.Duration(i) * time.Minute)
		m, err := e.Add(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if err := e.Delete(ctx, m.ID); err != nil {
				t.Fatal(err)
			}
			continue
		}
		kept = append(kept, m)
	}
	closeFixture(t, e, dst, map[string]any{".json": kept})
}

func TestMemoryIDText(t *testing.T) {
	id := record.NewID()
	b, err := json.Marshal(struct{ ID record.ID }{id})
	if err != nil || string(b) != `{"ID":"`+id.String()+`"}` {
		t.Fatalf("json of an id: %s, %v", b, err)
	}
	var back struct{ ID record.ID }
	if err := json.Unmarshal(b, &back); err != nil || back.ID != id {
		t.Fatalf("id back from json: %s, %v", back.ID, err)
	}
	var ve *record.ValidationError
	if err := json.Unmarshal([]byte(`{"ID":"nope"}`), &back); !errors.As(err, &ve) {
		t.Fatalf("bad id in json: %v", err)
	}
}
