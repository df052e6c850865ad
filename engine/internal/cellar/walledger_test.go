package cellar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/internal/testdir"
	"github.com/cgraph/cgraph/record"
)

// flushAll flushes every family of an open writer and waits.
func flushAll(t testing.TB, e *Store) {
	t.Helper()
	s := e.kv.(*rocksStore)
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	for _, h := range s.handles {
		if h != nil {
			if err := s.db.FlushCF(h, fo); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// logNames lists the store's log files holding records, oldest first.
func logNames(t testing.TB, dir string) []string {
	t.Helper()
	logs, err := logsOnDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range slices.Sorted(func(yield func(uint64) bool) {
		for n, size := range logs {
			if size > 0 && !yield(n) {
				return
			}
		}
	}) {
		out = append(out, walEntry{num: n}.name())
	}
	return out
}

// multiLogStore writes a closed store whose recent writes sit in three log
// files, one per writer process, with its metadata and first memories
// flushed to table files (as in any store that has lived a while). The
// later processes read (and so rewrite: Get records the access) memories
// of the earlier ones, and delete one, so losing a log leaves records
// without their index keys and counters that disagree — what issue 27
// found. It returns the ids added, in order.
func multiLogStore(t *testing.T, dir string) []record.ID {
	t.Helper()
	ctx := context.Background()
	var ids []record.ID
	for p := range 4 {
		e, err := Open(dir, Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			m := addFilled(t, e, record.NewMemory{Content: fmt.Sprintf("memory %d of process %d", i, p), Session: "s"})
			ids = append(ids, m.ID)
		}
		if p == 0 {
			flushAll(t, e)
		}
		if p >= 2 { // touch memories of the process before
			for _, id := range ids[(p-1)*4 : (p-1)*4+2] {
				if _, err := e.Get(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
			b, err := e.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Delete(ids[(p-1)*4+3]); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(logNames(t, dir)); n != 3 {
		t.Fatalf("the store holds %d log files with records, want 3: %v", n, logNames(t, dir))
	}
	return ids
}

// TestLostLogRefused: a store that lost its newest or an older log file
// is refused by writers and readers, naming the file and the ways out;
// before the ledger, the newest log's loss opened with fewer memories and
// checked clean, and an older one's opened with counters that disagree.
// Logs RocksDB deleted itself after a flush — also in a writer killed
// before its close — never make a store refused.
func TestLostLogRefused(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	multiLogStore(t, base)
	logs := logNames(t, base)
	for name, victim := range map[string]string{"newest": logs[len(logs)-1], "older": logs[0]} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			testdir.Copy(t, base, dir)
			if err := os.Remove(filepath.Join(dir, victim)); err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{ReadOnly: true}, {}, {}} { // twice: a refusal leaves it refused
				e, err := Open(dir, opts)
				if err == nil {
					c, _ := e.Counters(context.Background())
					e.Close()
					t.Fatalf("read-only=%v: a store without %s opened (%+v)", opts.ReadOnly, victim, c)
				}
				var lost *LostLogError
				if !errors.As(err, &lost) || !errors.Is(err, record.ErrDamaged) {
					t.Fatalf("read-only=%v: %v; want a LostLogError", opts.ReadOnly, err)
				}
				for _, want := range []string{victim + " (", "is missing", "Restore the store from a backup", "check --repair", "export"} {
					if !strings.Contains(err.Error(), want) {
						t.Fatalf("read-only=%v: %q does not say %q", opts.ReadOnly, err, want)
					}
				}
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "s")
		testdir.Copy(t, base, dir)
		if err := os.Truncate(filepath.Join(dir, logs[1]), 10); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), logs[1]+" is 10 bytes") {
			t.Fatalf("a truncated log: %v", err)
		}
	})
	t.Run("flushed logs may go", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "s")
		testdir.Copy(t, base, dir)
		e := openTest(t, dir, Options{})
		addFilled(t, e, record.NewMemory{Content: "after the reopen"})
		flushAll(t, e) // RocksDB deletes the flushed logs the ledger named at open
		// A copy of the directory now is what a kill -9 leaves: the ledger
		// written at open names logs that are gone.
		killed := filepath.Join(t.TempDir(), "killed")
		testdir.Copy(t, dir, killed)
		os.Remove(filepath.Join(killed, lockFileName))
		for _, opts := range []Options{{ReadOnly: true}, {}} {
			k, err := Open(killed, opts)
			if err != nil {
				t.Fatalf("read-only=%v: a store whose flushed logs RocksDB deleted: %v", opts.ReadOnly, err)
			}
			if c, err := k.Counters(context.Background()); err != nil || c.Memories != 15 {
				t.Fatalf("%+v %v; want 15 memories", c, err)
			}
			if err := k.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := k.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestRepairAcceptsLostLog: check --repair (Repair, then RepairRecords)
// accepts a lost older log and rebuilds the counters and the docnums,
// created_index and sequence families from the records that remain, so
// that the store checks clean and opens. Before, three problems stayed.
func TestRepairAcceptsLostLog(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s")
	ids := multiLogStore(t, dir)
	logs := logNames(t, dir)
	if err := os.Remove(filepath.Join(dir, logs[0])); err != nil { // process 1's memories
		t.Fatal(err)
	}
	rep, err := Repair(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Healthy || len(rep.LostLogs) != 1 || !strings.Contains(rep.LostLogs[0], logs[0]) {
		t.Fatalf("repair report %+v; want the loss of %s", rep, logs[0])
	}
	e := openTest(t, dir, Options{})
	if err := e.Check(ctx); err == nil || !strings.Contains(err.Error(), "meta/memory_count") {
		t.Fatalf("before the record repair: %v; want the memory count named", err)
	}
	rr, err := e.RepairRecords(ctx)
	if err != nil || !rr.Counters || rr.IndexKeys == 0 {
		t.Fatalf("RepairRecords: %+v, %v", rr, err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("after the repair: %v", err)
	}
	if rr, err := e.RepairRecords(ctx); err != nil || rr.Changed() {
		t.Fatalf("a second repair changed %+v, %v", rr, err)
	}
	// Process 1's memories that process 2 read (and so rewrote) are back
	// in full; the ones only in the lost log are gone.
	c, err := e.Counters(ctx)
	if err != nil || c.Memories != 4+2+3+4 {
		t.Fatalf("counters %+v, %v; want 13 memories", c, err)
	}
	for i, id := range ids[4:8] {
		_, err := e.Get(ctx, id)
		if i < 2 && err != nil {
			t.Fatalf("memory %d of process 1, rewritten by process 2: %v", i, err)
		}
		if i >= 2 && !errors.Is(err, record.ErrNotFound) {
			t.Fatalf("memory %d of process 1, only in the lost log: %v", i, err)
		}
	}
	if _, err := e.Add(ctx, record.NewMemory{Content: "after the repair", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
