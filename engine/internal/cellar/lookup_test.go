package cellar

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cgraph/cgraph/record"
)

func TestDocNumLookups(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	var ms []record.Memory
	for i := range 3 {
		m, err := e.Add(ctx, record.NewMemory{Content: fmt.Sprint("m", i)})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	if err := e.Delete(ctx, ms[1].ID); err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		d, derr := e.DocNumOf(ctx, m.ID)
		id, ierr := e.MemoryIDOf(ctx, m.DocNum)
		if i == 1 {
			if !errors.Is(derr, record.ErrNotFound) || !errors.Is(ierr, record.ErrNotFound) {
				t.Fatalf("deleted memory still maps: %v, %v", derr, ierr)
			}
			continue
		}
		if derr != nil || ierr != nil || d != m.DocNum || id != m.ID {
			t.Fatalf("memory %d: DocNumOf=%d,%v MemoryIDOf=%s,%v; want %d, %s", i, d, derr, id, ierr, m.DocNum, m.ID)
		}
	}
}

func TestScan(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	var ms []record.Memory
	for i := range 5 {
		m, err := e.Add(ctx, record.NewMemory{Content: fmt.Sprint("m", i)})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	var docs []record.DocNum
	err := e.Scan(ctx, FamDocnums, []byte{docnumByDocPrefix}, func(k, v []byte) error {
		_, ok, err := e.kv.get(FamMemories, v) // a writer's store may be read here; real callbacks must not call the Store
		if err != nil || !ok {
			return fmt.Errorf("docnums/%x names no memory", k)
		}
		docs = append(docs, record.DocNum(uint32(k[1])<<24|uint32(k[2])<<16|uint32(k[3])<<8|uint32(k[4])))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 5 || docs[0] != 0 || docs[4] != 4 {
		t.Fatalf("scan of the doc direction: %v", docs)
	}
	n := 0
	if err := e.Scan(ctx, FamMemories, nil, func(k, v []byte) error { n++; return nil }); err != nil || n != 5 {
		t.Fatalf("full scan: %d keys, %v", n, err)
	}
	stop := errors.New("stop")
	n = 0
	if err := e.Scan(ctx, FamMemories, nil, func(k, v []byte) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("scan did not stop on the callback's error: %d, %v", n, err)
	}
	if err := e.Scan(ctx, Family(99), nil, func(k, v []byte) error { return nil }); err == nil {
		t.Fatal("scan of an unknown Family accepted")
	}
}
