package cellar

import (
	"context"
	"testing"
	"time"
)

func TestSnapshots(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	if _, _, ok, err := e.LatestSnapshot(ctx, TopicProfiles); ok || err != nil {
		t.Fatalf("LatestSnapshot of an empty family: ok %v, %v", ok, err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for i := range 5 {
		if err := e.PutSnapshot(ctx, TopicProfiles, t0.Add(time.Duration(i)*time.Minute), []byte{byte('a' + i)}, 3); err != nil {
			t.Fatal(err)
		}
	}
	v, at, ok, err := e.LatestSnapshot(ctx, TopicProfiles)
	if err != nil || !ok || string(v) != "e" || !at.Equal(t0.Add(4*time.Minute)) {
		t.Fatalf("LatestSnapshot = %q %v %v %v, want e at +4m", v, at, ok, err)
	}
	var n int
	if err := e.Scan(ctx, FamTopicProfiles, nil, func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("%d snapshots kept, want 3", n)
	}
	if _, _, ok, _ := e.LatestSnapshot(ctx, SynergyMatrix); ok {
		t.Fatal("a topic snapshot shows in synergy_matrix")
	}
	if err := e.PutSnapshot(ctx, TopicProfiles, t0, nil, 0); err == nil {
		t.Fatal("keep 0 accepted")
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
