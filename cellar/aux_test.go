package cellar

import (
	"context"
	"errors"
	"testing"
)

func TestUpdateAux(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	put := func(tx *Tx) error { return tx.Put("topic_profiles", []byte("snap/1"), []byte("v1")) }
	if err := e.UpdateAux(ctx, "topic_profiles", put); err != nil {
		t.Fatal(err)
	}
	// Read-modify-write sees the committed value; a failing fn writes nothing.
	boom := errors.New("boom")
	err := e.UpdateAux(ctx, "topic_profiles", func(tx *Tx) error {
		v, ok, err := tx.Get("topic_profiles", []byte("snap/1"))
		if err != nil || !ok || string(v) != "v1" {
			t.Errorf("Get = %q %v %v", v, ok, err)
		}
		if err := tx.Put("topic_profiles", []byte("snap/2"), []byte("v2")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	var keys []string
	if err := e.Scan(ctx, "topic_profiles", nil, func(k, v []byte) error { keys = append(keys, string(k)+"="+string(v)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "snap/1=v1" {
		t.Fatalf("family holds %v", keys)
	}
	// Only store-wide families, and only that family.
	for _, fam := range []string{"default", "memories", "fingerprints", "e6_sparse_inverted", "nope"} {
		if err := e.UpdateAux(ctx, fam, func(*Tx) error { return nil }); err == nil {
			t.Errorf("UpdateAux(%s) accepted", fam)
		}
	}
	err = e.UpdateAux(ctx, "topic_profiles", func(tx *Tx) error { return tx.Put("memories", []byte("x"), []byte("y")) })
	if err == nil {
		t.Fatal("a write to another family was accepted")
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
