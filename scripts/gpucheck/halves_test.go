package main

import (
	"testing"
	"time"
)

// TestHalves: the spans of a pipelined import's two halves are summed per
// half, merged into wall time per half, and intersected for the time both
// ran at once.
func TestHalves(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	iv := func(a, b int) interval { return interval{at(a), at(b)} }
	for _, tc := range []struct {
		name             string
		prepares, stores []interval
		want             halves
	}{
		{"one after another", []interval{iv(0, 100), iv(200, 300)}, []interval{iv(100, 200), iv(300, 400)},
			halves{Batches: 2, PrepareMS: 200, StoreMS: 200, PrepareWallMS: 200, StoreWallMS: 200, BothMS: 0}},
		{"overlapped", []interval{iv(0, 100), iv(50, 150), iv(120, 220)}, []interval{iv(100, 180), iv(180, 260)},
			halves{Batches: 3, PrepareMS: 300, StoreMS: 160, PrepareWallMS: 220, StoreWallMS: 160, BothMS: 120}},
		{"no batches", nil, nil, halves{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := &timedPreparer{prepares: tc.prepares, stores: tc.stores}
			if got := *tp.halves(); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
